"""The figures of an odds question as players read them, in German and English.

One implementation for the calculator's text (``turnited match``) and the
reply to ``Quote`` / ``Odds`` (``templates/mail/notice/odds.txt.j2``): a
probability in per cent with two decimals, an expected number of goals with
two decimals, both rounded half up (``bot.render.formatting.fixed``; German
with the decimal comma). The numbers themselves are ``bot.rules.versus``'.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from bot.render.formatting import fixed
from bot.rules.versus import SideOdds


def exact_percent(probability: Fraction, language: str) -> str:
    """A probability in per cent with two decimals, halves up: ``54,85 %``."""
    return f"{fixed(probability * 100, 2, language)} %"


def goals(expected: Fraction, language: str) -> str:
    """An expected number of goals with two decimals, halves up: ``3,43``."""
    return fixed(expected, 2, language)


@dataclass(frozen=True, slots=True)
class OddsFigures:
    """An odds question's figures as text in one language."""

    win: str
    draw: str
    loss: str
    goals_x: str
    goals_y: str
    #: The chances of x and y, when each side has one lineup (else None).
    chances: tuple[int, int] | None


def odds_figures(result: SideOdds, language: str) -> OddsFigures:
    """``result``'s win, draw, loss and expected goals as text in ``language``."""
    return OddsFigures(
        win=exact_percent(result.win, language),
        draw=exact_percent(result.draw, language),
        loss=exact_percent(result.loss, language),
        goals_x=goals(result.expected_goals[0], language),
        goals_y=goals(result.expected_goals[1], language),
        chances=result.pairing.chances if result.pairing is not None else None,
    )


__all__ = ["OddsFigures", "exact_percent", "goals", "odds_figures"]
