"""Numbers, percentages and dates as players read them, in German and English.

Pure functions (no Jinja here); ``bot.render.environment`` binds them to a
language and installs them as template filters. Exact inputs stay exact:
every rounding is half up (``bot.rules.rounding``), never Python's ``round``.
Babel's number and date formatting is not used (it rounds half to even,
groups ``2000`` and shortens durations to one unit; docs/i18n.md has the
measurements): the few German and English month and weekday names needed
are in the tables below.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal
from fractions import Fraction
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.render.errors import InvalidTimeError, UnknownLanguageError
from bot.rules.rounding import half_up

LANGUAGES: tuple[str, ...] = ("de", "en")
DEFAULT_LANGUAGE = "de"

_DECIMAL_MARK = {"de": ",", "en": "."}
_THOUSANDS = {"de": ".", "en": ","}

WEEKDAYS = {
    "de": ("Mo.", "Di.", "Mi.", "Do.", "Fr.", "Sa.", "So."),
    "en": ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"),
}
MONTHS = {
    "de": (
        "Januar", "Februar", "März", "April", "Mai", "Juni", "Juli",
        "August", "September", "Oktober", "November", "Dezember",
    ),
    "en": (
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul",
        "Aug", "Sep", "Oct", "Nov", "Dec",
    ),
}
#: German names of the zone abbreviations the zone database gives in English.
GERMAN_ZONE_NAMES = {
    "CET": "MEZ", "CEST": "MESZ", "WET": "WEZ", "WEST": "WESZ",
    "EET": "OEZ", "EEST": "OESZ",
}


def check_language(language: object) -> str:
    """Return ``language`` if templates exist for it, else raise."""
    if language not in LANGUAGES:
        raise UnknownLanguageError(language, LANGUAGES)
    return language


def to_fraction(value: object) -> Fraction:
    """An exact number from a report value: int, Fraction, Decimal, a decimal
    or ``"n/d"`` string, or a float (taken at its exact binary value)."""
    if isinstance(value, bool) or value is None:
        raise TypeError(f"expected a number, got {value!r}")
    if isinstance(value, Fraction | int | Decimal | float):
        return Fraction(value)
    if isinstance(value, str):
        try:
            return Fraction(value.strip())
        except ValueError:
            raise ValueError(
                f"cannot read the number {value!r}: expected e.g. '0.8', '17/64' or '3'"
            ) from None
    raise TypeError(f"expected a number, got {type(value).__name__} {value!r}")


def _group_thousands(digits: str, language: str) -> str:
    if len(digits) <= 4:  # 2000 reads better than 2.000 in tables; 12.000 does not
        return digits
    parts = []
    while digits:
        parts.append(digits[-3:])
        digits = digits[:-3]
    return _THOUSANDS[language].join(reversed(parts))


def integer(value: object, language: str = DEFAULT_LANGUAGE) -> str:
    """A whole number (rounded half up) with the language's thousands separator
    from five digits on: ``12.000`` (de), ``12,000`` (en), ``2000`` (both)."""
    n = half_up(to_fraction(value))
    sign = "-" if n < 0 else ""
    return sign + _group_thousands(str(abs(n)), check_language(language))


def fixed(
    value: object, places: int, language: str = DEFAULT_LANGUAGE, *, sign: bool = False
) -> str:
    """``value`` with exactly ``places`` decimals, halves up; ``sign`` adds ``+``
    to positive numbers. German uses the decimal comma."""
    check_language(language)
    scaled = half_up(to_fraction(value) * 10**places)
    negative = scaled < 0
    digits = str(abs(scaled)).rjust(places + 1, "0")
    whole, frac = (digits[:-places], digits[-places:]) if places else (digits, "")
    text = _group_thousands(whole, language)
    if places:
        text += _DECIMAL_MARK[language] + frac
    if negative:
        return "-" + text
    return ("+" + text) if sign and scaled > 0 else text


def wp(value: object, language: str = DEFAULT_LANGUAGE) -> str:
    """Value points with two decimals: ``90,80`` / ``90.80``."""
    return fixed(value, 2, language)


def wp_gain(value: object, language: str = DEFAULT_LANGUAGE) -> str:
    """This round's WP gain, signed: ``+0,80``; no gain (0, or None: the team
    did not play this round) is ``0,00``."""
    return fixed(0 if value is None else value, 2, language, sign=True)


def psz(value: object, language: str = DEFAULT_LANGUAGE) -> str:
    """A PSZ as shown to players: a whole number, halves up."""
    return integer(value, language)


def signed(value: object, language: str = DEFAULT_LANGUAGE) -> str:
    """A whole number with its sign, e.g. a goal difference: ``+8``, ``0``, ``-3``."""
    n = half_up(to_fraction(value))
    return f"+{n}" if n > 0 else str(n)


def percent_value(probability: object) -> int:
    """A probability in [0, 1] as a whole percentage, halves up."""
    p = to_fraction(probability)
    if not 0 <= p <= 1:
        raise ValueError(f"probability {probability!r} is outside [0, 1]")
    return half_up(p * 100)


def percent(probability: object, language: str = DEFAULT_LANGUAGE) -> str:
    """A probability as a rounded percentage. Never claims certainty that is
    not there: a positive probability below 0.5 % is ``<1%``, one short of 1
    that would round to 100 is ``>99%``."""
    check_language(language)
    p = to_fraction(probability)
    value = percent_value(p)
    if value == 0 and p > 0:
        return "<1%"
    if value == 100 and p < 1:
        return ">99%"
    return f"{value}%"


def estimate_percent(probability: object, language: str = DEFAULT_LANGUAGE) -> str:
    """A Monte Carlo estimate as a percentage: like ``percent``, but an
    estimate of exactly 0 or 1 is shown as ``<1%`` / ``>99%`` (no finite
    simulation proves impossibility or certainty)."""
    p = to_fraction(probability)
    if p <= 0:
        check_language(language)
        return "<1%"
    if p >= 1:
        check_language(language)
        return ">99%"
    return percent(p, language)


def whole_percent(value: object, language: str = DEFAULT_LANGUAGE) -> str:
    """An already rounded percentage (e.g. ``knockout_odds[i]["percent"]``)."""
    check_language(language)
    return f"{half_up(to_fraction(value))}%"


def bar_width(probability: object) -> str:
    """CSS width of a probability bar in percent, one decimal, at least a
    sliver for any positive probability (so ``<1%`` is still visible)."""
    p = to_fraction(probability)
    if p <= 0:
        return "0"
    return fixed(max(p * 100, Fraction(1, 2)), 1, "en")


def text_bar(probability: object, columns: int = 20) -> str:
    """A probability as a bar of ``#`` for plain text, ``columns`` wide at
    100 %; any positive probability shows at least one ``#``."""
    p = to_fraction(probability)
    if p <= 0:
        return ""
    return "#" * max(1, half_up(p * columns))


