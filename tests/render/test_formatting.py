"""Numbers, percentages and dates in German and English (bot.render.formatting)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.render import formatting as f
from bot.render.errors import InvalidTimeError, UnknownLanguageError


@pytest.mark.parametrize(
    ("p", "text"),
    [
        (0, "0%"),
        (Fraction(1, 1000), "<1%"),
        (Fraction(1, 200), "1%"),  # exactly 0.5 % rounds half up
        (Fraction(1, 201), "<1%"),
        (Fraction(37, 100), "37%"),
        (Fraction(745, 1000), "75%"),  # half up, not half to even
        (Fraction(994, 1000), "99%"),
        (Fraction(995, 1000), ">99%"),  # rounds to 100, but a near-certainty is not certain
        (Fraction(1), "100%"),
        ("17/64", "27%"),
        (0.5, "50%"),
    ],
)
def test_percent(p: object, text: str) -> None:
    assert f.percent(p, "de") == text
    assert f.percent(p, "en") == text


@given(st.fractions(min_value=0, max_value=1))
def test_percent_never_hides_a_possibility(p: Fraction) -> None:
    text = f.percent(p)
    if p > 0:
        assert text != "0%"
    if p < 1:
        assert text != "100%"
    if text not in ("<1%", ">99%"):
        value = int(text.rstrip("%"))
        assert abs(Fraction(value, 100) - p) <= Fraction(1, 200)


def test_estimates_are_never_certain() -> None:
    assert f.estimate_percent(1.0) == ">99%"
    assert f.estimate_percent(0.0, "en") == "<1%"
    assert f.estimate_percent(0.5) == "50%"


def test_percent_outside_unit_interval() -> None:
    with pytest.raises(ValueError, match="outside"):
        f.percent(Fraction(3, 2))


@pytest.mark.parametrize(
    ("value", "de", "en"),
    [
        (Decimal("90.8"), "90,80", "90.80"),
        ("92.325", "92,33", "92.33"),  # half up
        (Fraction(1, 3), "0,33", "0.33"),
        (12345, "12.345,00", "12,345.00"),
        (Decimal("-0.005"), "-0,01", "-0.01"),
    ],
)
def test_wp(value: object, de: str, en: str) -> None:
    assert f.wp(value, "de") == de
    assert f.wp(value, "en") == en


def test_wp_gain_signed() -> None:
    assert f.wp_gain("0.8", "de") == "+0,80"
    assert f.wp_gain("0", "en") == "0.00"


def test_psz_whole_half_up() -> None:
    assert f.psz(Decimal("243.50")) == "244"
    assert f.psz(Decimal("243.49")) == "243"
    assert f.psz("730/3") == "243"


def test_integer_groups_thousands_from_five_digits() -> None:
    assert f.integer(2000, "de") == "2000"
    assert f.integer(20000, "de") == "20.000"
    assert f.integer(1234567, "en") == "1,234,567"


@given(st.fractions(min_value=-10**6, max_value=10**6), st.integers(0, 4))
def test_fixed_is_exact_half_up(x: Fraction, places: int) -> None:
    text = f.fixed(x, places, "en").replace(",", "")
    value = Fraction(text)
    assert abs(value - x) <= Fraction(1, 2 * 10**places)
    if abs(value - x) == Fraction(1, 2 * 10**places):
        assert abs(value) > abs(x)  # halves away from zero


def test_signed() -> None:
    assert [f.signed(n) for n in (8, 0, -3)] == ["+8", "0", "-3"]


def test_to_fraction_refuses_junk() -> None:
    with pytest.raises(ValueError, match="'abc'"):
        f.to_fraction("abc")
    with pytest.raises(TypeError):
        f.to_fraction(True)


# --------------------------------------------------------------------- dates


WINTER = datetime(2026, 12, 6, 19, 0, tzinfo=UTC)  # 20:00 CET
SUMMER = datetime(2026, 7, 5, 18, 30, tzinfo=UTC)  # 20:30 CEST


def test_deadline_german_winter() -> None:
    assert f.datetime_long(WINTER, "Europe/Berlin", "de") == (
        "So., 6. Dezember 2026, 20:00 MEZ (Europe/Berlin)"
    )


def test_deadline_english_winter() -> None:
    assert f.datetime_long(WINTER, "Europe/Berlin", "en") == (
        "Sun 6 Dec 2026, 20:00 CET (Europe/Berlin)"
    )


def test_deadline_summer_time() -> None:
    assert f.datetime_long(SUMMER, "Europe/Berlin", "de") == (
        "So., 5. Juli 2026, 20:30 MESZ (Europe/Berlin)"
    )
    assert f.datetime_long(SUMMER, "Europe/Berlin", "en") == (
        "Sun 5 Jul 2026, 20:30 CEST (Europe/Berlin)"
    )


def test_deadline_other_zones() -> None:
    assert f.datetime_long(WINTER, "UTC", "de") == "So., 6. Dezember 2026, 19:00 UTC (UTC)"
    assert f.datetime_long(WINTER, "America/New_York", "en") == (
        "Sun 6 Dec 2026, 14:00 EST (America/New_York)"
    )


def test_every_weekday_and_month_has_a_name() -> None:
    start = datetime(2027, 1, 4, 12, tzinfo=UTC)  # a Monday
    seen = {f.datetime_long(start + timedelta(days=d), "UTC", "de")[:4] for d in range(7)}
    assert seen == {"Mo.,", "Di.,", "Mi.,", "Do.,", "Fr.,", "Sa.,", "So.,"}
    months = {f.date(datetime(2027, m, 1, 12, tzinfo=UTC), "UTC", "de") for m in range(1, 13)}
    assert "1. März 2027" in months and len(months) == 12


def test_naive_datetime_refused() -> None:
    with pytest.raises(InvalidTimeError, match="naive"):
        f.datetime_long(datetime(2026, 12, 6, 20), "Europe/Berlin", "de")


def test_unknown_zone_refused() -> None:
    with pytest.raises(InvalidTimeError, match="Europe/Berlinn"):
        f.datetime_long(WINTER, "Europe/Berlinn", "de")


def test_unknown_language_refused() -> None:
    with pytest.raises(UnknownLanguageError, match="'fr'"):
        f.percent(Fraction(1, 2), "fr")


@pytest.mark.parametrize(
    ("delta", "de", "en"),
    [
        (timedelta(days=2, hours=3, minutes=5), "2 Tage und 3 Stunden", "2 days and 3 hours"),
        (timedelta(days=1), "1 Tag", "1 day"),
        (timedelta(days=1, minutes=30), "1 Tag", "1 day"),
        (timedelta(hours=1, minutes=1), "1 Stunde und 1 Minute", "1 hour and 1 minute"),
        (timedelta(minutes=45), "45 Minuten", "45 minutes"),
        (timedelta(seconds=20), "1 Minute", "1 minute"),
    ],
)
def test_duration(delta: timedelta, de: str, en: str) -> None:
    assert f.duration(delta, "de") == de
    assert f.duration(delta, "en") == en


def test_duration_in_the_past_refused() -> None:
    with pytest.raises(InvalidTimeError, match="passed"):
        f.duration(timedelta(minutes=-1))


def test_text_bar_and_bar_width() -> None:
    assert f.text_bar(Fraction(1, 1000)) == "#"
    assert f.text_bar(0) == ""
    assert f.text_bar(1) == "#" * 20
    assert f.bar_width(Fraction(1, 1000)) == "0.5"
    assert f.bar_width(Fraction(37, 100)) == "37.0"


@pytest.mark.parametrize(
    ("delta", "de", "en"),
    [
        (timedelta(days=1, hours=1), "1 Tag und 1 Stunde", "1 day and 1 hour"),
        (timedelta(days=3, hours=1), "3 Tage und 1 Stunde", "3 days and 1 hour"),
        (timedelta(hours=2, minutes=1), "2 Stunden und 1 Minute", "2 hours and 1 minute"),
        (timedelta(hours=1, minutes=2), "1 Stunde und 2 Minuten", "1 hour and 2 minutes"),
    ],
)
def test_duration_plurals_come_from_the_catalog(delta: timedelta, de: str, en: str) -> None:
    assert f.duration(delta, "de") == de
    assert f.duration(delta, "en") == en


# ------------------------------------------------------ Babel's locale data


def test_symbols_are_the_locales() -> None:
    assert (f.locale_data("de").decimal, f.locale_data("de").group) == (",", ".")
    assert (f.locale_data("en").decimal, f.locale_data("en").group) == (".", ",")
    assert f.locale_data("de") is f.locale_data("de")  # looked up once


def test_the_german_date_patterns_are_cldrs_and_the_english_one_is_day_first() -> None:
    from babel import Locale

    de = Locale.parse("de")
    assert f.DATE_PATTERNS["de"] == de.date_formats["long"].pattern
    full = de.date_formats["full"].pattern.replace("EEEE", "E")
    glued = de.datetime_formats["medium"].replace("{1}", full).replace(
        "{0}", de.time_formats["short"].pattern)
    assert f.DEADLINE_PATTERNS["de"] == glued
    assert f.DATE_PATTERNS["en"] == Locale.parse("en_GB").date_formats["medium"].pattern


@pytest.mark.parametrize(
    ("tz", "winter_de", "summer_de", "winter_en", "summer_en"),
    [
        ("Europe/Berlin", "MEZ", "MESZ", "CET", "CEST"),
        ("Europe/Lisbon", "WEZ", "WESZ", "WET", "WEST"),
        ("Europe/Athens", "OEZ", "OESZ", "EET", "EEST"),
        ("Europe/London", "GMT", "BST", "GMT", "BST"),
        ("America/New_York", "EST", "EDT", "EST", "EDT"),
        ("UTC", "UTC", "UTC", "UTC", "UTC"),
    ],
)
def test_zone_names_never_an_offset(tz: str, winter_de: str, summer_de: str, winter_en: str,
                                    summer_en: str) -> None:
    """CLDR's short name where the language has one, else the zone database's."""
    assert f.zone_abbreviation(WINTER, tz, "de") == winter_de
    assert f.zone_abbreviation(SUMMER, tz, "de") == summer_de
    assert f.zone_abbreviation(WINTER, tz, "en") == winter_en
    assert f.zone_abbreviation(SUMMER, tz, "en") == summer_en


def test_one_moment_in_two_zones_is_two_dates() -> None:
    """Formatted dates are kept; equal instants in different zones are not one key."""
    late = datetime(2026, 12, 6, 23, 30, tzinfo=UTC)
    assert f.date(late, "UTC", "en") == "6 Dec 2026"
    assert f.date(late, "Europe/Berlin", "en") == "7 Dec 2026"
    assert f.datetime_long(late, "America/New_York", "de") == (
        "So., 6. Dezember 2026, 18:30 EST (America/New_York)")
    assert f.datetime_long(late, "Europe/Berlin", "de") == (
        "Mo., 7. Dezember 2026, 00:30 MEZ (Europe/Berlin)")
