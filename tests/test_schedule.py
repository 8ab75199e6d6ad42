"""bot.schedule: deadline computation (cron in a time zone across summer time,
explicit lists, reminders), and both date forms everywhere a date is given
(RULES.md §13): German ``17.01.2027 20:00`` (also ``17.1.2027, 20:00 Uhr``,
``17.01.2027 20 Uhr``, seconds) and ISO ``2027-01-17 20:00`` (``T``, seconds,
an offset), read by ``parse_local_datetime`` for the command line, the
configuration and a game master's mail alike."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bot.config import Config
from bot.schedule import (
    DateTimeError,
    DeadlinePlan,
    ScheduleSettings,
    parse_local_datetime,
    reminder_times,
)

BERLIN = ZoneInfo("Europe/Berlin")
WINTER = datetime(2027, 1, 17, 19, 0, tzinfo=UTC)  # 20:00 in Berlin


def plan(deadlines: object = None, timezone: str = "Europe/Berlin") -> DeadlinePlan:
    schedule: dict = {"timezone": timezone}
    if deadlines is not None:
        schedule["deadlines"] = deadlines
    return DeadlinePlan(Config.from_mapping({"schedule": schedule}, Path("."),
                                            environ={}).schedule)


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


SUNDAY_8PM = plan({"cron": "0 20 * * SUN"})


def test_sunday_eight_pm_across_the_march_change_to_summer_time():
    got = SUNDAY_8PM.upcoming(utc(2026, 3, 16), 3)
    assert got == [utc(2026, 3, 22, 19), utc(2026, 3, 29, 18), utc(2026, 4, 5, 18)]
    assert all(SUNDAY_8PM.local(d).strftime("%a %H:%M") == "Sun 20:00" for d in got)


def test_sunday_eight_pm_across_the_october_change_to_winter_time():
    got = SUNDAY_8PM.upcoming(utc(2026, 10, 12), 3)
    assert got == [utc(2026, 10, 18, 18), utc(2026, 10, 25, 19), utc(2026, 11, 1, 19)]


def test_next_deadline_is_strictly_after():
    deadline = utc(2026, 3, 29, 18)
    assert SUNDAY_8PM.next_deadline(deadline - timedelta(microseconds=1)) == deadline
    assert SUNDAY_8PM.next_deadline(deadline) == utc(2026, 4, 5, 18)
    assert SUNDAY_8PM.next_deadline(deadline + timedelta(seconds=1)) == utc(2026, 4, 5, 18)


def test_cron_is_evaluated_in_the_configured_zone():
    tokyo = plan({"cron": "0 20 * * SUN"}, timezone="Asia/Tokyo")
    assert tokyo.next_deadline(utc(2026, 3, 16)) == utc(2026, 3, 22, 11)
    assert plan({"cron": "0 20 * * 0"}, timezone="UTC").next_deadline(utc(2026, 3, 16)) \
        == utc(2026, 3, 22, 20)


def test_repeated_wall_clock_time_is_one_deadline_and_skipped_time_moves_forward():
    nightly = plan({"cron": "30 2 * * *"})
    october = nightly.upcoming(utc(2026, 10, 24), 3)
    # 02:30 happens twice on 25 October: the deadline is the first one only.
    assert october == [utc(2026, 10, 24, 0, 30), utc(2026, 10, 25, 0, 30),
                       utc(2026, 10, 26, 1, 30)]
    march = nightly.upcoming(utc(2026, 3, 28), 3)
    # 02:30 does not exist on 29 March: the deadline falls right after the gap.
    assert march == [utc(2026, 3, 28, 1, 30), utc(2026, 3, 29, 1, 30),
                     utc(2026, 3, 30, 0, 30)]


def test_explicit_list_gives_the_first_strictly_after_then_none():
    p = plan(["2026-12-06 20:00", "2026-12-13 20:00"])
    assert p.next_deadline(utc(2026, 1, 1)) == utc(2026, 12, 6, 19)
    assert p.next_deadline(utc(2026, 12, 6, 19)) == utc(2026, 12, 13, 19)
    assert p.next_deadline(utc(2026, 12, 13, 19)) is None
    assert p.upcoming(utc(2026, 1, 1), 5) == [utc(2026, 12, 6, 19), utc(2026, 12, 13, 19)]


def test_naive_moments_are_refused():
    with pytest.raises(ValueError, match="aware"):
        SUNDAY_8PM.next_deadline(datetime(2026, 1, 1))
    with pytest.raises(ValueError, match="aware"):
        reminder_times(datetime(2026, 1, 1), [6])


moments = st.datetimes(min_value=datetime(2026, 1, 1), max_value=datetime(2031, 12, 31),
                       timezones=st.just(UTC))


@settings(max_examples=150, deadline=None)
@given(after=moments)
@example(after=datetime(2026, 10, 18, 18, 0, tzinfo=UTC))  # a deadline just before autumn's change
def test_cron_deadline_is_the_next_sunday_eight_pm_local(after):
    got = SUNDAY_8PM.next_deadline(after)
    assert got is not None and got > after
    local = got.astimezone(BERLIN)
    assert (local.weekday(), local.hour, local.minute, local.second) == (6, 20, 0, 0)
    # No Sunday 20:00 lies between: the one a week earlier is not after `after`.
    previous_local = (local.replace(tzinfo=None) - timedelta(days=7)).replace(tzinfo=BERLIN)
    assert previous_local.astimezone(UTC) <= after
    # a week, plus the hour that autumn's clock change adds
    assert got - after <= timedelta(days=7, hours=1)


@settings(max_examples=100, deadline=None)
@given(deadlines=st.lists(moments, min_size=1, max_size=8, unique=True), after=moments)
def test_explicit_deadline_is_the_smallest_later_one(deadlines, after):
    stamps = tuple(sorted(d.replace(microsecond=0, second=0) for d in deadlines))
    if len(set(stamps)) != len(stamps):
        return
    p = DeadlinePlan(ScheduleSettings(timezone="UTC", cron=None, deadlines=stamps))
    later = [d for d in stamps if d > after]
    assert p.next_deadline(after) == (min(later) if later else None)


def test_reminder_times_are_elapsed_hours_earliest_first():
    deadline = utc(2026, 3, 29, 18)  # Sunday 20:00 summer time
    got = reminder_times(deadline, (6, 48))
    assert got == [(48, utc(2026, 3, 27, 18)), (6, utc(2026, 3, 29, 12))]
    # 48 hours before, across the change, is Friday 19:00 winter time.
    assert got[0][1].astimezone(BERLIN).strftime("%a %H:%M") == "Fri 19:00"
    assert reminder_times(deadline, ()) == []
    with pytest.raises(ValueError, match="> 0"):
        reminder_times(deadline, [0])


def test_the_schedule_knows_nothing_of_the_configuration():
    import subprocess
    import sys

    code = ("import sys, bot.schedule; "
            "print(sorted(m for m in sys.modules if m.startswith(('bot.config', 'bot.worker'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


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
