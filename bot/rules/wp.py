"""Value points (Wertpunkte, RULES.md §6), always exact ``Decimal``s."""

from __future__ import annotations

from decimal import Decimal, getcontext

from bot.rules.rounding import to_cents

INITIAL_WP = Decimal("90")
WIN_GAIN = Decimal("0.2")
DRAW_GAIN = Decimal("0.1")
AGEING_BASE = Decimal("89")


def as_wp(value: Decimal | int | str) -> Decimal:
    """Accept a Decimal, int or decimal string; refuse binary floats."""
    if isinstance(value, float):
        raise TypeError(f"WP must be exact, got the float {value!r}; pass a str or Decimal")
    return Decimal(value)


def gain(wins: int, draws: int) -> Decimal:
    """WP earned in one tournament: 0.2 per win, 0.1 per draw."""
    return WIN_GAIN * wins + DRAW_GAIN * draws


def budget(wp: Decimal | int | str) -> int:
    """What a team may spend: floor(WP), never rounded up."""
    return int(as_wp(wp).to_integral_value(rounding="ROUND_FLOOR"))


def age(wp: Decimal | int | str) -> Decimal:
    """Season-end ageing: 89 + sqrt(WP - 89), two decimals, halves up.

    WP at or below 89 are left as they are (a team never has fewer than 90).
    """
    wp = as_wp(wp)
    if wp <= AGEING_BASE:
        return to_cents(wp)
    ctx = getcontext().copy()
    ctx.prec = 50
    root = (wp - AGEING_BASE).sqrt(ctx)
    # 50 significant digits decide the half-cent exactly unless the root is
    # exactly a half-cent, which Decimal.sqrt then returns exactly.
    return to_cents(AGEING_BASE + root)
