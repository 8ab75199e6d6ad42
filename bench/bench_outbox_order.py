"""Benchmark: what the daily budget (``mail.smtp.max_per_day``) and the
order "personal mail before bulk mail" cost the outbox drain.

An outbox of a long-running game is built in a temporary SQLite file: N
finished rows (sent over the last weeks, bodies dropped as the drain drops
them) and Q queued ones (a newsletter to every player, then replies). The
script prints CPU time (``time.process_time``, less disturbed by other
processes than wall time) of:

  next_due           the query choosing the next message: the old one (oldest
                     first) beside the new one (personal first), and their ratio
  sent_since         reading the sends of the last 24 hours (once per drain)
  drain              a whole drain of the Q queued messages to a sender that
                     accepts everything: without a limit, with a limit that
                     everything fits (the budget's own cost), and with one
                     that holds about half the newsletter back; per message

    python -m bench.bench_outbox_order [--finished 100000] [--queued 500] [--repeat 5]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.service.drain import drain
from bot.service.sending_budget import BULK_KINDS, DAY, reserve
from bot.storage import outbox as rows
from bot.storage import outbox_budget
from bot.storage.db import Database, open_database
from bot.storage.values import time_to_db

NOW = datetime(2027, 3, 1, 20, 0, tzinfo=UTC)


class AcceptAll:
    def send(self, raw: bytes, mail_from: str, rcpt: str) -> None:
        pass

    def close(self) -> None:
        pass


def build(directory: Path, finished: int, queued: int) -> Database:
    db = open_database(directory)
    with db.transaction() as conn:
        spread = timedelta(days=60) / max(finished, 1)
        conn.executemany(
            "INSERT INTO outbox (message_id, kind, recipient, raw, created_at, state, attempts,"
            " next_attempt_at, sent_at, size, sha256) VALUES (?, ?, ?, X'', ?, 'sent', 1, ?, ?,"
            " 1000, ?)",
            [(f"<old{n}@bench>", ("reply", "newsletter", "reminder")[n % 3],
              f"m{n % 400}@example.org", time_to_db(NOW - spread * n),
              time_to_db(NOW - spread * n), time_to_db(NOW - spread * n), "0" * 64)
             for n in range(finished)])
        for n in range(queued):
            kind = "newsletter" if n < queued * 4 // 5 else "reply"
            rows.enqueue(conn, raw=b"Subject: x\r\n\r\nx\r\n" * 20, message_id=f"<q{n}@bench>",
                         kind=kind, recipient=f"p{n}@example.org", now=NOW)
    return db


def cpu(call: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        call()
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--finished", type=int, default=100_000)
    parser.add_argument("--queued", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-outbox-") as tmp:
        db = build(Path(tmp), args.finished, args.queued)
        print(f"outbox: {args.finished} finished rows, {args.queued} queued "
              f"({args.queued * 4 // 5} newsletter copies, then replies)")

        def old() -> object:
            with db.read() as conn:
                return rows.next_due(conn, NOW)

        def new() -> object:
            with db.read() as conn:
                return outbox_budget.next_due(conn, NOW, bulk=BULK_KINDS, with_bulk=True)

        def window() -> object:
            with db.read() as conn:
                return outbox_budget.sent_since(conn, NOW - DAY)

        t_old, t_new = cpu(old, args.repeat * 20), cpu(new, args.repeat * 20)
        print(f"next_due   oldest first {t_old * 1e3:8.3f} ms   personal first "
              f"{t_new * 1e3:8.3f} ms   ratio {t_new / t_old:5.2f}")
        with db.read() as conn:
            in_window = len(outbox_budget.sent_since(conn, NOW - DAY))
        print(f"sent_since {cpu(window, args.repeat) * 1e3:8.3f} ms for {in_window} sends in "
              "24 h (once per drain)")
        db.close()

        half = in_window + args.queued // 2  # bulk mail gets about half the newsletter
        while half - reserve(half) < in_window + args.queued // 5 + args.queued * 2 // 5:
            half += 1
        results: dict[str, float] = {}
        for label, limit in (("no limit", None), ("all fit", 1_000_000),
                             ("half waits", half)):
            times = []
            for _ in range(args.repeat):
                fresh = Path(tmp) / f"run{len(times)}-{label.replace(' ', '')}"
                run_db = build(fresh, args.finished, args.queued)
                start = time.process_time()
                report = drain(run_db, AcceptAll(), now=lambda: NOW, mail_from="b@x",
                               max_per_day=limit)
                times.append(time.process_time() - start)
                run_db.close()
            best = results[label] = min(times)
            print(f"drain      {label:10} {report.sent:4} sent, {report.deferred:4} deferred:"
                  f" {best * 1e3:8.1f} ms, {best / max(report.sent, 1) * 1e3:6.3f} ms a message")
        print(f"the budget's cost when everything fits: ratio "
              f"{results['all fit'] / results['no limit']:5.2f} (same mails sent)")


if __name__ == "__main__":
    main()
