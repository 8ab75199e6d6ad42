"""Commercial rounding ("kaufmännisch"): halves away from zero, exactly.

Python's ``round`` rounds halves to even; the rules never use it.
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction


def half_up(x: Fraction | Decimal | int) -> int:
    """Round an exact number to a whole number, halves away from zero
    (2.5 -> 3, -2.5 -> -3)."""
    x = Fraction(x)
    if x >= 0:
        return math.floor(x + Fraction(1, 2))
    return -math.floor(-x + Fraction(1, 2))


def to_cents(x: Fraction | Decimal | int) -> Decimal:
    """Round exactly to two decimals, halves away from zero.

    The cents are decided in integers and the ``Decimal`` is built from a
    string, so no context precision ever rounds the result.
    """
    if isinstance(x, float):
        raise TypeError(f"to_cents needs an exact number, got the float {x!r}")
    return Decimal(f"{half_up(Fraction(x) * 100)}E-2")
