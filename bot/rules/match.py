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

from bot.rules.lineup import Lineup
from bot.rules.rounding import half_up

SWEEPER_DIE = 15
KEEPER_DIE = 14


def chances(x: Lineup, y: Lineup) -> int:
    """Goal chances of X against Y: attack + midfield + defence, each part
    rounded on its own, halves up."""
    attack = max(x.s - (y.a + y.v), 0)
    midfield = Fraction(max(x.m - y.m, 0), 2)
    defence = Fraction(max(x.v - y.s, 0), 4)
    return attack + half_up(midfield) + half_up(defence)


def goal_probability(defender: Lineup) -> Fraction:
    """Probability that one chance against ``defender`` becomes a goal."""
    return Fraction(SWEEPER_DIE - defender.a, SWEEPER_DIE) * Fraction(
        KEEPER_DIE - defender.t, KEEPER_DIE
    )


@lru_cache(maxsize=4096)
def goal_distribution(n: int, p: Fraction) -> tuple[Fraction, ...]:
    """Exact Binomial(n, p) probabilities of 0..n goals."""
    q = 1 - p
    return tuple(comb(n, k) * p**k * q ** (n - k) for k in range(n + 1))


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
    """Exact win/draw/loss probabilities of X against Y."""
    cx, cy = chances(x, y), chances(y, x)
    px, py = goal_probability(y), goal_probability(x)
    gx, gy = goal_distribution(cx, px), goal_distribution(cy, py)
    win = draw = Fraction(0)
    cum_y = Fraction(0)  # P(Y scores fewer than k)
    for k, pk in enumerate(gx):
        if k < len(gy):
            draw += pk * gy[k]
        win += pk * cum_y
        if k < len(gy):
            cum_y += gy[k]
    loss = 1 - win - draw
    return MatchOdds((cx, cy), (px, py), gx, gy, win, draw, loss)


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
