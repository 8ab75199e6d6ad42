"""The match engine of Anhang A (RULES.md §3): chances, the dice, and exact odds.

A chance of X is foiled by Y's sweeper when a d15 roll is <= A_Y, saved by
Y's goalkeeper when a d14 roll is <= T_Y, else it is a goal. Goals are
therefore Binomial(chances, p) with p = (15 - A_Y)/15 * (14 - T_Y)/14, and
every probability here is an exact ``Fraction``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import comb
from operator import mul

from bot.rules.errors import IllegalLineupError
from bot.rules.lineup import BACK_CAP, Lineup

SWEEPER_DIE = 15
KEEPER_DIE = 14


def chances(x: Lineup, y: Lineup) -> int:
    """Goal chances of X against Y: attack + midfield + defence, each part
    rounded on its own, halves up (RULES.md §3).

    In integers: half_up(k / 2) = (k + 1) // 2 and half_up(k / 4) = (k + 2) // 4
    for k >= 0 (the same as ``rounding.half_up``, without building fractions).
    """
    attack = max(x.s - (y.a + y.v), 0)
    midfield = max(x.m - y.m, 0)
    defence = max(x.v - y.s, 0)
    return attack + (midfield + 1) // 2 + (defence + 2) // 4


def goal_probability(defender: Lineup) -> Fraction:
    """Probability that one chance against ``defender`` becomes a goal.

    Raises ``IllegalLineupError`` if the defender's T or A is above the back
    cap: such a lineup cannot play (correct it first).
    """
    if defender.a > BACK_CAP or defender.t > BACK_CAP:
        raise IllegalLineupError(
            str(defender), "back_cap",
            f"T={defender.t}, A={defender.a}: both must be at most {BACK_CAP} to play",
        )
    return _goal_probability(defender.a, defender.t)


@lru_cache(maxsize=256)
def _goal_probability(a: int, t: int) -> Fraction:
    return Fraction((SWEEPER_DIE - a) * (KEEPER_DIE - t), SWEEPER_DIE * KEEPER_DIE)


@dataclass(frozen=True, slots=True)
class _Binomial:
    """Binomial(n, p) with p = a/d as integers: ``weights[k] = C(n,k) a^k (d-a)^(n-k)``,
    ``total = d^n`` (so P(k goals) = weights[k] / total) and
    ``below[k] = weights[0] + ... + weights[k-1]`` for k = 0..n+1."""

    weights: tuple[int, ...]
    below: tuple[int, ...]
    total: int


@lru_cache(maxsize=8192)
def _binomial(n: int, p: Fraction) -> _Binomial:
    if n < 0:
        raise ValueError(f"the number of chances must be >= 0, got {n}")
    if not 0 <= p <= 1:
        raise ValueError(f"a probability must lie in [0, 1], got {p}")
    a, d = p.numerator, p.denominator
    b = d - a
    weights = [comb(n, k) * a**k * b ** (n - k) for k in range(n + 1)]
    below = [0]
    for w in weights:
        below.append(below[-1] + w)
    return _Binomial(tuple(weights), tuple(below), d**n)


@lru_cache(maxsize=8192)
def goal_distribution(n: int, p: Fraction) -> tuple[Fraction, ...]:
    """Exact Binomial(n, p) probabilities of 0..n goals."""
    dist = _binomial(n, Fraction(p))
    return tuple(Fraction(w, dist.total) for w in dist.weights)


@dataclass(frozen=True, slots=True)
class MatchOdds:
    """Exact outcome distribution of X against Y, from X's side."""

    chances: tuple[int, int]
    goal_probability: tuple[Fraction, Fraction]
    goals_x: tuple[Fraction, ...]
    goals_y: tuple[Fraction, ...]
    win: Fraction
    draw: Fraction
    loss: Fraction

    @property
    def expected_goals(self) -> tuple[Fraction, Fraction]:
        return (
            self.chances[0] * self.goal_probability[0],
            self.chances[1] * self.goal_probability[1],
        )

    def expected_points(self, win: int = 3, draw: int = 1, loss: int = 0) -> Fraction:
        return self.win * win + self.draw * draw + self.loss * loss

    def swapped(self) -> MatchOdds:
        """The same game from Y's side."""
        return MatchOdds(
            (self.chances[1], self.chances[0]),
            (self.goal_probability[1], self.goal_probability[0]),
            self.goals_y,
            self.goals_x,
            self.loss,
            self.draw,
            self.win,
        )


def odds(x: Lineup, y: Lineup) -> MatchOdds:
    """Exact win/draw/loss probabilities of X against Y.

    Computed in integers over the common denominator ``d_x^n_x * d_y^n_y``:
    win = sum over k of P(X = k) * P(Y < k), draw = sum of P(X = k) * P(Y = k).
    """
    cx, cy = chances(x, y), chances(y, x)
    px, py = goal_probability(y), goal_probability(x)
    bx, by = _binomial(cx, px), _binomial(cy, py)
    # by.below[k] = P(Y < k) * total for k <= cy + 1; beyond that it is by.total.
    win = sum(map(mul, bx.weights, by.below))
    if cx > cy + 1:
        win += by.total * (bx.total - bx.below[cy + 2])
    draw = sum(map(mul, bx.weights, by.weights))
    total = bx.total * by.total
    return MatchOdds(
        (cx, cy),
        (px, py),
        goal_distribution(cx, px),
        goal_distribution(cy, py),
        Fraction(win, total),
        Fraction(draw, total),
        Fraction(total - win - draw, total),
    )


def clear_caches() -> None:
    """Forget the cached goal probabilities and distributions (for benchmarks)."""
    _goal_probability.cache_clear()
    _binomial.cache_clear()
    goal_distribution.cache_clear()


def play_chances(n: int, defender: Lineup, rng: random.Random) -> int:
    """Roll the dice for ``n`` chances against ``defender``; return the goals."""
    goals = 0
    for _ in range(n):
        if rng.randint(1, SWEEPER_DIE) <= defender.a:
            continue  # foiled by the sweeper
        if rng.randint(1, KEEPER_DIE) <= defender.t:
            continue  # saved by the goalkeeper
        goals += 1
    return goals


def play(x: Lineup, y: Lineup, rng: random.Random) -> tuple[int, int]:
    """Play one game dice by dice: first all of X's chances, then all of Y's."""
    gx = play_chances(chances(x, y), y, rng)
    gy = play_chances(chances(y, x), x, rng)
    return gx, gy
