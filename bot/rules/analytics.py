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


def _win_draw(cx: int, wx: int, cy: int, wy: int) -> tuple[int, int]:
    """X's win and draw probability over 210**(cx + cy) when X has ``cx``
    chances worth ``wx``/210 each and Y ``cy`` worth ``wy``/210."""
    x, _ = _weights(cx, wx)
    y, below = _weights(cy, wy)
    win = sum(map(mul, x, below))  # zip stops at the shorter: k <= cy + 1
    if cx > cy + 1:
        win += _BASE**cy * sum(x[cy + 2 :])
    return win, sum(map(mul, x, y))


def _fractions(sums: list[int], exponents: int) -> Fraction:
    """``sums[e]`` are numerators over 210**e; their exact total."""
    top = max((e for e in range(exponents) if sums[e]), default=0)
    total = sum(sums[e] * _BASE ** (top - e) for e in range(top + 1) if sums[e])
    return Fraction(total, _BASE**top)


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
    matrix = _chances(distinct)
    cx, cx_back = matrix.tolist(), matrix.T.tolist()
    worth = [(SWEEPER_DIE - lu.a) * (KEEPER_DIE - lu.t) for lu in distinct]
    exponents = int((matrix + matrix.T).max()) + 1
    powers = [_BASE**e for e in range(exponents)]
    # numerators over 210**e of the won, drawn and lost games, by exponent e
    won_by = [[0] * exponents for _ in distinct]
    drawn_by = [[0] * exponents for _ in distinct]
    lost_by = [[0] * exponents for _ in distinct]
    known: dict[tuple[int, int, int, int], tuple[int, int]] = {}
    for i in range(len(distinct)):
        row_i, back_i, worth_i, count_i = cx[i], cx_back[i], worth[i], count[i]
        won_i, drawn_i, lost_i = won_by[i], drawn_by[i], lost_by[i]
        for j in range(i, len(distinct)):
            # teams of lineup j that a team of lineup i meets (itself excluded)
            times = count[j] - (i == j)
            if not times:
                continue
            c_ij, c_ji = row_i[j], back_i[j]
            key = (c_ij, worth[j], c_ji, worth_i)
            found = known.get(key)
            if found is None:
                found = known[key] = _win_draw(*key)
            win, draw = found
            e = c_ij + c_ji
            loss = powers[e] - win - draw
            if times == 1:
                won_i[e] += win
                drawn_i[e] += draw
                lost_i[e] += loss
            else:
                won_i[e] += times * win
                drawn_i[e] += times * draw
                lost_i[e] += times * loss
            if i != j:
                if count_i == 1:
                    won_by[j][e] += loss
                    drawn_by[j][e] += draw
                    lost_by[j][e] += win
                else:
                    won_by[j][e] += count_i * loss
                    drawn_by[j][e] += count_i * draw
                    lost_by[j][e] += count_i * win
    # Expected goals per game: chances * worth / 210, summed in whole 210ths.
    opponents = np.array(count, dtype=np.int64)
    weight = np.array(worth, dtype=np.int64)
    own = np.diagonal(matrix) * weight
    goals_for = (matrix * weight[None, :]) @ opponents - own
    goals_against = (matrix.T * weight[:, None]) @ opponents - own
    per_lineup = []
    for k in range(len(distinct)):
        won, drawn, lost = (GAMES_PER_PAIR * _fractions(by[k], exponents)
                            for by in (won_by, drawn_by, lost_by))
        scored, conceded = (Fraction(GAMES_PER_PAIR * int(g[k]), _BASE)
                            for g in (goals_for, goals_against))
        per_lineup.append((won, drawn, lost, scored, conceded,
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
