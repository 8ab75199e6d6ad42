"""Both date forms everywhere a date is given (RULES.md §13): German
``17.01.2027 20:00`` (also ``17.1.2027, 20:00 Uhr``, ``17.01.2027 20 Uhr``,
seconds) and ISO ``2027-01-17 20:00`` (``T``, seconds, an offset), read by
``bot.schedule.parse_local_datetime`` for the command line, the
configuration and a game master's mail alike."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.schedule import DateTimeError, parse_local_datetime

BERLIN = ZoneInfo("Europe/Berlin")
WINTER = datetime(2027, 1, 17, 19, 0, tzinfo=UTC)  # 20:00 in Berlin


@pytest.mark.parametrize("text", [
    "17.01.2027 20:00", "17.1.2027 20:00", "17.01.2027, 20:00", "17.01.2027 20:00 Uhr",
    "17.01.2027 20 Uhr", "17.01.2027 20:00:00", "  17.01.2027   20:00 ", "17.01.2027 20:00 UHR",
    "2027-01-17 20:00", "2027-01-17T20:00", "2027-01-17 20:00:00", "2027-01-17 19:00Z",
    "2027-01-17 20:00+01:00",
])
def test_every_form_of_the_same_moment(text: str):
    assert parse_local_datetime(text, BERLIN) == WINTER


@pytest.mark.parametrize(("text", "words"), [
    ("17.01.27 20:00", "is not a date and time"),
    ("nächsten Sonntag", "is not a date and time"),
    ("17.01.2027", "has no time of day"),
    ("2027-01-17", "has no time of day"),
    ("32.01.2027 20:00", "is not a valid date and time"),
    ("17.13.2027 20:00", "is not a valid date and time"),
    ("17.01.2027 24:00", "is not a valid date and time"),
    ("28.03.2027 02:30", "does not exist in Europe/Berlin"),
    ("31.10.2027 02:30", "happens twice in Europe/Berlin"),
])
def test_what_is_no_deadline_is_named_with_what_would_be_right(text: str, words: str):
    with pytest.raises(DateTimeError, match=words) as caught:
        parse_local_datetime(text, BERLIN)
    message, values = caught.value.words
    assert message % values == str(caught.value)  # the console says it in German from these
    assert "17.01.2027 20:00" in str(caught.value) or "clocks" in str(caught.value)


@given(day=st.integers(1, 28), month=st.integers(1, 12), hour=st.integers(0, 23),
       minute=st.integers(0, 59))
def test_german_and_iso_forms_agree(day: int, month: int, hour: int, minute: int):
    iso, german = (f"2027-{month:02d}-{day:02d} {hour:02d}:{minute:02d}",
                   f"{day}.{month}.2027 {hour}:{minute:02d}")
    try:
        expected = parse_local_datetime(iso, BERLIN)
    except DateTimeError:  # the hours the clocks skip or repeat: refused in both forms
        with pytest.raises(DateTimeError):
            parse_local_datetime(german, BERLIN)
        return
    assert parse_local_datetime(german, BERLIN) == expected
