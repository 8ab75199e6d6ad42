"""The dice engine play() agrees with the exact distribution (seeded, so deterministic).

For each pairing 20,000 games are rolled with a fixed seed. The win/draw/loss
counts are compared with the exact probabilities by Pearson's chi-square test
(2 degrees of freedom, where P(chi2 > x) = exp(-x/2) exactly), and the count of
every goal total of X and Y with enough expected games by a z-test. The bars
(p-value 1e-4, 4.5 standard errors) are loose enough that a correct engine
passes for almost every seed, and tight enough to catch a wrong die: a d14
sweeper or a d15 keeper, or a swapped T/A, shifts the counts by dozens of
standard errors over 20,000 games.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from fractions import Fraction

import pytest

from bot.rules import Lineup, odds, play
from bot.rules.match import play_chances

GAMES = 20_000
PAIRINGS = [
    ("10-10-28-11-11", "0-10-31-23-16"),  # balanced: about 34 / 32 / 34 %
    ("10-10-11-11-28", "0-0-20-20-50"),  # RULES.md §3: 8 against 34 chances
]


def chi_square_p_value_2df(observed: list[int], expected: list[float]) -> float:
    statistic = sum((o - e) ** 2 / e for o, e in zip(observed, expected, strict=True))
    return math.exp(-statistic / 2)


def z_score(count: int, n: int, p: Fraction) -> float:
    pf = float(p)
    return (count - n * pf) / math.sqrt(n * pf * (1 - pf))


@pytest.mark.parametrize(("x", "y"), PAIRINGS)
def test_dice_agree_with_the_exact_odds(x: str, y: str) -> None:
    lx, ly = Lineup.parse(x), Lineup.parse(y)
    exact = odds(lx, ly)
    rng = random.Random(20260101)
    scores = [play(lx, ly, rng) for _ in range(GAMES)]
    outcome = Counter((gx > gy) - (gx < gy) for gx, gy in scores)
    observed = [outcome[1], outcome[0], outcome[-1]]
    expected = [GAMES * float(p) for p in (exact.win, exact.draw, exact.loss)]
    assert chi_square_p_value_2df(observed, expected) > 1e-4, (observed, expected)
    for side, dist in ((0, exact.goals_x), (1, exact.goals_y)):
        counts = Counter(score[side] for score in scores)
        assert max(counts) <= len(dist) - 1  # never more goals than chances
        for goals, p in enumerate(dist):
            if p in (0, 1):
                assert counts[goals] == GAMES * p, (side, goals)
            elif GAMES * p >= 20:
                assert abs(z_score(counts[goals], GAMES, p)) < 4.5, (side, goals)


def test_play_chances_follows_the_two_dice() -> None:
    # One chance against a sweeper A=5 and a keeper T=7: p = 10/15 * 7/14 = 1/3.
    defender = Lineup(7, 5, 10, 10, 10)
    rng = random.Random(7)
    goals = sum(play_chances(1, defender, rng) for _ in range(GAMES))
    assert abs(z_score(goals, GAMES, Fraction(1, 3))) < 4.5
    # A back line of 0-0 turns every chance into a goal; no chance, no goal.
    assert play_chances(25, Lineup(0, 0, 1, 1, 1), rng) == 25
    assert play_chances(0, defender, rng) == 0


def test_play_is_reproducible_with_the_same_seed() -> None:
    x, y = Lineup.parse("10-10-28-11-11"), Lineup.parse("0-10-31-23-16")
    first = [play(x, y, random.Random(5)) for _ in range(3)]
    again = [play(x, y, random.Random(5)) for _ in range(3)]
    assert first == again
