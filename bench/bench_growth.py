"""Benchmark: what a round adds to ``state/``, part by part (issues 11 and 22).

By default the league of issue 22: 40 managers with 64 teams (24 of them
run two), weekly rounds on a simulated clock with the real ``App``: every
player mail goes through the real pipeline (delivered to the embedded
Maildir, ``poll_once``: spool, ledger, reading, grammar, league, reply), the
deadline through ``evaluate_due`` (evaluation, newsletters, archive, digest,
the ``retention`` of the configuration), reminders, and every outgoing mail
through the real outbox drain. ``--managers 200 --teams 64`` is issue 11's
league (136 managers without a team write a status request each round). The
Maildir transport stands for the mail server: it is emptied after each round
and not counted.

After every round it measures each part of the state and prints what the
round added:

- the database by what holds the bytes (``dbstat``: the pages of each table
  with its indexes): ``results`` (``round_results``: inputs and report),
  ``outbox``, ``ledger`` (``inbound``), ``moves``, ``history``
  (``round_entries``, ``wp_history``), ``other`` tables, and ``free`` (free
  pages plus the WAL: the file's room that SQLite reuses);
- the ``spool`` (the incoming mail, gzip-compressed);
- the archive: its ``round`` files (``round-NNN.*``) and the ``site`` (index,
  hall of fame, team pages).

The summary gives the mean per round over the second half of the run (the
first rounds fill pages the schema allocates once; the outbox's 90 days of
retention are passed by then) for each part and for the whole state, and
what remains once the spool's retention (a year, past the run's rounds)
removes as much as a round adds. It checks the budget of issue 22: the
state grows by at most ``--budget-mb`` (0.5 MB) a round, the outbox keeps
no delivered body. Exit status 1 when the budget is exceeded.

    python -m bench.bench_growth [--managers 40] [--teams 64] [--rounds 30]
                                 [--simulations 2000] [--budget-mb 0.5] [--keep DIR]

Timings depend on the machine's load; the sizes do not.
"""

from __future__ import annotations

import argparse
import dataclasses
import email
import gzip
import itertools
import random
import shutil
import tempfile
import time
from datetime import UTC, datetime, timedelta
from email import policy
from pathlib import Path

from bot.app import App
from bot.config import Config
from bot.demo.players import DemoManager, make_managers
from bot.mail.maildir_transport import (
    INBOX,
    PROCESSED,
    SENT,
    MaildirInbox,
    MaildirSender,
    deliver,
    read_sent,
)
from bot.storage.db import DATABASE_FILE, database_files, open_database
from bot.storage.permissions import set_private_umask
from bot.wiring import league_settings

BOT = "turnited@growth.example"
GM = "gm@growth.example"
START = datetime(2026, 12, 7, 8, 0, tzinfo=UTC)
KB = 1024
MB = 2**20

#: The database's tables by part (indexes count with their table).
DB_PARTS = {
    "round_results": "results",
    "outbox": "outbox",
    "inbound": "ledger",
    "moves": "moves",
    "round_entries": "history",
    "wp_history": "history",
}
PARTS = ("results", "outbox", "ledger", "moves", "history", "other", "free", "spool",
         "round", "site")


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def config(directory: Path, simulations: int) -> Config:
    data = {
        "game": {"name": "Turnited Growth", "language": "de"},
        "analysis": {"simulations": simulations},
        "state_dir": "state",
        "schedule": {"timezone": "Europe/Berlin", "deadlines": {"cron": "0 20 * * SUN"}},
        "reminders": {"hours_before": [24]},
        "gm": {"address": GM, "name": "Spielleitung"},
        "mail": {"transport": "maildir", "address": BOT,
                 "limits": {"max_mails_per_hour": 1000}},
    }
    return Config.from_mapping(data, directory)


def size(paths) -> int:
    return sum(p.stat().st_size for p in paths if p.is_file())


def tree(path: Path) -> int:
    return size(path.rglob("*")) if path.exists() else 0


