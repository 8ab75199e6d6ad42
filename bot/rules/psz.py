"""The PSZ rating (seed 001, RULES.md §10), computed with exact fractions.

Per game, with DIFF = PSZ_opponent - PSZ_own: a win scores max(40 + DIFF, 0),
a loss min(-40 + DIFF, 0), a draw DIFF. A period's points are added up
(every game with the start-of-period values), divided by the number of
games, and added to the old PSZ.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction

from bot.rules.errors import InvalidResultError

INITIAL_PSZ = Fraction(250)
WIN_POINTS = 40


class Result(Enum):
    """A game's outcome from the rated player's side."""

    WIN = "W"
    DRAW = "D"
    LOSS = "L"

    @property
    def sign(self) -> int:
        return {"W": 1, "D": 0, "L": -1}[self.value]

    @classmethod
    def parse(cls, text: str) -> Result:
        """Read ``1``/``0.5``/``0``, ``W``/``D``/``L`` or German ``S``/``U``/``N``."""
        key = str(text).strip().upper()
        for result, words in _RESULT_WORDS.items():
            if key in words:
                return result
        raise InvalidResultError(
            f"invalid result {text!r}: expected 1, 0.5 or 0, W/D/L or S/U/N"
        )


_RESULT_WORDS = {
    Result.WIN: {"1", "1.0", "W", "S", "WIN", "SIEG"},
    Result.DRAW: {"0.5", ".5", "0,5", "½", "D", "U", "DRAW", "REMIS", "UNENTSCHIEDEN"},
    Result.LOSS: {"0", "0.0", "L", "N", "LOSS", "NIEDERLAGE"},
}


def game_points(
    own: Fraction | int, opponent: Fraction | int, result: Result, *, bound: bool = True
) -> Fraction:
    """Points of one game. With ``bound`` (the default) a win never costs and a
    loss never earns points; draws are never bounded."""
    diff = Fraction(opponent) - Fraction(own)
    points = result.sign * WIN_POINTS + diff
    if bound and result is Result.WIN:
        return max(points, Fraction(0))
    if bound and result is Result.LOSS:
        return min(points, Fraction(0))
    return points


@dataclass(frozen=True, slots=True)
class PeriodUpdate:
    """A player's PSZ over one period."""

    before: Fraction
    games: int
    points: Fraction
    after: Fraction


def period_update(
    own: Fraction | int,
    games: Iterable[tuple[Fraction | int, Result]],
    *,
    bound: bool = True,
) -> PeriodUpdate:
    """New PSZ after a period of games (opponent PSZ, result), all rated with the
    start-of-period values. No games: the PSZ is unchanged."""
    own = Fraction(own)
    played = list(games)
    points = sum((game_points(own, opp, res, bound=bound) for opp, res in played), Fraction(0))
    after = own + points / len(played) if played else own
    return PeriodUpdate(own, len(played), points, after)


def batch_psz(games: Sequence[tuple[Fraction | int, Result]]) -> Fraction:
    """Batch form: [(wins - losses) * 40 + sum of opponents' PSZ] / games."""
    if not games:
        raise ValueError("the batch form needs at least one game")
    balance = sum(res.sign for _, res in games)
    opponents = sum((Fraction(opp) for opp, _ in games), Fraction(0))
    return (balance * WIN_POINTS + opponents) / len(games)
