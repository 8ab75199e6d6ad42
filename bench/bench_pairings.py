"""How many exact pairings (``odds(x, y)``) per second the match engine computes.

The field: 64 teams, 16 random player lineups (corrected against a random
budget of 90..105 WP) and 48 drawn GM lineups, seeded. Every ordered pair of
different teams is one pairing (64 x 63 = 4032). "cold" clears the engine's
caches before each pass, "warm" keeps the binomial distributions cached.
For scale, a plain Fraction implementation (the double sum over all scores)
runs on a sample of the same pairings, checked equal.

Then the expectation table (every team against every other, exact): its
CPU time for fields of 64 and 1024 teams, the ratio to a plain per-team
``Fraction`` sum over ``odds`` (the reference, timed on 64 teams and checked
equal), and its growth against the 256x more pairs of the 16x field.

Run: ``python -m bench.bench_pairings [--seed N] [--repeat K]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from fractions import Fraction
from math import comb

from bot.rules.analytics import expectation_table
from bot.rules.corrections import correct
from bot.rules.gm_teams import draw_gm_lineup
from bot.rules.lineup import Lineup
from bot.rules.match import chances, clear_caches, odds

PLAYERS, GM_TEAMS = 16, 48


def field(seed: int) -> list[Lineup]:
    rng = random.Random(seed)
    players = []
    for _ in range(PLAYERS):
        wish = Lineup(rng.randint(0, 10), rng.randint(0, 10),
                      rng.randint(5, 45), rng.randint(5, 45), rng.randint(5, 45))
        players.append(correct(wish, rng.randint(90, 105)).lineup)
    return players + [draw_gm_lineup(rng) for _ in range(GM_TEAMS)]


def pairs(teams: list[Lineup]) -> list[tuple[Lineup, Lineup]]:
    return [(x, y) for i, x in enumerate(teams) for j, y in enumerate(teams) if i != j]


def plain_odds(x: Lineup, y: Lineup) -> tuple[Fraction, Fraction, Fraction]:
    """Reference: every score's probability as a Fraction, summed by outcome."""
    def goals(n: int, defender: Lineup) -> list[Fraction]:
        p = Fraction(15 - defender.a, 15) * Fraction(14 - defender.t, 14)
        return [comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]

    gx, gy = goals(chances(x, y), y), goals(chances(y, x), x)
    win = draw = Fraction(0)
    for i, a in enumerate(gx):
        for j, b in enumerate(gy):
            if i > j:
                win += a * b
            elif i == j:
                draw += a * b
    return win, draw, 1 - win - draw


def plain_table(lineups: dict[str, Lineup]) -> dict[str, tuple[Fraction, ...]]:
    """Reference: each team's sums over every opponent, twice, as Fractions."""
    out = {}
    for team, x in lineups.items():
        won = drawn = lost = gf = ga = Fraction(0)
        for other, y in lineups.items():
            if other != team:
                o = odds(x, y)
                won, drawn, lost = won + 2 * o.win, drawn + 2 * o.draw, lost + 2 * o.loss
                gf, ga = gf + 2 * o.expected_goals[0], ga + 2 * o.expected_goals[1]
        out[team] = (won, drawn, lost, gf, ga)
    return out


def table_field(teams: int, seed: int) -> dict[str, Lineup]:
    """``teams`` teams: a quarter players, the rest GM lineups (some shared)."""
    rng = random.Random(seed)
    out = {}
    for i in range(teams):
        if i < teams // 4:
            wish = Lineup(rng.randint(0, 10), rng.randint(0, 10),
                          rng.randint(5, 45), rng.randint(5, 45), rng.randint(5, 45))
            out[f"Player {i:04d}"] = correct(wish, rng.randint(90, 105)).lineup
        else:
            out[f"GM {i:04d}"] = draw_gm_lineup(rng)
    return out


def cpu(fn):
    start = time.process_time()
    out = fn()
    return out, time.process_time() - start


def rate(work: list[tuple[Lineup, Lineup]], cold: bool, repeat: int) -> float:
    """Median pairings per second over ``repeat`` passes."""
    rates = []
    for _ in range(repeat):
        if cold:
            clear_caches()
        start = time.perf_counter()
        for x, y in work:
            odds(x, y)
        rates.append(len(work) / (time.perf_counter() - start))
    return statistics.median(rates)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sample", type=int, default=200,
                        help="pairings for the plain reference (default: %(default)s)")
    args = parser.parse_args()

    work = pairs(field(args.seed))
    total_chances = [sum(odds(x, y).chances) for x, y in work]
    cold = rate(work, cold=True, repeat=args.repeat)
    warm = rate(work, cold=False, repeat=args.repeat)

    sample = random.Random(args.seed).sample(work, min(args.sample, len(work)))
    start = time.perf_counter()
    reference = [plain_odds(x, y) for x, y in sample]
    plain = len(sample) / (time.perf_counter() - start)
    for (x, y), expected in zip(sample, reference, strict=True):
        result = odds(x, y)
        assert (result.win, result.draw, result.loss) == expected, (x, y)

    print(f"field: {PLAYERS} player + {GM_TEAMS} GM lineups, {len(work)} ordered pairings, "
          f"chances per game {min(total_chances)}..{max(total_chances)} "
          f"(mean {statistics.mean(total_chances):.1f})")
    print(f"cold cache : {cold:12,.0f} pairings/s  ({len(work) / cold * 1000:.1f} ms per field)")
    print(f"warm cache : {warm:12,.0f} pairings/s  ({len(work) / warm * 1000:.1f} ms per field)")
    print(f"plain Fraction double sum: {plain:,.0f} pairings/s on {len(sample)} pairings "
          f"(equal results); engine cold is {cold / plain:.0f}x, warm {warm / plain:.0f}x faster")

    small, large = table_field(64, args.seed), table_field(1024, args.seed)
    clear_caches()
    table64, t64 = cpu(lambda: expectation_table(small))
    reference, tref = cpu(lambda: plain_table(small))
    assert all((r.won, r.drawn, r.lost, r.goals_for, r.goals_against) == reference[r.team]
               for r in table64)
    clear_caches()
    _, t1024 = cpu(lambda: expectation_table(large))
    pairs64, pairs1024 = len(set(small.values())) ** 2, len(set(large.values())) ** 2
    print(f"expectation table, 64 teams: {t64 * 1000:.0f} ms CPU; plain Fraction sums "
          f"{tref * 1000:.0f} ms (equal): {tref / t64:.0f}x faster")
    print(f"expectation table, 1024 teams: {t1024:.2f} s CPU; growth x{t1024 / t64:.0f} for "
          f"x{pairs1024 / pairs64:.0f} the pairs of distinct lineups")


if __name__ == "__main__":
    main()