class Growth:
    def __init__(self, directory: Path, managers: int, teams: int, seed: int,
                 simulations: int) -> None:
        self.rng = random.Random(seed)
        self.clock = Clock(START)
        cfg = config(directory, simulations)
        league = dataclasses.replace(league_settings(cfg), password_cost=2**10)
        # durable=False (synchronous=NORMAL): the same file, fewer fsyncs
        self.app = App(cfg, source=MaildirInbox(cfg.maildir_root), sender=MaildirSender(
            cfg.maildir_root), clock=self.clock, league_settings=league,
            db=open_database(cfg.state_dir, durable=False))
        self.app.ensure_started()
        self.state = cfg.state_dir
        self.maildir = cfg.maildir_root
        self.managers = make_managers(managers, self.rng)
        # The first `teams` managers play (one team each); of them the first
        # `teams - managers` run a second team, the rest of the managers follow.
        self.players = self.managers[:teams]
        self.two_teams = self.managers[:max(0, teams - managers)]
        self.followers = self.managers[teams:]
        self.by_address = {m.address: m for m in self.managers}
        self.mails_in = 0
        self.replies = 0
        self.spooled_raw = 0

    def send(self, manager: DemoManager, lines: list[str]) -> None:
        raw = manager.mail(BOT, lines, self.clock.now)
        self.spooled_raw += len(raw)
        deliver(self.maildir / INBOX, raw)
        self.mails_in += 1

    def flush(self) -> None:
        """Read the inbox, send what is queued, read the replies (passwords)."""
        self.app.poll_once()
        self.app.drain_outbox()
        for sent in read_sent(self.maildir):
            msg = email.message_from_bytes(sent.raw, policy=policy.default)
            if msg.get("Auto-Submitted", "") == "auto-replied":
                self.replies += 1
                manager = self.by_address.get(sent.rcpt)
                body = msg.get_body(("plain",))
                if manager is not None and body is not None:
                    manager.learn(body.get_content())
        for folder in (SENT, PROCESSED, INBOX):  # the mail server's part: not state
            for sub in ("cur", "new"):
                for path in (self.maildir / folder / sub).glob("*"):
                    path.unlink()

    def play_round(self, number: int) -> None:
        deadline = self.app.open_round_deadline()
        assert deadline is not None
        self.clock.now = deadline - timedelta(days=5)
        for i, manager in enumerate(self.players):
            if number == 1:
                team = manager.new_team()
                manager.teams = [team]
                lines = manager.moves(True, team)
            else:
                lines = manager.moves(False, None)
            self.send(manager, lines)
            if i % 50 == 49:
                self.flush()
        self.flush()
        if number == 1:  # the second teams, with the password of the first reply
            self.clock.now += timedelta(hours=1)
            for manager in self.two_teams:
                team = manager.new_team()
                manager.teams.append(team)
                self.send(manager, manager.moves(False, team))
        for manager in self.followers:
            self.send(manager, ["Status"])
        self.flush()
        self.clock.now = deadline - timedelta(hours=24)
        self.app.send_reminders(self.clock.now, 24)
        self.flush()
        self.clock.now = deadline + timedelta(minutes=1)
        if self.app.evaluate_due() != number:
            raise RuntimeError(f"round {number} was not evaluated at its deadline")
        self.flush()

    def sizes(self) -> dict[str, int]:
        """Bytes of each part of the state (``PARTS``)."""
        out = dict.fromkeys(PARTS, 0)
        with self.app.db.read() as conn:
            owner = {name: table for name, table in conn.execute(
                "SELECT name, tbl_name FROM sqlite_schema WHERE type IN ('table', 'index')")}
            for name, pages in conn.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name"):
                out[DB_PARTS.get(owner.get(name, name), "other")] += int(pages)
            free = conn.execute("PRAGMA freelist_count").fetchone()[0]
            page = conn.execute("PRAGMA page_size").fetchone()[0]
        files = database_files(self.state / DATABASE_FILE)
        out["free"] = int(free) * int(page) + size(f for f in files if f.name.endswith("-wal"))
        out["spool"] = tree(self.state / "spool")
        archive = self.state / "archive"
        if archive.exists():
            for path in archive.rglob("*"):
                if path.is_file():
                    part = "round" if path.name.startswith("round-") else "site"
                    out[part] += path.stat().st_size
        return out

    def db_file(self) -> int:
        return size(database_files(self.state / DATABASE_FILE))

    def bodies_kept(self) -> tuple[int, int]:
        with self.app.db.read() as conn:
            row = conn.execute("SELECT COUNT(*), COALESCE(SUM(LENGTH(raw)), 0) FROM outbox"
                               " WHERE state = 'sent' AND LENGTH(raw) > 0").fetchone()
        return int(row[0]), int(row[1])


