"""Stored text forms of exact numbers and times.

WP and PSZ are decimal strings (never floats); times are ISO 8601 strings
in UTC. Everything that goes into or comes out of the database passes here.
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from fractions import Fraction


def dec_to_db(value: Decimal) -> str:
    """A Decimal as plain text (``'90.3'``, never ``'9.03E+1'``); refuses floats."""
    if not isinstance(value, Decimal):
        raise TypeError(f"store exact Decimals, got {type(value).__name__} {value!r}")
    if not value.is_finite():
        raise ValueError(f"cannot store the non-finite number {value!r}")
    return format(value, "f")


def dec_from_db(text: str) -> Decimal:
    try:
        return Decimal(text)
    except (InvalidOperation, TypeError) as exc:
        raise ValueError(f"stored number {text!r} is not a decimal string") from exc


def fraction_from_db(text: str) -> Fraction:
    return Fraction(dec_from_db(text))


def time_to_db(moment: datetime) -> str:
    """An aware datetime as ISO 8601 in UTC; naive datetimes are refused."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"times must be timezone-aware, got the naive {moment.isoformat()!r}")
    return moment.astimezone(UTC).isoformat()


def time_from_db(text: str | None) -> datetime | None:
    if text is None:
        return None
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)
