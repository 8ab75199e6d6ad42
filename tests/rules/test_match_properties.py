"""Exact odds of the match engine (RULES.md §3): properties and a plain reference."""

from __future__ import annotations

from fractions import Fraction
from math import comb

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.rules import IllegalLineupError, Lineup, chances, odds
from bot.rules.match import goal_distribution, goal_probability

playable = st.builds(
    Lineup,
    st.integers(0, 10), st.integers(0, 10),
    st.integers(0, 60), st.integers(0, 60), st.integers(0, 60),
)
probabilities = st.fractions(min_value=0, max_value=1, max_denominator=300)


def reference_odds(x: Lineup, y: Lineup) -> tuple[Fraction, Fraction, Fraction]:
    """Win/draw/loss by the double sum over all scores, from first principles."""
    def goals(n: int, defender: Lineup) -> list[Fraction]:
        p = Fraction(15 - defender.a, 15) * Fraction(14 - defender.t, 14)
        return [comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]

    gx, gy = goals(chances(x, y), y), goals(chances(y, x), x)
    win = sum((a * b for i, a in enumerate(gx) for j, b in enumerate(gy) if i > j), Fraction(0))
    draw = sum((a * b for i, a in enumerate(gx) for j, b in enumerate(gy) if i == j), Fraction(0))
    loss = sum((a * b for i, a in enumerate(gx) for j, b in enumerate(gy) if i < j), Fraction(0))
    return win, draw, loss


@given(playable, playable)
@settings(deadline=None)  # the plain double sum is slow on a busy machine
def test_odds_agree_with_the_double_sum(x: Lineup, y: Lineup) -> None:
    result = odds(x, y)
    assert (result.win, result.draw, result.loss) == reference_odds(x, y)


@given(playable, playable)
def test_outcomes_add_up_to_one_and_swap(x: Lineup, y: Lineup) -> None:
    forward, backward = odds(x, y), odds(y, x)
    assert forward.win + forward.draw + forward.loss == 1
    assert min(forward.win, forward.draw, forward.loss) >= 0
    assert forward.swapped() == backward
    assert backward.swapped() == forward
    assert forward.chances == (chances(x, y), chances(y, x))
    assert forward.goal_probability == (goal_probability(y), goal_probability(x))
    assert forward.goals_x == goal_distribution(forward.chances[0], goal_probability(y))
    assert forward.expected_goals == (
        sum((k * p for k, p in enumerate(forward.goals_x)), Fraction(0)),
        sum((k * p for k, p in enumerate(forward.goals_y)), Fraction(0)),
    )
    assert forward.expected_points() == 3 * forward.win + forward.draw
    assert forward.expected_points(2, 1, 0) == 2 * forward.win + forward.draw


@given(st.integers(0, 120), probabilities)
@settings(deadline=None)
def test_goal_distribution_is_exact_and_sums_to_one(n: int, p: Fraction) -> None:
    dist = goal_distribution(n, p)
    assert len(dist) == n + 1
    assert sum(dist) == 1
    assert all(isinstance(q, Fraction) and q >= 0 for q in dist)
    assert sum((k * q for k, q in enumerate(dist)), Fraction(0)) == n * p


def test_goal_distribution_small_case() -> None:
    assert goal_distribution(2, Fraction(1, 3)) == (Fraction(4, 9), Fraction(4, 9), Fraction(1, 9))
    assert goal_distribution(0, Fraction(1, 3)) == (Fraction(1),)


def test_goal_probability_is_the_two_dice() -> None:
    assert goal_probability(Lineup(0, 0, 1, 1, 1)) == 1
    assert goal_probability(Lineup(10, 10, 1, 1, 1)) == Fraction(5 * 4, 15 * 14)
    assert goal_probability(Lineup(7, 3, 1, 1, 1)) == Fraction(12, 15) * Fraction(7, 14)


@pytest.mark.parametrize("text", ["11-0-10-10-10", "0-15-10-10-10"])
def test_a_lineup_above_the_back_cap_cannot_play(text: str) -> None:
    with pytest.raises(IllegalLineupError, match="back_cap"):
        odds(Lineup.parse("10-10-15-15-20"), Lineup.parse(text))


def test_invalid_distribution_arguments() -> None:
    with pytest.raises(ValueError):
        goal_distribution(-1, Fraction(1, 2))
    with pytest.raises(ValueError):
        goal_distribution(3, Fraction(3, 2))
