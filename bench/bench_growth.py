"""Benchmark: what a round adds to ``state/`` over a long league (issue 11).

A league of 200 managers of whom 64 run a team (the other 136 write too: a
status request each round, the kind of mail a league draws from people who
follow it), played for 100 rounds on a simulated clock with the real ``App``:
every player mail goes through the real pipeline (delivered to the embedded
Maildir, ``poll_once``: spool, ledger, reading, grammar, league, reply), the
deadline through ``evaluate_due`` (evaluation, newsletters, archive, digest),
reminders, and every outgoing mail through the real outbox drain. The
Maildir transport stands for the mail server: it is emptied after each round
and not counted.

After every round it measures the database (with its WAL), the spool (the
incoming mail, kept gzip-compressed) and the archive separately, and prints
the growth per round: first rounds, last rounds, mean. It checks the budget
of issue 11: database + archive grow by at most 1 MB a round (the spool is
beside the budget; its compression ratio is printed), and that the outbox
keeps no delivered body. Exit status 1 when the budget is exceeded.

    python bench/bench_growth.py [--managers 200] [--teams 64] [--rounds 100]
                                 [--budget-mb 1.0] [--keep DIR]
"""

from __future__ import annotations

import argparse
import dataclasses
import email
import gzip
import random
import shutil
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from email import policy
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

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
MB = 2**20


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def config(directory: Path) -> Config:
    data = {
        "game": {"name": "Turnited Growth", "language": "de"},
        "analysis": {"simulations": 0},
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


@dataclasses.dataclass
class Sizes:
    db: int
    spool: int
    spool_raw: int
    archive: int


class Growth:
    def __init__(self, directory: Path, managers: int, teams: int, seed: int) -> None:
        self.rng = random.Random(seed)
        self.clock = Clock(START)
        cfg = config(directory)
        league = dataclasses.replace(league_settings(cfg), password_cost=2**10)
        # durable=False (synchronous=NORMAL): the same file, fewer fsyncs
        self.app = App(cfg, source=MaildirInbox(cfg.maildir_root), sender=MaildirSender(
            cfg.maildir_root), clock=self.clock, league_settings=league,
            db=open_database(cfg.state_dir, durable=False))
        self.app.ensure_started()
        self.state = cfg.state_dir
        self.maildir = cfg.maildir_root
        self.managers = make_managers(managers, self.rng)
        self.players = self.managers[:teams]
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

    def sizes(self) -> Sizes:
        db = size(database_files(self.state / DATABASE_FILE))
        return Sizes(db, tree(self.state / "spool"), self.spooled_raw, tree(self.state / "archive"))

    def bodies_kept(self) -> tuple[int, int]:
        with self.app.db.read() as conn:
            row = conn.execute("SELECT COUNT(*), COALESCE(SUM(LENGTH(raw)), 0) FROM outbox"
                               " WHERE state = 'sent' AND LENGTH(raw) > 0").fetchone()
        return int(row[0]), int(row[1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--managers", type=int, default=200)
    parser.add_argument("--teams", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--budget-mb", type=float, default=1.0,
                        help="allowed growth of database + archive per round")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--keep", type=Path, help="play in DIR and keep it (default: a temp dir)")
    args = parser.parse_args(argv)
    if args.teams > args.managers:
        parser.error("--teams must not exceed --managers")

    set_private_umask()  # as every `turnited` command does
    tmp = None
    if args.keep:
        directory = args.keep
        directory.mkdir(parents=True, exist_ok=True)
    else:
        tmp = tempfile.TemporaryDirectory(prefix="turnited-growth-")
        directory = Path(tmp.name)
    started = time.perf_counter()
    run = Growth(directory, args.managers, args.teams, args.seed)
    before = run.sizes()
    history: list[Sizes] = []
    print(f"bench_growth: {args.managers} managers, {args.teams} teams, {args.rounds} rounds "
          f"in {directory}")
    print(f"{'round':>5} {'db KB':>9} {'+db KB':>8} {'spool KB':>9} {'+spool':>7} "
          f"{'archive KB':>10} {'+arch':>7} {'s':>5}")
    previous = before
    for number in range(1, args.rounds + 1):
        t0 = time.perf_counter()
        run.play_round(number)
        now = run.sizes()
        history.append(now)
        if number <= 3 or number % 10 == 0 or number == args.rounds:
            print(f"{number:5d} {now.db / 1024:9.0f} {(now.db - previous.db) / 1024:8.1f} "
                  f"{now.spool / 1024:9.0f} {(now.spool - previous.spool) / 1024:7.1f} "
                  f"{now.archive / 1024:10.0f} {(now.archive - previous.archive) / 1024:7.1f} "
                  f"{time.perf_counter() - t0:5.1f}", flush=True)
        previous = now
    last = history[-1]
    rounds = len(history)
    # The growth of a round in steady state: the mean over the second half
    # (the first rounds fill pages the schema allocates once).
    half = history[rounds // 2 - 1] if rounds >= 2 else before
    steady_rounds = rounds - (rounds // 2) if rounds >= 2 else rounds
    per_round = {
        "db": (last.db - half.db) / steady_rounds,
        "spool": (last.spool - half.spool) / steady_rounds,
        "archive": (last.archive - half.archive) / steady_rounds,
    }
    worst = max(((b.db + b.archive) - (a.db + a.archive))
                for a, b in zip([before, *history], history, strict=False))
    kept, kept_bytes = run.bodies_kept()
    seconds = time.perf_counter() - started
    run.app.close()
    print()
    print(f"mails in {run.mails_in}, replies out {run.replies}, {seconds:.0f} s "
          f"({seconds / rounds:.1f} s a round)")
    ratio = last.spool_raw / max(last.spool, 1)
    print(f"state after {rounds} rounds: db {last.db / MB:.1f} MB, spool {last.spool / MB:.1f} MB"
          f" ({last.spool_raw / MB:.1f} MB of mail, compressed {ratio:.1f}x),"
          f" archive {last.archive / MB:.1f} MB")
    print("per round (mean of the second half): "
          + ", ".join(f"{k} {v / 1024:.1f} KB" for k, v in per_round.items()))
    budget = per_round["db"] + per_round["archive"]
    print(f"db + archive: {budget / 1024:.1f} KB a round (worst round {worst / 1024:.1f} KB); "
          f"budget {args.budget_mb:.2f} MB; 500 rounds ~ {(budget * 500) / MB:.0f} MB "
          f"+ spool {(per_round['spool'] * 500) / MB:.0f} MB")
    print(f"delivered mail bodies kept in the outbox: {kept} ({kept_bytes} bytes)")
    gz_check = next((run.state / "spool").rglob("*.eml.gz"), None)
    if gz_check is not None:
        gzip.decompress(gz_check.read_bytes())  # the spool is readable gzip
    ok = budget <= args.budget_mb * MB and kept == 0
    print("OK" if ok else "OVER BUDGET")
    if tmp is not None:
        tmp.cleanup()
    elif not args.keep:
        shutil.rmtree(directory)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
