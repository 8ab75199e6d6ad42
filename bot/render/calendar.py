"""The deadline of a round as an iCalendar (RFC 5545) event, for the
reminder's ``.ics`` attachment: players import it into their calendar.

Written with the ``icalendar`` library (a well-kept RFC 5545 implementation)
rather than by hand: folding, escaping and the time formats are its job.
The event's UID is stable per round and game, so importing the reminder of
the same round twice updates the one entry instead of adding a second; the
league's calendar of every planned deadline (``deadlines_calendar``, the
archive's ``calendar.ics``) uses the same entries. Its
words (summary, description) are the macros of ``templates/mail/calendar.j2``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from icalendar import Alarm, Calendar, Event, vDuration
from jinja2 import Environment

from bot.render.environment import Environments, environment_for
from bot.render.errors import InvalidTimeError
from bot.render.model import RoundInfo
from bot.render.textwidth import clean

#: How long before the deadline the calendar entry alarms.
ALARM_BEFORE = timedelta(hours=2)
#: How often a subscribed calendar is fetched again.
REFRESH = timedelta(hours=12)


def calendar_file_name(round_info: RoundInfo) -> str:
    return f"turnited-round-{round_info.number}.ics"


def _slug(game: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in game.lower()) or "turnited"


def _deadline_vevent(words: Any, game: str, domain: str, round_info: RoundInfo,
                     deadline: datetime, now: datetime, address: str | None) -> Event:
    """The event of one round's deadline: zero length, an alarm two hours
    before, a UID stable per game and round (the reminder's and the league
    calendar's entry of a round are the same entry)."""
    summary = str(words.summary(game, round_info))
    event = Event()
    event.add("uid", f"{_slug(game)}-round-{round_info.number}-deadline@{domain}")
    event.add("dtstamp", now.astimezone(deadline.tzinfo).replace(microsecond=0))
    event.add("dtstart", deadline.replace(microsecond=0))
    event.add("dtend", deadline.replace(microsecond=0))
    event.add("summary", summary)
    event.add("description", str(words.description(round_info, address)))
    event.add("transp", "TRANSPARENT")
    alarm = Alarm()
    alarm.add("action", "DISPLAY")
    alarm.add("description", summary)
    alarm.add("trigger", -ALARM_BEFORE)
    event.add_component(alarm)
    return event


def _check_aware(**moments: datetime) -> None:
    for name, moment in moments.items():
        if moment.tzinfo is None or moment.utcoffset() is None:
            raise InvalidTimeError(f"{name} {moment.isoformat()!r} is naive: pass an aware time")


def _domain(address: str | None) -> str:
    return address.rsplit("@", 1)[1] if address and "@" in address else "turnited.invalid"


def deadline_event(
    *, round_info: RoundInfo, deadline: datetime, now: datetime, game_name: str,
    language: str, address: str | None = None, env: Environment | Environments | None = None,
) -> bytes:
    """An ``.ics`` calendar with one event at ``deadline`` (zero length, an
    alarm two hours before), in ``language``. ``address`` (the game's mail
    address) is named in the description and gives the UID's domain."""
    _check_aware(deadline=deadline, now=now)
    words: Any = environment_for(language, env).get_template("calendar.j2").module
    game = clean(game_name).strip()
    cal = Calendar()
    cal.add("prodid", f"-//Turnited//{game}//{language.upper()}")
    cal.add("version", "2.0")
    cal.add("method", "PUBLISH")
    cal.add_component(_deadline_vevent(words, game, _domain(address), round_info, deadline,
                                       now, address))
    return cal.to_ical()


def deadlines_calendar(
    deadlines: Sequence[tuple[RoundInfo, datetime]], *, now: datetime, game_name: str,
    language: str, address: str | None = None, env: Environment | Environments | None = None,
) -> bytes:
    """The league's calendar to subscribe to (``webcal://``): one event per
    planned deadline, each the same entry as the reminder's ``.ics`` of
    that round; a calendar program fetches it again every twelve hours."""
    _check_aware(now=now, **{f"deadline of round {r.number}": d for r, d in deadlines})
    words: Any = environment_for(language, env).get_template("calendar.j2").module
    game = clean(game_name).strip()
    cal = Calendar()
    cal.add("prodid", f"-//Turnited//{game}//{language.upper()}")
    cal.add("version", "2.0")
    cal.add("method", "PUBLISH")
    cal.add("x-wr-calname", str(words.calendar_name(game)))
    cal.add("refresh-interval", REFRESH, parameters={"VALUE": "DURATION"})
    cal.add("x-published-ttl", vDuration(REFRESH))
    for round_info, deadline in deadlines:
        cal.add_component(_deadline_vevent(words, game, _domain(address), round_info,
                                           deadline, now, address))
    return cal.to_ical()


__all__ = ["ALARM_BEFORE", "calendar_file_name", "deadline_event", "deadlines_calendar"]
