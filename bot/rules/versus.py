"""Exact odds of one side against another as they would play (RULES.md §3, §5, §12).

One implementation for the players' calculator (``turnited match``) and the
mail command ``Quote`` / ``Odds``. A ``Side`` is what one team would field:

* a lineup corrected for a budget (RULES.md §2.1; ``lineup_side``, by
  default for the 90 WP of a new team), or
* the GM field (``GM_FIELD``): the 40 lineups of the GM teams' scheme
  (RULES.md §5, four back lines times ten tactics), each drawn with the
  same probability. They cost 90 WP and play as they are.

``odds_of(x, y)`` averages the exact odds of every pairing of x's lineups
with y's, each pairing equally likely, so the result stays exact
(``Fraction``): win, draw and loss of x, and each side's expected goals.
When each side has a single lineup, ``pairing`` is the one game's
``MatchOdds`` (its chances and the probability of a goal per chance).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from bot.rules.corrections import CorrectedLineup, correct
from bot.rules.gm_teams import BACK_LINES, TACTICS, gm_lineup
from bot.rules.lineup import Lineup
from bot.rules.match import MatchOdds, odds
from bot.rules.wp import INITIAL_WP, budget

#: The lineups of the GM teams' scheme, one per (back line, tactic) drawn
#: (RULES.md §5): equally likely, so a lineup two draws share counts twice.
GM_LINEUPS: tuple[Lineup, ...] = tuple(gm_lineup(b, k) for b in BACK_LINES for k in TACTICS)


@dataclass(frozen=True, slots=True)
class Side:
    """One side of an odds question: a lineup as it plays (``corrected``), or
    the GM field (``corrected`` None)."""

    corrected: CorrectedLineup | None = None

    @property
    def gm(self) -> bool:
        return self.corrected is None

    @property
    def lineups(self) -> tuple[Lineup, ...]:
        """The lineups this side plays, each equally likely."""
        return GM_LINEUPS if self.corrected is None else (self.corrected.lineup,)


#: The GM teams' scheme as a side.
GM_FIELD = Side()


def match_as_played(
    x: Lineup, y: Lineup, wp_x: Decimal | int | str = INITIAL_WP,
    wp_y: Decimal | int | str = INITIAL_WP,
) -> tuple[tuple[CorrectedLineup, CorrectedLineup], MatchOdds]:
    """Both lineups as they would play with their WP, and the exact odds of
    that game (``odds_of`` of the two lineups' sides, with the game's details)."""
    played = (correct(x, budget(wp_x)), correct(y, budget(wp_y)))
    return played, odds(played[0].lineup, played[1].lineup)


def lineup_side(lineup: Lineup, wp: Decimal | int | str = INITIAL_WP) -> Side:
    """``lineup`` as it would play with ``wp`` value points (``floor(WP)`` to spend)."""
    return Side(correct(lineup, budget(wp)))


@dataclass(frozen=True, slots=True)
class SideOdds:
    """The exact odds of side ``x`` against side ``y``, from x's side."""

    x: Side
    y: Side
    win: Fraction
    draw: Fraction
    loss: Fraction
    #: Expected goals of x and of y.
    expected_goals: tuple[Fraction, Fraction]
    #: The one game when each side has a single lineup, else None.
    pairing: MatchOdds | None


def odds_of(x: Side, y: Side) -> SideOdds:
    """The exact average of ``match.odds`` over every pairing of x's and y's
    lineups (each pairing equally likely)."""
    games = [odds(a, b) for a in x.lineups for b in y.lineups]
    count = len(games)
    win = sum((g.win for g in games), Fraction(0)) / count
    draw = sum((g.draw for g in games), Fraction(0)) / count
    goals_x = sum((g.expected_goals[0] for g in games), Fraction(0)) / count
    goals_y = sum((g.expected_goals[1] for g in games), Fraction(0)) / count
    return SideOdds(x, y, win, draw, 1 - win - draw, (goals_x, goals_y),
                    games[0] if count == 1 else None)


__all__ = ["GM_FIELD", "GM_LINEUPS", "Side", "SideOdds", "lineup_side", "match_as_played",
           "odds_of"]
