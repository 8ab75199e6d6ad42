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

from bot.rules.lineup import Lineup
from bot.rules.match import MatchOdds, odds
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


class _OddsCache:
    """Exact odds per pair of lineups (GM teams often share a lineup)."""

    def __init__(self) -> None:
        self._cache: dict[tuple[Lineup, Lineup], MatchOdds] = {}

    def __call__(self, x: Lineup, y: Lineup) -> MatchOdds:
        found = self._cache.get((x, y))
        if found is None:
            back = self._cache.get((y, x))
            found = back.swapped() if back is not None else odds(x, y)
            self._cache[(x, y)] = found
        return found


def expectation_table(
    lineups: Mapping[str, Lineup], points: Points = DEFAULT_POINTS
) -> list[ExpectationRow]:
    """Expected points, results and goals of every team against every other
    twice, exact; ordered by expected points (highest first), then name."""
    pair_odds = _OddsCache()
    rows = []
    for team, lineup in lineups.items():
        won = drawn = lost = goals_for = goals_against = Fraction(0)
        games = 0
        for other, other_lineup in lineups.items():
            if other == team:
                continue
            o = pair_odds(lineup, other_lineup)
            gf, ga = o.expected_goals
            won += GAMES_PER_PAIR * o.win
            drawn += GAMES_PER_PAIR * o.draw
            lost += GAMES_PER_PAIR * o.loss
            goals_for += GAMES_PER_PAIR * gf
            goals_against += GAMES_PER_PAIR * ga
            games += GAMES_PER_PAIR
        expected_points = won * points.win + drawn * points.draw + lost * points.loss
        rows.append(
            ExpectationRow(team, games, won, drawn, lost, expected_points, goals_for, goals_against)
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