def zone(name: str) -> ZoneInfo:
    """The IANA time zone ``name`` (e.g. ``Europe/Berlin``)."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise InvalidTimeError(
            f"unknown time zone {name!r}: expected an IANA name such as 'Europe/Berlin' or 'UTC'"
        ) from None


def _local(moment: datetime, tz: str) -> datetime:
    if not isinstance(moment, datetime):
        raise InvalidTimeError(f"expected a datetime, got {moment!r}")
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise InvalidTimeError(
            f"naive datetime {moment.isoformat()!r}: times inside the bot are aware "
            f"(UTC); attach a time zone"
        )
    return moment.astimezone(zone(tz))


def zone_abbreviation(moment: datetime, tz: str, language: str = DEFAULT_LANGUAGE) -> str:
    """``MEZ``/``MESZ`` (de) or ``CET``/``CEST`` (en) for Europe/Berlin; other
    zones as the zone database names them."""
    name = _local(moment, tz).tzname() or tz
    if check_language(language) == "de":
        return GERMAN_ZONE_NAMES.get(name, name)
    return name


def date(moment: datetime, tz: str, language: str = DEFAULT_LANGUAGE) -> str:
    """``6. Dezember 2026`` / ``6 Dec 2026`` in zone ``tz``."""
    local = _local(moment, tz)
    month = MONTHS[check_language(language)][local.month - 1]
    if language == "de":
        return f"{local.day}. {month} {local.year}"
    return f"{local.day} {month} {local.year}"


def datetime_long(moment: datetime, tz: str, language: str = DEFAULT_LANGUAGE) -> str:
    """A deadline with weekday, time and zone:
    ``So., 6. Dezember 2026, 20:00 MEZ (Europe/Berlin)`` /
    ``Sun 6 Dec 2026, 20:00 CET (Europe/Berlin)``."""
    local = _local(moment, tz)
    day = WEEKDAYS[check_language(language)][local.weekday()]
    sep = ", " if language == "de" else " "
    return (
        f"{day}{sep}{date(moment, tz, language)}, {local:%H:%M} "
        f"{zone_abbreviation(moment, tz, language)} ({tz})"
    )


_UNITS = {
    "de": (("Tag", "Tage"), ("Stunde", "Stunden"), ("Minute", "Minuten")),
    "en": (("day", "days"), ("hour", "hours"), ("minute", "minutes")),
}
_AND = {"de": "und", "en": "and"}


def duration(delta: timedelta, language: str = DEFAULT_LANGUAGE) -> str:
    """How long until a deadline, to the minute, at most two units:
    ``2 Tage und 3 Stunden`` / ``2 days and 3 hours``, ``45 Minuten``.
    Less than a minute counts as one minute; a past moment raises."""
    check_language(language)
    seconds = int(delta.total_seconds())
    if seconds < 0:
        raise InvalidTimeError(f"duration {delta} is negative: the moment has passed")
    minutes = max(1, seconds // 60)
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)
    amounts = [(days, 0), (hours, 1), (mins, 2)]
    first = next(i for i, (n, _) in enumerate(amounts) if n)
    parts = [
        f"{n} {_UNITS[language][unit][0 if n == 1 else 1]}"
        for n, unit in amounts[first : first + 2]
        if n
    ]
    if len(parts) == 1:
        return parts[0]
    return f"{parts[0]} {_AND[language]} {parts[1]}"
