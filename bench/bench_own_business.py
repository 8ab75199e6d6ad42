"""Benchmark: what the players' own business by mail (issue 21) adds to the hot paths.

1. ``compose`` of a newsletter with the list headers (``List-Id``,
   ``List-Unsubscribe``: every bulk mail) against the same mail composed as
   a digest (no list headers): CPU time per mail and the ratio.
2. The ingest's question per batch whether an erasure left spool files to
   remove (``bot.service.erasure.spool_to_remove``, one SELECT in the
   batch's own transaction): CPU time per call on a real SQLite file.
3. Erasing one manager (``bot.league.erasure.erase``) in a ledger of
   ``--mails`` mails and an outbox of ``--outbox`` rows: CPU and wall time,
   and how it grows when both double.

CPU time (``time.process_time``) is printed beside wall time: the machine
may be shared, and CPU time is what the code costs.

Run: .venv/bin/python -m bench.bench_own_business [--mails 20000] [--outbox 5000]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path

from bot.league.erasure import erase
from bot.mail.compose import compose
from bot.service.erasure import spool_to_remove
from bot.storage import managers, outbox
from bot.storage.db import open_database
from bot.storage.ledger import InboundRecord, insert

NOW = datetime(2026, 12, 6, 19, 0, tzinfo=UTC)
TEXT = "Hallo,\n\n" + "Ergebnisse der Runde: Grüne Jäger – Ölberg 3:1\n" * 400
HTML = "<html><body>" + "<p>Grüne Jäger – Ölberg 3:1</p>" * 400 + "</body></html>"


def cpu_per_call(fn, n: int) -> float:  # type: ignore[no-untyped-def]
    """CPU seconds per call of one run of ``n`` calls."""
    start = time.process_time()
    for i in range(n):
        fn(i)
    return (time.process_time() - start) / n


def bench_compose(n: int) -> None:
    """The same newsletter with its list headers and with them cut out again
    (``compose`` as it was before), runs interleaved, the fastest of seven."""
    def mail(i: int) -> bytes:
        return compose(kind="newsletter", sender="turnited@example.org",
                       sender_name="Turnited", to=f"p{i}@player.example",
                       subject="Turnited: Ergebnisse", text=TEXT, html=HTML,
                       date=NOW, key="newsletter/round-12", language="de").data

    real = EmailMessage.set_raw

    def without_lists(self: EmailMessage, name: str, value: str) -> None:
        if name not in ("List-Id", "List-Unsubscribe"):
            real(self, name, value)

    with_lists, without = [], []
    for _ in range(7):
        with_lists.append(cpu_per_call(mail, n))
        EmailMessage.set_raw = without_lists  # type: ignore[method-assign]
        try:
            without.append(cpu_per_call(mail, n))
        finally:
            EmailMessage.set_raw = real  # type: ignore[method-assign]
    best, base = min(with_lists), min(without)
    print(f"compose, {n} newsletters to different recipients (body encoded once, cached):")
    print(f"  with List-Id + List-Unsubscribe   {best * 1e6:7.1f} µs CPU/mail "
          f"(median {statistics.median(with_lists) * 1e6:.1f})")
    print(f"  without them                      {base * 1e6:7.1f} µs CPU/mail "
          f"(median {statistics.median(without) * 1e6:.1f})")
    print(f"  ratio {best / base:.3f}  (+{(best - base) * 1e6:.1f} µs/mail)")


def fill(root: Path, mails: int, rows: int) -> tuple[object, str]:
    db = open_database(root / "state", durable=False)
    target = "anna@player.example"
    with db.transaction() as conn:
        managers.insert_manager(conn, target, "Anna", None, NOW, 1)
        for i in range(mails):
            sender = target if i % 100 == 0 else f"p{i % 400}@player.example"
            row = insert(conn, InboundRecord(
                source="maildir", uidvalidity=None, uid=None, message_id=f"<m{i}@x.example>",
                sha256=f"{i:064x}", spool_path=f"2026-12/{i:064x}.eml.gz",
                received_at=NOW - timedelta(minutes=i), sender=sender, subject="Aufstellung",
                kind="human"))
            conn.execute("UPDATE inbound SET outcome = 'accepted round 1: lineup_set'"
                         " WHERE id = ?", (row,))
        for i in range(rows):
            recipient = target if i % 100 == 0 else f"p{i % 400}@player.example"
            outbox.enqueue(conn, raw=b"x" * 200, message_id=f"<o{i}@x.example>",
                           kind="newsletter", recipient=recipient, now=NOW)
        conn.execute("UPDATE outbox SET state = 'sent', raw = X''")
    return db, target


def bench_erasure(mails: int, rows: int) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as tmp:
        db, target = fill(Path(tmp), mails, rows)
        with db.transaction() as conn:  # type: ignore[attr-defined]
            manager = managers.manager_by_address(conn, target)
            wall, cpu = time.perf_counter(), time.process_time()
            done = erase(conn, target, manager, NOW)
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        assert done.mails == len(range(0, mails, 100))  # every 100th mail is the target's
        return cpu, wall


def bench_batch_check(n: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        db = open_database(Path(tmp) / "state", durable=False)
        with db.transaction() as conn:
            per_call = min(cpu_per_call(lambda i: spool_to_remove(conn), n) for _ in range(5))
    print(f"the ingest's erasure check per batch (nothing waiting): {per_call * 1e6:.1f} µs CPU")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mails", type=int, default=20_000)
    parser.add_argument("--outbox", type=int, default=5_000)
    parser.add_argument("--compose", type=int, default=300)
    args = parser.parse_args()
    bench_compose(args.compose)
    bench_batch_check(2_000)
    small = bench_erasure(args.mails, args.outbox)
    large = bench_erasure(2 * args.mails, 2 * args.outbox)
    print(f"erasing one manager: {args.mails} ledgered mails, {args.outbox} outbox rows: "
          f"{small[0] * 1e3:.1f} ms CPU ({small[1] * 1e3:.1f} ms wall)")
    print(f"                     twice as many: {large[0] * 1e3:.1f} ms CPU "
          f"({large[1] * 1e3:.1f} ms wall), ratio {large[0] / small[0]:.2f}")


if __name__ == "__main__":
    main()
