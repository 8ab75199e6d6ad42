"""Value points (Wertpunkte, RULES.md §6), always exact ``Decimal``s."""

from __future__ import annotations

import math
from decimal import ROUND_FLOOR, Decimal, InvalidOperation
from fractions import Fraction

from bot.rules.errors import InvalidWPError
from bot.rules.rounding import to_cents

INITIAL_WP = Decimal("90")
WIN_GAIN = Decimal("0.2")
DRAW_GAIN = Decimal("0.1")
AGEING_BASE = Decimal("89")


def as_wp(value: Decimal | int | str) -> Decimal:
    """Accept a Decimal, int or decimal string (``"95.3"``, also ``"95,3"``);
    refuse binary floats, text that is not a number, NaN, infinities and
    negative values."""
    if isinstance(value, float):
        raise TypeError(f"WP must be exact, got the float {value!r}; pass a str or Decimal")
    if isinstance(value, bool) or not isinstance(value, Decimal | int | str):
        raise InvalidWPError(f"invalid WP {value!r}: expected a decimal number such as '95.3'")
    text = value.strip().replace(",", ".") if isinstance(value, str) else value
    try:
        wp = Decimal(text)
    except InvalidOperation:
        raise InvalidWPError(
            f"invalid WP {value!r}: expected a decimal number such as '95.3'"
        ) from None
    if not wp.is_finite() or wp < 0:
        raise InvalidWPError(f"invalid WP {value!r}: WP are a finite number >= 0, e.g. '90'")
    return wp


def gain(wins: int, draws: int) -> Decimal:
    """WP earned in one tournament: 0.2 per win, 0.1 per draw."""
    if wins < 0 or draws < 0:
        raise ValueError(f"wins and draws must be >= 0, got {wins} and {draws}")
    return WIN_GAIN * wins + DRAW_GAIN * draws


def budget(wp: Decimal | int | str) -> int:
    """What a team may spend: floor(WP), never rounded up."""
    return int(as_wp(wp).to_integral_value(rounding=ROUND_FLOOR))


def age(wp: Decimal | int | str) -> Decimal:
    """Season-end ageing: 89 + sqrt(WP - 89), two decimals, halves up.

    Exact: with d = WP - 89 the result is 89 + k/100 where
    k = floor(100 * sqrt(d) + 1/2) = (isqrt(floor(40000 * d)) + 1) // 2,
    all in integers (no square root is ever rounded before the cent is decided).
    WP at or below 89 are left as they are (a team never has fewer than 90).
    """
    wp = as_wp(wp)
    if wp <= AGEING_BASE:
        return to_cents(wp)
    d = Fraction(wp - AGEING_BASE)
    k = (math.isqrt(math.floor(40000 * d)) + 1) // 2
    return to_cents(Fraction(AGEING_BASE) + Fraction(k, 100))
