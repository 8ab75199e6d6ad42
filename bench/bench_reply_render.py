"""Benchmark: rendering the reply to one mail (``render_reply``).

The replies of issue 20 explain more: each correction by its cause, the
unused WP with a lineup that spends them (``bot.rules.spending``), the seed
commitment, the status's rank and last result, the game master's address in
the footer. This renders four typical replies (a lineup for a team and its
corrected second team; the issue's 3:1 case; a status with two teams; the
help) in German and English, many times each, and prints the CPU time per
reply (``time.process_time``, so the load of other processes on the machine
disturbs it less than wall time would).

Run it on two checkouts side by side to compare:

    .venv/bin/python -m bench.bench_reply_render [--repeat 400]
    PYTHONPATH=/path/to/other/checkout .venv/bin/python -m bench.bench_reply_render
"""

from __future__ import annotations

import argparse
import statistics
import time
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from bot.league.outcome import ManagerInfo, MoveOutcome, Notice, TeamState
from bot.render.environment import Environments
from bot.render.reply import render_reply
from bot.rules.corrections import correct
from bot.rules.lineup import Lineup

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def team(name: str, lineup: str, wp: str, changed: bool = True) -> TeamState:
    sent = Lineup.parse(lineup)
    budget = int(Decimal(wp))
    return TeamState(name, name[:8], Decimal(wp), budget, Decimal("251.20"), sent,
                     correct(sent, budget), None, changed, False, False, False)


def outcomes(language: str) -> dict[str, MoveOutcome]:
    manager = ManagerInfo("hans@player.example", "Hans Meier", False)
    deadline = NOW + timedelta(days=3)
    kickers = team("Kickers Wanne-Eickel", "10-10-5-30-31", "91.40")
    devils = team("Rote Teufel", "10-10-15-15-19", "90.30", changed=False)
    corrected = Notice("lineup_corrected", {
        "team": kickers.name, "lineup": "10-10-5-30-31", "played": "10-10-5-15-15",
        "budget": 91, "corrections": []})
    stored = Notice("lineup_replaced", {"team": kickers.name, "lineup": "10-10-5-30-31",
                                        "previous": "10-10-15-15-20", "round": 12})
    last = {"round": 11, "place": None, "reached": "semi_final", "last_stage": 2, "won": 5,
            "drawn": 1, "lost": 3, "gain": Decimal("1.10")}
    status = Notice("status", {
        "season": 3, "round": 12, "round_in_season": 2, "deadline": deadline,
        "commitment": "ab" * 32,
        "teams": {kickers.name: {"rank": 3, "listed": 17, "last": last},
                  devils.name: {"rank": 9, "listed": 17, "last": last}}})

    def outcome(notices: list[Notice], teams: list[TeamState]) -> MoveOutcome:
        return MoveOutcome(manager, True, 12, False, deadline, notices=notices, teams=teams,
                           language=language)

    return {
        "lineup, two teams": outcome([stored, corrected], [kickers, devils]),
        "the 3:1 case": outcome([stored, corrected], [kickers]),
        "status, two teams": outcome([status], [kickers, devils]),
        "help": outcome([Notice("help", {})], [kickers]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=400)
    args = parser.parse_args()
    try:
        env = Environments(gm_address="gm@turnited.example")
    except TypeError:  # a checkout from before the footer named the game master
        env = Environments()
    print(f"render_reply, CPU time per reply ({args.repeat} renders each, median of 3):")
    for language in ("de", "en"):
        for name, outcome in outcomes(language).items():
            render_reply(outcome, subject="Aufstellung", now=NOW, timezone="Europe/Berlin",
                         game_name="Turnited", game_address="bot@turnited.example", env=env)
            runs = []
            for _ in range(3):
                start = time.process_time()
                for _ in range(args.repeat):
                    render_reply(outcome, subject="Aufstellung", now=NOW,
                                 timezone="Europe/Berlin", game_name="Turnited",
                                 game_address="bot@turnited.example", env=env)
                runs.append((time.process_time() - start) / args.repeat)
            print(f"  {language}  {name:<20} {statistics.median(runs) * 1e6:8.0f} µs")


if __name__ == "__main__":
    main()
