"""Exact analytics of a tournament (RULES.md §8): knock-out odds and the
"Turnierfußball" expectation table.

Both are exact (``Fraction``), computed from the lineups with
``bot.rules.match.odds``. Percentages for display are whole numbers rounded
half up (``bot.rules.rounding.half_up``); they are rounded one by one, so
win + draw + loss may add up to 99 or 101.

The match engine does not know home and away (the dice are the same either
way), so a pair's home game and away game have the same odds; a team's
expectation over the double round robin is twice its expectation over one game
against each opponent.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import comb
from operator import mul

import numpy as np

from bot.rules.lineup import Lineup
from bot.rules.match import KEEPER_DIE, SWEEPER_DIE, goal_probability, odds
from bot.rules.rounding import half_up
from bot.rules.tournament import DEFAULT_POINTS, KnockoutStage, Points, TournamentResult

#: Games of every pair in the expectation table (home and away).
GAMES_PER_PAIR = 2


def percent(p: Fraction) -> int:
    """A probability as a whole percentage, halves up."""
    return half_up(Fraction(p) * 100)


@dataclass(frozen=True, slots=True)
class KnockoutOdds:
    """Exact odds of a knock-out game after the dice (before a lot), from the
    home team's side."""

    stage: KnockoutStage
    home: str
    away: str
    win: Fraction
    draw: Fraction
    loss: Fraction

    @property
    def percent(self) -> tuple[int, int, int]:
        """(win, draw, loss) in whole percent, each rounded half up."""
        return percent(self.win), percent(self.draw), percent(self.loss)


def knockout_odds(result: TournamentResult) -> list[KnockoutOdds]:
    """Exact win/draw/loss odds of every game from the semi-finals on."""
    lineups = result.lineups
    out = []
    for game in result.knockout:
        o = odds(lineups[game.home], lineups[game.away])
        out.append(KnockoutOdds(game.stage, game.home, game.away, o.win, o.draw, o.loss))
    return out


@dataclass(frozen=True, slots=True)
class ExpectationRow:
    """A team's expected record in the "Turnierfußball": every team of the
    tournament against every other, home and away."""

    team: str
    games: int
    won: Fraction
    drawn: Fraction
    lost: Fraction
    points: Fraction
    goals_for: Fraction
    goals_against: Fraction

    @property
    def goal_difference(self) -> Fraction:
        return self.goals_for - self.goals_against


#: Every chance is decided by a d15 and a d14: probabilities in whole 210ths.
_BASE = SWEEPER_DIE * KEEPER_DIE


