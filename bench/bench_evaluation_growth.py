"""How a whole evaluation grows with the field: ``turnited simulate``.

For each field size (player teams; the rules fill up with GM teams and
double the groups for large fields) a YAML list of random legal 90-WP
lineups is written and ``turnited simulate TEAMS.yaml --seed 1`` runs in
this process (the real command: loading, corrections, the tournament,
exact knock-out odds, the expectation table, the Monte Carlo, rendering),
output discarded. Before that, each phase is timed on its own. Prints CPU
seconds per size, the growth over the smallest field, and the goal: a 16x
larger field (64 -> 1024 player teams) at most 40x the cost.

Run: ``.venv/bin/python -m bench.bench_evaluation_growth [--sizes 64,256,1024] [--simulations K]``
"""

from __future__ import annotations

import argparse
import contextlib
import io
import random
import tempfile
import time
from pathlib import Path

import yaml

from bot.cli import main as turnited
from bot.rules.analytics import expectation_table, knockout_odds
from bot.rules.corrections import correct
from bot.rules.lineup import Lineup
from bot.rules.montecarlo import semi_final_probability
from bot.rules.report import DEFAULT_SIMULATIONS
from bot.rules.tournament import Entrant, play_tournament

GROWTH_GOAL = 40


def lineups(players: int, seed: int) -> list[Lineup]:
    rng = random.Random(seed)
    out = []
    for _ in range(players):
        wish = Lineup(rng.randint(0, 10), rng.randint(0, 10), rng.randint(5, 45),
                      rng.randint(5, 45), rng.randint(5, 45))
        out.append(correct(wish, 90).lineup)
    return out


def cpu(fn):
    start = time.process_time()
    out = fn()
    return out, time.process_time() - start


def phases(players: int, simulations: int) -> dict[str, float]:
    entrants = [Entrant(f"Team {i:04d}", lu) for i, lu in enumerate(lineups(players, players))]
    result, tournament = cpu(lambda: play_tournament(entrants, random.Random(1)))
    _, ko = cpu(lambda: knockout_odds(result))
    _, table = cpu(lambda: expectation_table(result.lineups, result.points))
    _, mc = cpu(lambda: semi_final_probability(result.lineups, result.first_groups,
                                               simulations, 1, points=result.points))
    return {"tournament": tournament, "knock-out odds": ko, "expectation table": table,
            "Monte Carlo": mc}


def simulate(players: int, simulations: int, folder: Path) -> float:
    teams = [{"name": f"Team {i:04d}", "lineup": str(lu)}
             for i, lu in enumerate(lineups(players, players))]
    path = folder / f"teams-{players}.yaml"
    path.write_text(yaml.safe_dump(teams), encoding="utf-8")
    argv = ["simulate", str(path), "--seed", "1", "--simulations", str(simulations)]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code, spent = cpu(lambda: turnited(argv))
    if code != 0:
        raise SystemExit(f"turnited simulate failed for {players} teams (exit {code})")
    return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="64,256,1024",
                        help="player teams per field, comma-separated (default: %(default)s)")
    parser.add_argument("--simulations", type=int, default=DEFAULT_SIMULATIONS,
                        help="Monte Carlo runs (default: a real round's %(default)s)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]

    # Warm-up: the compiled Monte Carlo loops load once per process.
    semi_final_probability(*_small_field(), 10, 1)
    print(f"simulations: {args.simulations:,}; CPU seconds")
    totals = {}
    with tempfile.TemporaryDirectory() as folder:
        for n in sizes:
            parts = phases(n, args.simulations)
            totals[n] = simulate(n, args.simulations, Path(folder))
            detail = ", ".join(f"{k} {v:.2f}" for k, v in parts.items())
            growth = totals[n] / totals[sizes[0]]
            print(f"{n:5d} player teams: turnited simulate {totals[n]:7.2f} s "
                  f"(x{growth:.1f} over {sizes[0]}); phases: {detail}")
    if 64 in totals and 1024 in totals:
        ratio = totals[1024] / totals[64]
        print(f"16x the field (64 -> 1024): x{ratio:.1f} the cost "
              f"(goal <= {GROWTH_GOAL}x: {'met' if ratio <= GROWTH_GOAL else 'NOT met'})")


def _small_field():
    result = play_tournament([Entrant("A", Lineup(5, 5, 20, 25, 30))], random.Random(1))
    return result.lineups, result.first_groups


if __name__ == "__main__":
    main()
