"""Benchmark: how fast the bot takes mail off a real IMAP server.

Starts a private Dovecot, appends N small mails and times
  (a) a bare imapclient FETCH of all of them (one BODY.PEEK[] command),
  (b) ImapMailbox.fetch_new + an ingest step per mail + mark_processed_many
      in batches (MOVE to Processed),
  (c) the same with one mark_processed (one MOVE) per mail,
  (d) as (b) in \\Seen mode (no processed folder: STORE +FLAGS instead of MOVE),
plus fetch_new alone and (a') bare FETCH + one UID MOVE (the server's own
cost of moving), to separate reading from marking,
and prints mails/s and the ratio to (a) (target: (b) within 2x of (a)).
Each figure is the best of ``--repeat`` runs (the machine may be shared);
between runs the mails are moved back to INBOX, unmeasured.

The ingest step is pluggable: ``run(ingest=...)`` takes a callable that gets
each ``IncomingMail``.

Then the whole pipeline (``App.poll_once`` over ``ImapMailbox``: spool,
ledger, read, league, reply, outbox, MOVE) on registration mails of as many
new managers, at several mail counts (``--growth``), each from a fresh state:
  (e) the batched path (one spool flush, connection and transaction per
      poll batch),
  (f) the old per-mail path (``Ingestor.ingest`` mail by mail),
with the figure, (f)/(e) and the ratios to a bare FETCH of the same mails,
so it shows how each grows with the number of mails. Passwords use scrypt
N=2**4: this part measures everything but scrypt (``bench_ingest.py``
measures the password cache at the default cost).

    python -m bench.bench_imap_ingest [--mails 1000] [--batch 100]
                                      [--growth 250,500,1000] [--no-pipeline]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from imapclient import IMAPClient

from bot.app import POLL_BATCH, App, build_app
from bot.config import Config
from bot.league.passwords import VERIFIED
from bot.league.settings import LeagueSettings
from bot.mail.imap_source import ImapMailbox, ImapSettings
from bot.mail.transport import IncomingMail
from bot.service.inbound import PollReport
from tests.servers import BOT_ADDRESS, DovecotServer

Ingest = Callable[[IncomingMail], None]


@dataclass(frozen=True)
class Figure:
    name: str
    mails: int
    seconds: float

    @property
    def rate(self) -> float:
        return self.mails / self.seconds if self.seconds else float("inf")


def make_mail(n: int) -> bytes:
    return (
        f"From: Manager {n} <manager{n}@example.org>\r\nTo: {BOT_ADDRESS}\r\n"
        f"Subject: Aufstellung Runde 7\r\nMessage-ID: <bench{n}@example.org>\r\n"
        f"Date: Sun, 01 Mar 2026 18:00:00 +0000\r\n\r\n"
        f"Passwort: geheim{n}\r\nTeam FC {n}: 10-10-15-15-20\r\n\r\nGruss\r\n"
    ).encode()


def settings(server: DovecotServer, **overrides: object) -> ImapSettings:
    return server.imap_settings(**overrides)


def bare_fetch(server: DovecotServer) -> Figure:
    started = time.perf_counter()
    client = IMAPClient(server.host, port=server.imap_port, ssl=False)
    client.login(BOT_ADDRESS, server.password(BOT_ADDRESS))
    client.select_folder("INBOX")
    uids = client.search("ALL")
    data = client.fetch(uids, ["BODY.PEEK[]"])
    elapsed = time.perf_counter() - started
    client.logout()
    return Figure("(a) bare imapclient: one FETCH BODY.PEEK[]", len(data), elapsed)


def bare_fetch_and_move(server: DovecotServer) -> Figure:
    """The protocol floor of MOVE mode: one FETCH and one UID MOVE of everything."""
    started = time.perf_counter()
    client = IMAPClient(server.host, port=server.imap_port, ssl=False)
    client.login(BOT_ADDRESS, server.password(BOT_ADDRESS))
    if not client.folder_exists("Processed"):
        client.create_folder("Processed")
    client.select_folder("INBOX")
    uids = client.search("ALL")
    data = client.fetch(uids, ["BODY.PEEK[]"])
    client.move(uids, "Processed")
    elapsed = time.perf_counter() - started
    client.logout()
    return Figure("(a') bare imapclient: one FETCH + one UID MOVE", len(data), elapsed)


def fetch_only(server: DovecotServer) -> Figure:
    started = time.perf_counter()
    with ImapMailbox(settings(server)) as box:
        mails = box.fetch_new()
    elapsed = time.perf_counter() - started
    return Figure("    ImapMailbox.fetch_new alone", len(mails), elapsed)


def mailbox_ingest(
    server: DovecotServer, ingest: Ingest, batch: int | None, *, seen_mode: bool = False
) -> Figure:
    """fetch_new, ingest each mail, then mark (in batches, or one by one)."""
    overrides = {"processed_folder": None} if seen_mode else {}
    started = time.perf_counter()
    with ImapMailbox(settings(server, **overrides)) as box:
        mails = box.fetch_new()
        pending: list[IncomingMail] = []
        for mail in mails:
            ingest(mail)
            if batch is None:
                box.mark_processed(mail)
                continue
            pending.append(mail)
            if len(pending) >= batch:
                box.mark_processed_many(pending)
                pending = []
        if pending:
            box.mark_processed_many(pending)
    elapsed = time.perf_counter() - started
    how = "\\Seen" if seen_mode else "MOVE"
    how += f", batches of {batch}" if batch else " per mail"
    label = "(b)" if batch and not seen_mode else "(c)" if batch is None else "(d)"
    return Figure(f"{label} ImapMailbox fetch + ingest + mark ({how})", len(mails), elapsed)


def reset(server: DovecotServer) -> None:
    """Undo the marking for the next run (not measured): processed mails back
    to INBOX, \\Seen flags off."""
    client = server.client()
    try:
        if client.folder_exists("Processed"):
            client.select_folder("Processed")
            uids = client.search("ALL")
            if uids:
                client.move(uids, "INBOX")
        client.select_folder("INBOX")
        uids = client.search("ALL")
        if uids:
            client.remove_flags(uids, [b"\\Seen"], silent=True)
    finally:
        client.logout()


def best(figures: list[Figure]) -> Figure:
    return min(figures, key=lambda figure: figure.seconds)


def no_ingest(mail: IncomingMail) -> None:
    """The transport alone: look at the bytes, do nothing."""
    if not mail.raw:
        raise ValueError(f"empty mail {mail.key}")


def run(
    mails: int = 1000, batch: int = 100, ingest: Ingest = no_ingest, repeat: int = 3
) -> list[Figure]:
    """All figures, each the best of ``repeat`` runs; (a) first."""
    with DovecotServer() as server:
        started = time.perf_counter()
        server.append_many(make_mail(n) for n in range(mails))
        appended = time.perf_counter() - started
        print(f"appended {mails} mails in {appended:.2f} s (setup, not measured)")

        def measure(action: Callable[[], Figure]) -> Figure:
            runs = []
            for _ in range(repeat):
                runs.append(action())
                reset(server)
                assert len(server.list_folder("INBOX")) == mails  # nothing lost
            assert all(figure.mails == mails for figure in runs)
            return best(runs)

        return [
            measure(lambda: bare_fetch(server)),
            measure(lambda: bare_fetch_and_move(server)),
            measure(lambda: fetch_only(server)),
            measure(lambda: mailbox_ingest(server, ingest, batch)),
            measure(lambda: mailbox_ingest(server, ingest, batch, seen_mode=True)),
            measure(lambda: mailbox_ingest(server, ingest, None)),
        ]


def report(figures: list[Figure]) -> None:
    base = figures[0]
    print(f"{'what':<64} {'mails':>6} {'seconds':>8} {'mails/s':>9} {'ratio':>6}")
    for figure in figures:
        ratio = figure.seconds / base.seconds if base.seconds else float("inf")
        print(
            f"{figure.name:<64} {figure.mails:>6} {figure.seconds:>8.3f} "
            f"{figure.rate:>9.0f} {ratio:>5.2f}x"
        )
    batched = next(f for f in figures if f.name.startswith("(b)"))
    verdict = "met" if batched.seconds <= 2 * base.seconds else "NOT met"
    print(f"target (batched ingest within 2x of the bare fetch): {verdict}")


# ---------------------------------------------------------------- the whole pipeline

START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def registration_mail(n: int) -> bytes:
    return (
        f"From: Manager {n} <manager{n}@example.org>\r\nTo: {BOT_ADDRESS}\r\n"
        f"Subject: Anmeldung\r\nMessage-ID: <bench-reg{n}@example.org>\r\n"
        f"Date: Tue, 01 Dec 2026 09:00:00 +0000\r\n\r\n"
        f"Hallo,\r\nNeues Team: FC {n}\r\nAufstellung: 10-10-15-15-20\r\n\r\nGruss\r\n"
    ).encode()


def per_mail_poll(app: App, batch: int = POLL_BATCH) -> PollReport:
    """The ingest before issue 15: fetch ``batch`` mails, ingest them one by
    one (each its own spool flush, connection and transaction), one MOVE."""
    results: list = []
    while True:
        mails = app.source.fetch_new(limit=batch)
        results.extend(app.ingestor.ingest(mail) for mail in mails)
        app.source.mark_processed_many(mails)
        if len(mails) < batch:
            return PollReport(tuple(results))


def dovecot_config(server: DovecotServer, state: Path) -> Config:
    """The configuration of a bench game reading the private Dovecot's INBOX
    (SMTP is never used: the replies stay in the outbox)."""
    return Config.from_mapping(
        {
            "state_dir": str(state),
            "game": {"name": "Turnited Bench"},
            "gm": {"address": "gm@game.example"},
            "schedule": {"timezone": "Europe/Berlin", "deadlines": {"cron": "0 20 * * SUN"}},
            "mail": {
                "transport": "imap",
                "address": BOT_ADDRESS,
                "imap": {"host": server.host, "port": server.imap_port, "security": "none",
                         "username": BOT_ADDRESS, "password": server.password(BOT_ADDRESS),
                         "processed_folder": "Processed"},
                "smtp": {"host": server.host, "port": 25, "security": "none"},  # never used
            },
        },
        state.parent,
    )


def pipeline_app(server: DovecotServer, state: Path) -> App:
    app = build_app(dovecot_config(server, state), clock=lambda: START,
                    league_settings=LeagueSettings(password_cost=2**4, simulations=0))
    app.ensure_started()
    return app


def pipeline_poll(server: DovecotServer, count: int, *, old: bool) -> Figure:
    """One poll of the INBOX's ``count`` mails into a fresh state; the mails
    are moved back afterwards (not measured)."""
    with tempfile.TemporaryDirectory(prefix="bench-imap-ingest-") as tmp:
        app = pipeline_app(server, Path(tmp) / "state")
        VERIFIED.clear()
        VERIFIED.enabled = not old
        try:
            started = time.perf_counter()
            report_ = per_mail_poll(app) if old else app.poll_once()
            elapsed = time.perf_counter() - started
        finally:
            VERIFIED.enabled = True
            app.close()
    reset(server)
    if report_.processed != count or report_.replies != count:
        raise RuntimeError(f"{report_.processed} mails processed, {report_.replies} replies "
                           f"for {count} mails")
    name = "(f) old per-mail path" if old else "(e) batched App.poll_once"
    return Figure(name, count, elapsed)


def growth(counts: list[int], repeat: int) -> None:
    """(e) and (f) against a bare FETCH, at each mail count."""
    print()
    print(f"the whole pipeline: registrations of new managers, best of {repeat}, fresh state "
          "each run")
    print(f"{'mails':>6} {'(a) s':>8} {'(e) s':>8} {'(f) s':>8} {'(e) ms/mail':>12} "
          f"{'(f) ms/mail':>12} {'(f)/(e)':>8} {'(e)/(a)':>8} {'(f)/(a)':>8}")
    rows = []
    with DovecotServer(name="bench-pipeline") as server:
        for count in counts:
            server.empty("INBOX")
            server.append_many(registration_mail(n) for n in range(count))
            bare = best([bare_fetch(server) for _ in range(repeat)])
            news, olds = [], []
            for _ in range(repeat):  # interleaved: a busy spell hits both paths alike
                news.append(pipeline_poll(server, count, old=False))
                olds.append(pipeline_poll(server, count, old=True))
            new, old = best(news), best(olds)
            rows.append((count, new, old))
            print(f"{count:>6} {bare.seconds:>8.3f} {new.seconds:>8.3f} {old.seconds:>8.3f} "
                  f"{1000 * new.seconds / count:>12.2f} {1000 * old.seconds / count:>12.2f} "
                  f"{old.seconds / new.seconds:>7.2f}x {new.seconds / bare.seconds:>7.0f}x "
                  f"{old.seconds / bare.seconds:>7.0f}x")
    if len(rows) > 1:
        (c0, n0, o0), (c1, n1, o1) = rows[0], rows[-1]
        print(f"growth {c0} -> {c1} mails ({c1 / c0:.0f}x): (e) x{n1.seconds / n0.seconds:.2f}, "
              f"(f) x{o1.seconds / o0.seconds:.2f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mails", type=int, default=1000)
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--growth", default="250,500,1000",
                        help="mail counts of the whole-pipeline rows")
    parser.add_argument("--no-pipeline", action="store_true",
                        help="only the transport figures")
    args = parser.parse_args(argv)
    report(run(args.mails, args.batch, repeat=args.repeat))
    if not args.no_pipeline:
        counts = sorted({int(c) for c in args.growth.split(",") if c.strip()})
        growth(counts, min(args.repeat, 2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