@lru_cache(maxsize=65536)
def _weights(n: int, w: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Binomial(n, w / 210) in whole numbers over 210**n: the weights of 0..n
    goals and ``below[k]`` = the weights of fewer than k goals, k = 0..n+1."""
    weights = tuple(comb(n, k) * w**k * (_BASE - w) ** (n - k) for k in range(n + 1))
    below = [0]
    for x in weights:
        below.append(below[-1] + x)
    return weights, tuple(below)


@lru_cache(maxsize=262144)
def _win_draw(cx: int, wx: int, cy: int, wy: int) -> tuple[int, int]:
    """X's win and draw probability over 210**(cx + cy) when X has ``cx``
    chances worth ``wx``/210 each and Y ``cy`` worth ``wy``/210."""
    x, _ = _weights(cx, wx)
    y, below = _weights(cy, wy)
    win = sum(map(mul, x, below))  # zip stops at the shorter: k <= cy + 1
    if cx > cy + 1:
        win += _BASE**cy * sum(x[cy + 2 :])
    return win, sum(map(mul, x, y))


class _Sums:
    """Exact sums of probabilities over 210**e, kept per exponent e (plain
    integer additions), brought to one fraction at the end."""

    __slots__ = ("by_exponent",)

    def __init__(self) -> None:
        self.by_exponent: dict[int, list[int]] = {}

    def add(self, exponent: int, win: int, draw: int, loss: int) -> None:
        found = self.by_exponent.get(exponent)
        if found is None:
            self.by_exponent[exponent] = [win, draw, loss]
        else:
            found[0] += win
            found[1] += draw
            found[2] += loss

    def fractions(self) -> tuple[Fraction, Fraction, Fraction]:
        if not self.by_exponent:
            return Fraction(0), Fraction(0), Fraction(0)
        top = max(self.by_exponent)
        totals = [0, 0, 0]
        for exponent, parts in self.by_exponent.items():
            scale = _BASE ** (top - exponent)
            for i in range(3):
                totals[i] += parts[i] * scale
        denominator = _BASE**top
        return tuple(Fraction(t, denominator) for t in totals)  # type: ignore[return-value]


def _chances(lineups: list[Lineup]) -> np.ndarray:
    """``chances(x, y)`` for every pair of these lineups as a matrix (RULES.md §3,
    the same whole-number rounding as ``bot.rules.match.chances``)."""
    s, m, v, a = (np.array([getattr(lu, f) for lu in lineups], dtype=np.int64) for f in "smva")
    attack = np.maximum(s[:, None] - (a + v)[None, :], 0)
    midfield = np.maximum(m[:, None] - m[None, :], 0)
    defence = np.maximum(v[:, None] - s[None, :], 0)
    return attack + (midfield + 1) // 2 + (defence + 2) // 4


def expectation_table(
    lineups: Mapping[str, Lineup], points: Points = DEFAULT_POINTS
) -> list[ExpectationRow]:
    """Expected points, results and goals of every team against every other
    twice, exact; ordered by expected points (highest first), then name.

    Each pair of distinct lineups is computed once, in whole numbers over a
    power of 210 (GM teams often share a lineup; the engine knows no home
    and away, so one pairing gives both sides); only the sums per lineup
    become fractions.
    """
    for lineup in lineups.values():
        goal_probability(lineup)  # a lineup above the back cap cannot play
    distinct = sorted(set(lineups.values()))
    index = {lu: i for i, lu in enumerate(distinct)}
    count = [0] * len(distinct)
    for lineup in lineups.values():
        count[index[lineup]] += 1
    cx = _chances(distinct).tolist()
    worth = [(SWEEPER_DIE - lu.a) * (KEEPER_DIE - lu.t) for lu in distinct]
    sums = [_Sums() for _ in distinct]
    goals = [[0, 0] for _ in distinct]  # for, against: in 210ths, one game per opponent
    for i in range(len(distinct)):
        row_i, sums_i, worth_i = cx[i], sums[i], worth[i]
        for j in range(i, len(distinct)):
            # teams of lineup j that a team of lineup i meets (itself excluded)
            times_ij = count[j] - (i == j)
            if not times_ij:
                continue
            c_ij, c_ji = row_i[j], cx[j][i]
            win, draw = _win_draw(c_ij, worth[j], c_ji, worth_i)
            exponent = c_ij + c_ji
            loss = _BASE**exponent - win - draw
            sums_i.add(exponent, times_ij * win, times_ij * draw, times_ij * loss)
            goals[i][0] += times_ij * c_ij * worth[j]
            goals[i][1] += times_ij * c_ji * worth_i
            if i != j:
                times_ji = count[i]
                sums[j].add(exponent, times_ji * loss, times_ji * draw, times_ji * win)
                goals[j][0] += times_ji * c_ji * worth_i
                goals[j][1] += times_ji * c_ij * worth[j]
    per_lineup = []
    for k in range(len(distinct)):
        won, drawn, lost = (GAMES_PER_PAIR * f for f in sums[k].fractions())
        goals_for, goals_against = (Fraction(GAMES_PER_PAIR * g, _BASE) for g in goals[k])
        per_lineup.append((won, drawn, lost, goals_for, goals_against,
                           won * points.win + drawn * points.draw + lost * points.loss))
    games = GAMES_PER_PAIR * (len(lineups) - 1)
    rows = []
    for team, lineup in lineups.items():
        won, drawn, lost, goals_for, goals_against, expected = per_lineup[index[lineup]]
        rows.append(
            ExpectationRow(team, games, won, drawn, lost, expected, goals_for, goals_against)
        )
    rows.sort(key=lambda r: (-r.points, r.team))
    return rows


__all__ = [
    "ExpectationRow",
    "KnockoutOdds",
    "expectation_table",
    "knockout_odds",
    "percent",
]
