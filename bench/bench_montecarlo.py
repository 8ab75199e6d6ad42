"""Benchmark of the semi-final Monte Carlo on a 64-team field.

16 player teams (random legal 90-WP lineups) and 48 GM teams, one first
draw; prints simulations per second of the vectorised engine at 10^5 and
10^6 simulations, its peak memory, and the speed-up over the literal
dice-by-dice engine (timed on fewer simulations and extrapolated).

Run: ``.venv/bin/python bench/bench_montecarlo.py [--literal N] [--skip-million]``
"""

from __future__ import annotations

import argparse
import random
import resource
import time
import tracemalloc
from fractions import Fraction

from bot.rules.corrections import correct
from bot.rules.lineup import Lineup
from bot.rules.montecarlo import (
    DEFAULT_CHUNK,
    literal_semi_final_probability,
    semi_final_probability,
)
from bot.rules.tournament import draw_gm_teams, draw_groups


def field(seed: int = 1) -> tuple[dict[str, Lineup], list[list[str]]]:
    rng = random.Random(seed)
    lineups: dict[str, Lineup] = {}
    for i in range(16):
        t, a = rng.randint(0, 10), rng.randint(0, 10)
        rest = 90 - 2 * t - 2 * a
        v = rng.randint(rest // 5, rest // 2)
        m = rng.randint(rest // 5, max(rest // 5, rest - v - rest // 5))
        s = max(rest - v - m, 1)
        lineups[f"Player {i:02d}"] = correct(Lineup(t, a, v, m, s), 90).lineup
    for team in draw_gm_teams(48, rng, Fraction(250)):
        lineups[team.name] = team.lineup
    return lineups, draw_groups(list(lineups), rng)


def timed(fn):
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--literal", type=int, default=200,
                        help="simulations of the literal engine to time (default: 200)")
    parser.add_argument("--skip-million", action="store_true", help="skip the 10^6 run")
    args = parser.parse_args()

    lineups, groups = field()
    distinct = len(set(lineups.values()))
    print(f"field: {len(lineups)} teams (16 players + 48 GM), {len(groups)} groups, "
          f"{distinct} distinct lineups; chunk {DEFAULT_CHUNK}")

    _, setup_wall, _ = timed(lambda: semi_final_probability(lineups, groups, 0, seed=1))
    print(f"setup (exact distributions + alias tables): {setup_wall:.3f} s")

    estimate, wall, cpu = timed(lambda: semi_final_probability(lineups, groups, 100_000, seed=1))
    fast_rate = 100_000 / wall
    print(f"vectorised 10^5: {wall:.2f} s wall, {cpu:.2f} s CPU, {fast_rate:,.0f} sims/s")
    # Memory is flat per chunk, so a shorter traced run shows the same peak.
    tracemalloc.start()
    semi_final_probability(lineups, groups, 3 * DEFAULT_CHUNK, seed=3)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"peak traced memory (numpy arrays included): {peak / 2**20:.1f} MiB")

    steady = None
    if not args.skip_million:
        _, wall6, cpu6 = timed(lambda: semi_final_probability(lineups, groups, 1_000_000, seed=2))
        steady = (1_000_000 / wall6, 1_000_000 / cpu6)
        print(f"vectorised 10^6: {wall6:.2f} s wall, {cpu6:.2f} s CPU, "
              f"{steady[0]:,.0f} sims/s")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"max resident set size of this process so far: {rss:.0f} MiB")

    k = args.literal
    slow, lwall, lcpu = timed(
        lambda: literal_semi_final_probability(lineups, groups, k, random.Random(1)))
    slow_rate, slow_cpu_rate = k / lwall, k / lcpu
    print(f"literal (dice by dice) {k}: {lwall:.2f} s wall, {lcpu:.2f} s CPU, "
          f"{slow_rate:,.1f} sims/s -> 10^5 would take {100_000 / slow_rate / 60:.1f} min")
    print(f"speed-up at 10^5 (setup included): {fast_rate / slow_rate:,.0f}x wall, "
          f"{(100_000 / cpu) / slow_cpu_rate:,.0f}x CPU")
    if steady:
        print(f"speed-up at 10^6: {steady[0] / slow_rate:,.0f}x wall, "
              f"{steady[1] / slow_cpu_rate:,.0f}x CPU")
    print("(CPU ratios are the fairer figure on a machine shared with other work)")

    top = sorted(estimate.probability.items(), key=lambda kv: -kv[1])[:4]
    print("most likely semi-finalists (10^5): " + ", ".join(
        f"{n} {p:.3f}±{estimate.stderr[n]:.3f} (literal {slow.probability[n]:.2f})"
        for n, p in top))


if __name__ == "__main__":
    main()