def row(label: str, values: dict[str, float], seconds: str = "") -> str:
    total = sum(values.values())
    cells = " ".join(f"{values[p] / KB:8.1f}" for p in PARTS)
    return f"{label:>6} {cells} {total / KB:8.1f} {seconds:>5}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--managers", type=int, default=40)
    parser.add_argument("--teams", type=int, default=64,
                        help="teams of the managers (at most two each)")
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--simulations", type=int, default=2000,
                        help="Monte Carlo runs a round (0: none, as issue 11's bench)")
    parser.add_argument("--budget-mb", type=float, default=0.5,
                        help="allowed growth of the whole state a round")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--keep", type=Path, help="play in DIR and keep it (default: a temp dir)")
    args = parser.parse_args(argv)
    if args.teams > 2 * args.managers:
        parser.error("--teams must not exceed twice --managers (two teams a manager)")

    set_private_umask()  # as every `turnited` command does
    tmp = None
    if args.keep:
        directory = args.keep
        directory.mkdir(parents=True, exist_ok=True)
    else:
        tmp = tempfile.TemporaryDirectory(prefix="turnited-growth-")
        directory = Path(tmp.name)
    started = time.perf_counter()
    run = Growth(directory, args.managers, args.teams, args.seed, args.simulations)
    before = run.sizes()
    history: list[dict[str, int]] = []
    print(f"bench_growth: {args.managers} managers, {args.teams} teams, {args.rounds} rounds, "
          f"{args.simulations} simulations, in {directory}")
    print("KB added by each round (database parts by dbstat pages; free: free pages + WAL)")
    print(f"{'round':>6} " + " ".join(f"{p:>8}" for p in PARTS) + f" {'state':>8} {'s':>5}")
    previous = before
    for number in range(1, args.rounds + 1):
        t0 = time.perf_counter()
        run.play_round(number)
        now = run.sizes()
        history.append(now)
        print(row(str(number), {p: now[p] - previous[p] for p in PARTS},
                  f"{time.perf_counter() - t0:5.1f}"), flush=True)
        previous = now
    last = history[-1]
    rounds = len(history)
    # The growth of a round in steady state: the mean over the second half.
    half = history[rounds // 2 - 1] if rounds >= 2 else before
    steady = rounds - (rounds // 2) if rounds >= 2 else rounds
    per_round = {p: (last[p] - half[p]) / steady for p in PARTS}
    totals = [sum(h.values()) for h in [before, *history]]
    worst = max(b - a for a, b in itertools.pairwise(totals))
    kept, kept_bytes = run.bodies_kept()
    seconds = time.perf_counter() - started
    db_file = run.db_file()
    run.app.close()
    print(row("mean", per_round))
    print()
    print(f"mails in {run.mails_in}, replies out {run.replies}, {seconds:.0f} s "
          f"({seconds / rounds:.1f} s a round; the machine's load shows here, not in the sizes)")
    state = sum(last.values())
    print(f"state after {rounds} rounds: {state / MB:.1f} MB (database file {db_file / MB:.1f} MB,"
          f" of it free {last['free'] / MB:.1f} MB; spool {last['spool'] / MB:.2f} MB for"
          f" {run.spooled_raw / MB:.1f} MB of mail; archive "
          f"{(last['round'] + last['site']) / MB:.1f} MB)")
    growth = sum(per_round.values())
    print(f"per round (mean of the second half): {growth / KB:.1f} KB "
          f"(worst round {worst / KB:.1f} KB); budget {args.budget_mb:.2f} MB; "
          f"once the spool's retention applies: {(growth - per_round['spool']) / KB:.1f} KB; "
          f"500 rounds ~ {growth * 500 / MB:.0f} MB")
    print(f"delivered mail bodies kept in the outbox: {kept} ({kept_bytes} bytes)")
    gz_check = next((run.state / "spool").rglob("*.eml.gz"), None)
    if gz_check is not None:
        gzip.decompress(gz_check.read_bytes())  # the spool is readable gzip
    ok = growth <= args.budget_mb * MB and kept == 0
    print("OK" if ok else "OVER BUDGET")
    if tmp is not None:
        tmp.cleanup()
    elif not args.keep:
        shutil.rmtree(directory)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
