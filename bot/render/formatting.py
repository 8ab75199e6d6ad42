"""Numbers, percentages and dates as players read them, in German and English.

Pure functions (no Jinja here); ``bot.render.environment`` binds them to a
language and installs them as template filters. The words and symbols are
Babel's: the decimal mark and the thousands separator, the names of weekdays
and months and the German short names of time zones (MEZ, MESZ) come from its
CLDR locale data, the units of a duration and their plurals from the message
catalog (``ngettext``). What the rules and our tables demand stays ours
(docs/i18n.md has the reasons and the measurements): every rounding is half
up (``bot.rules.rounding``; never Babel's half to even, never Python's
``round``), thousands are grouped from five digits (``2000``, ``12.000``), a
time left is two exact units (``2 Tage und 3 Stunden``), the English date
puts the day first (``6 Dec 2026``), and English zone names are the zone
database's (``CET``), which CLDR's English lacks. The locale data of a
language is looked up once and kept; a formatted date is kept too.
"""

from __future__ import annotations

import gettext
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from fractions import Fraction
from functools import cache, lru_cache
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.render.errors import InvalidTimeError
from bot.render.i18n import translations
from bot.render.languages import DEFAULT_LANGUAGE, LANGUAGES, check_language
from bot.rules.rounding import half_up

if TYPE_CHECKING:
    from babel import Locale
    from babel.dates import DateTimePattern

#: Babel's (CLDR's) locale of each language.
LOCALES = {"de": "de", "en": "en"}

#: Dates in CLDR's pattern syntax, filled with the locale's month and weekday
#: names. German: CLDR's long date (``6. Dezember 2026``) and, for a deadline,
#: its full date with the weekday abbreviated and the short time; English:
#: day before month (CLDR's English writes the month first, ``Dec 6, 2026``;
#: the day-first form is CLDR's British medium date), the weekday in front.
DATE_PATTERNS = {"de": "d. MMMM y", "en": "d MMM y"}
DEADLINE_PATTERNS = {"de": "E, d. MMMM y, HH:mm", "en": "E d MMM y, HH:mm"}
#: CLDR's mark for "no name" (a locale that withholds its parent's name).
_NO_NAME = "\u2205\u2205\u2205"


@dataclass(frozen=True, slots=True)
class LocaleData:
    """What the formats of one language take from Babel, looked up once."""

    locale: Locale
    decimal: str
    group: str
    date: DateTimePattern
    deadline: DateTimePattern


@cache
def locale_data(language: str) -> LocaleData:
    """The locale data of ``language`` (``de``/``en``), loaded on first use."""
    from babel import Locale
    from babel.dates import parse_pattern

    language = check_language(language)
    locale = Locale.parse(LOCALES[language])
    symbols = locale.number_symbols["latn"]
    return LocaleData(locale, symbols["decimal"], symbols["group"],
                      parse_pattern(DATE_PATTERNS[language]),
                      parse_pattern(DEADLINE_PATTERNS[language]))


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
    return locale_data(language).group.join(reversed(parts))


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
        text += locale_data(language).decimal + frac
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


@cache
def _zone_names(tz: str, language: str) -> tuple[str | None, str | None]:
    """CLDR's short (standard, summer) names of zone ``tz`` in ``language``,
    None where it has none."""
    from babel.core import get_global

    metazone = get_global("meta_zones").get(tz)
    zones = locale_data(language).locale.meta_zones
    names = zones.get(metazone, {}).get("short", {}) if metazone else {}
    standard, summer = names.get("standard"), names.get("daylight")
    return (standard if standard != _NO_NAME else None,
            summer if summer != _NO_NAME else None)


def zone_abbreviation(moment: datetime, tz: str, language: str = DEFAULT_LANGUAGE) -> str:
    """The zone's short name at ``moment``: CLDR's in the language where it has
    one (``MEZ``/``MESZ`` in German, ``EST`` in English), else the zone
    database's (``CET``/``CEST`` in English, ``UTC``)."""
    local = _local(moment, tz)
    standard, summer = _zone_names(tz, check_language(language))
    dst = local.dst()
    name = summer if dst and dst > timedelta(0) else standard
    return name or local.tzname() or tz


@lru_cache(maxsize=512)
def _formatted(local: datetime, tz: str, language: str, deadline: bool) -> str:
    """The date (or deadline) pattern applied to ``local``, a time in zone ``tz``
    (part of the key: aware datetimes of one instant are equal in any zone)."""
    data = locale_data(language)
    return (data.deadline if deadline else data.date).apply(local, data.locale)


def date(moment: datetime, tz: str, language: str = DEFAULT_LANGUAGE) -> str:
    """``6. Dezember 2026`` / ``6 Dec 2026`` in zone ``tz``."""
    return _formatted(_local(moment, tz), tz, check_language(language), False)


def datetime_long(moment: datetime, tz: str, language: str = DEFAULT_LANGUAGE) -> str:
    """A deadline with weekday, time and zone:
    ``So., 6. Dezember 2026, 20:00 MEZ (Europe/Berlin)`` /
    ``Sun 6 Dec 2026, 20:00 CET (Europe/Berlin)``."""
    local = _local(moment, tz)
    language = check_language(language)
    return (f"{_formatted(local, tz, language, True)} "
            f"{zone_abbreviation(moment, tz, language)} ({tz})")


def _amount(catalog: gettext.NullTranslations, unit: int, n: int) -> str:
    """``n`` days (unit 0), hours (1) or minutes (2) in the catalog's words."""
    if unit == 0:
        text = catalog.ngettext("%(num)s day", "%(num)s days", n)
    elif unit == 1:
        text = catalog.ngettext("%(num)s hour", "%(num)s hours", n)
    else:
        text = catalog.ngettext("%(num)s minute", "%(num)s minutes", n)
    return text % {"num": n}


def duration(delta: timedelta, language: str = DEFAULT_LANGUAGE) -> str:
    """How long until a deadline, to the minute, at most two units:
    ``2 Tage und 3 Stunden`` / ``2 days and 3 hours``, ``45 Minuten``.
    Less than a minute counts as one minute; a past moment raises."""
    catalog = translations(check_language(language))
    seconds = int(delta.total_seconds())
    if seconds < 0:
        raise InvalidTimeError(f"duration {delta} is negative: the moment has passed")
    minutes = max(1, seconds // 60)
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)
    amounts = (days, hours, mins)
    first = next(unit for unit, n in enumerate(amounts) if n)
    parts = [_amount(catalog, unit, amounts[unit])
             for unit in range(first, min(first + 2, 3)) if amounts[unit]]
    if len(parts) == 1:
        return parts[0]
    return catalog.gettext("%(first)s and %(second)s") % {"first": parts[0],
                                                           "second": parts[1]}


__all__ = [
    "DEFAULT_LANGUAGE",
    "LANGUAGES",
    "LocaleData",
    "bar_width",
    "check_language",
    "date",
    "datetime_long",
    "duration",
    "estimate_percent",
    "fixed",
    "integer",
    "locale_data",
    "percent",
    "percent_value",
    "psz",
    "signed",
    "text_bar",
    "to_fraction",
    "whole_percent",
    "wp",
    "wp_gain",
    "zone",
    "zone_abbreviation",
]
