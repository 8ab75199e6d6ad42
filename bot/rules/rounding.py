"""Commercial rounding ("kaufmännisch"): halves away from zero.

Python's ``round`` rounds halves to even; the rules never use it.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

CENT = Decimal("0.01")


def half_up(x: Fraction | int) -> int:
    """Round an exact non-negative or negative rational to a whole number, halves up."""
    x = Fraction(x)
    if x >= 0:
        return math.floor(x + Fraction(1, 2))
    return -math.floor(-x + Fraction(1, 2))


def to_cents(x: Fraction | Decimal | int) -> Decimal:
    """Round exactly to two decimals, halves away from zero."""
    if isinstance(x, Fraction):
        return (Decimal(half_up(x * 100)) / 100).quantize(CENT)
    return Decimal(x).quantize(CENT, rounding=ROUND_HALF_UP)
