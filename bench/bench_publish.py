"""Benchmark: publishing an evaluated round with 10, 50 and 200 rounds archived.

A league of ``--managers`` managers, one team each, plays ``--rounds``
rounds on a real SQLite file (the league's own evaluation, no Monte Carlo:
only publishing is measured). At 10, 50 and 200 evaluated rounds it
publishes the last three rounds, each for the first time, the way
``App.evaluate_due`` does after the evaluation: every newsletter copy
queued (a personal block each), the round's archive page, the archive site
rebuilt (index, hall of fame, a page per team), and the game master's
digest; and prints the CPU time per round, median of the three.

Before and after side by side: the same script runs the code of
``--before REV`` (default: the commit before the evaluated round flowed
into publishing) in a child process on a state it builds itself from the
same seed, and prints the ratio. Before, publishing read the round's stored
report back and the archive site parsed the stored report of every
evaluated round; after, publishing takes the news the evaluation handed
over (``after``), and a stored round published again (``turnited``'s
re-publishing, the catch-up after a crash) parses its one report
(``stored``: reading the news back + ``after``). CPU time of this process
(the machine's other load inflates wall time, less so CPU time).

    python -m bench.bench_publish [--managers 64] [--rounds 200] [--before REV]
                                  [--no-before]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench.revision import export, run_module
from bot.app import App
from bot.config import Config
from bot.mail.maildir_transport import MaildirInbox, MaildirSender
from bot.rules.lineup import Lineup
from bot.rules.requests import ParsedMoves, RegisterTeam, SetLineup
from bot.storage.db import open_database

#: The commit before this change: ``App.evaluate_due`` then published by round number.
BEFORE = "68a22f8"
CHECKPOINTS = (10, 50, 200)
START = datetime(2026, 12, 7, 8, 0, tzinfo=UTC)


def config(directory: Path, managers: int) -> Config:
    return Config.from_mapping({
        "game": {"name": "Turnited Bench", "language": "de"},
        "analysis": {"simulations": 0},
        "state_dir": "state",
        "schedule": {"timezone": "Europe/Berlin", "deadlines": {"cron": "0 20 * * SUN"}},
        "gm": {"address": "gm@bench.example", "name": "Spielleitung"},
        "mail": {"transport": "maildir", "address": "turnited@bench.example"},
        "newsletter": {"extra_recipients": [f"fan{i}@bench.example"
                                            for i in range(max(1, managers // 8))]},
    }, directory)


def _league_settings(cfg: Config) -> Any:
    """The league's settings of ``cfg``, in this tree and in the commit before
    (where the configuration mapped them itself)."""
    try:
        from bot.wiring import league_settings
    except ImportError:  # the commit before: no composition root yet
        return cfg.league_settings()  # type: ignore[attr-defined]
    return league_settings(cfg)


class League:
    """A league whose managers send a lineup every round (no passwords: the
    bench measures publishing, not the mail pipeline)."""

    def __init__(self, directory: Path, managers: int, seed: int) -> None:
        self.now = START
        cfg = config(directory, managers)
        settings = dataclasses.replace(_league_settings(cfg), passwords=False,
                                       password_cost=2**10)
        self.app = App(cfg, source=MaildirInbox(cfg.maildir_root),
                       sender=MaildirSender(cfg.maildir_root), clock=lambda: self.now,
                       league_settings=settings,
                       db=open_database(cfg.state_dir, durable=False))
        self.app.ensure_started()
        self.rng = random.Random(seed)
        self.managers = managers

    def play(self, number: int) -> None:
        """Round ``number``: every manager's lineup, then the league's evaluation only."""
        deadline = self.app.open_round_deadline()
        assert deadline is not None
        self.now = deadline - timedelta(days=1)
        for i in range(self.managers):
            r = self.rng.randint
            lineup = Lineup(r(0, 10), r(0, 10), r(10, 30), r(10, 30), r(10, 30))
            requests: list = [SetLineup(f"Aufstellung: {lineup}", None, lineup)]
            if number == 1:
                requests.insert(0, RegisterTeam(f"Neues Team: Bench {i:03d}",
                                                f"Bench {i:03d}", None))
            with self.app.db.transaction() as conn:
                submit(self.app.league, conn, sender=f"m{i:03d}@bench.example",
                       sender_name=f"Manager {i}", moves=ParsedMoves(tuple(requests), (), ()),
                       now=self.now)
        self.now = deadline + timedelta(minutes=1)
        result = self.app.league.evaluate_due(self.now, next_deadline=self.app.plan.next_deadline(
            self.now))
        assert result is not None and result.round == number
        # the archive holds a page per evaluated round (the index reads their titles)
        archive = self.app.config.state_dir / "archive"
        archive.mkdir(parents=True, exist_ok=True)
        (archive / f"round-{number:03d}.html").write_text(
            f"<html><head><title>Runde {number}</title></head></html>", encoding="utf-8")


def submit(league: Any, conn: Any, **mail: Any) -> object:
    """One mail's requests carried out by the command runner (``carry_out``, as
    ``tests.support.league.submit`` calls it); the code of ``--before`` has no
    runner yet and its league takes them itself (``League.submit``)."""
    if hasattr(league, "submit"):
        return league.submit(conn, **mail)
    from tests.support.league import submit as carried_out  # the runner of this code

    return carried_out(league, conn, **mail)


def cpu(action: Callable[[], object]) -> tuple[float, object]:
    start = time.process_time()
    value = action()
    return time.process_time() - start, value


def measure(managers: int, rounds: int, seed: int) -> dict[str, dict[str, float]]:
    """CPU seconds per round at each checkpoint: ``publish`` as this tree's
    ``App.evaluate_due`` does it; with this change also ``read`` (the news of a
    stored round read back)."""
    try:
        from bot.service.publish import publish, publish_stored  # noqa: F401
        typed = True
    except ImportError:
        typed = False
    out: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="turnited-bench-publish-") as tmp:
        league = League(Path(tmp), managers, seed)
        app = league.app
        for number in range(1, rounds + 1):
            league.play(number)
            if number not in CHECKPOINTS:
                continue
            figures: dict[str, list[float]] = {"publish": [], "read": []}
            for published in range(number - 2, number + 1):
                if typed:
                    from bot.service import publish as pub

                    read, news = cpu(lambda n=published: app.league.stored_news(n))
                    seconds, _ = cpu(lambda n=news, r=published: (
                        pub.publish(app.services, n), app.send_digest(r)))
                    figures["read"].append(read)
                else:
                    seconds, _ = cpu(lambda r=published: (app.publish(r), app.send_digest(r)))
                figures["publish"].append(seconds)
            out[str(number)] = {k: statistics.median(v) for k, v in figures.items() if v}
        app.close()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--managers", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=max(CHECKPOINTS))
    parser.add_argument("--seed", type=int, default=19)
    parser.add_argument("--before", default=BEFORE, help="the revision to compare with")
    parser.add_argument("--no-before", action="store_true", help="measure this tree only")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.json:  # the child process: this tree (or --before's) measures, prints JSON
        print(json.dumps(measure(args.managers, args.rounds, args.seed)))
        return 0

    print(f"bench_publish: {args.managers} managers (one team each), "
          f"{max(1, args.managers // 8)} subscribers, up to {args.rounds} rounds; CPU seconds "
          "per published round (median of 3), the machine's other load included")
    before: dict[str, dict[str, float]] = {}
    if not args.no_before:
        with tempfile.TemporaryDirectory(prefix="turnited-bench-before-") as old:
            child = run_module(__spec__.name, [
                "--json", "--managers", str(args.managers), "--rounds", str(args.rounds),
                "--seed", str(args.seed)], export(args.before, Path(old)))
            before = json.loads(child.stdout.strip().splitlines()[-1])
    after = measure(args.managers, args.rounds, args.seed)
    print(f"{'rounds':>6} {'before s':>9} {'after s':>8} {'ratio':>6} "
          f"{'stored s':>9} {'ratio':>6}   (before: {args.before}; stored: read back + after)")
    for number in sorted(after, key=int):
        now = after[number]
        stored = now["publish"] + now.get("read", 0.0)
        old_s = before.get(number, {}).get("publish")
        if old_s is None:
            print(f"{number:>6} {'-':>9} {now['publish']:8.3f} {'-':>6} {stored:9.3f} {'-':>6}")
            continue
        print(f"{number:>6} {old_s:9.3f} {now['publish']:8.3f} {old_s / now['publish']:5.1f}x "
              f"{stored:9.3f} {old_s / stored:5.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
