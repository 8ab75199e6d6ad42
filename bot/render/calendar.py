"""The deadline of a round as an iCalendar (RFC 5545) event, for the
reminder's ``.ics`` attachment: players import it into their calendar.

Written with the ``icalendar`` library (a well-kept RFC 5545 implementation)
rather than by hand: folding, escaping and the time formats are its job.
The event's UID is stable per round and game, so importing the reminder of
the same round twice updates the one entry instead of adding a second. Its
words (summary, description) are the macros of ``templates/mail/calendar.j2``.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from icalendar import Alarm, Calendar, Event
from jinja2 import Environment

from bot.render.environment import Environments, environment_for
from bot.render.errors import InvalidTimeError
from bot.render.model import RoundInfo
from bot.render.textwidth import clean

#: How long before the deadline the calendar entry alarms.
ALARM_BEFORE = timedelta(hours=2)


def calendar_file_name(round_info: RoundInfo) -> str:
    return f"turnited-round-{round_info.number}.ics"


def deadline_event(
    *, round_info: RoundInfo, deadline: datetime, now: datetime, game_name: str,
    language: str, address: str | None = None, env: Environment | Environments | None = None,
) -> bytes:
    """An ``.ics`` calendar with one event at ``deadline`` (zero length, an
    alarm two hours before), in ``language``. ``address`` (the game's mail
    address) is named in the description and gives the UID's domain."""
    for name, moment in (("deadline", deadline), ("now", now)):
        if moment.tzinfo is None or moment.utcoffset() is None:
            raise InvalidTimeError(f"{name} {moment.isoformat()!r} is naive: pass an aware time")
    words: Any = environment_for(language, env).get_template("calendar.j2").module
    game = clean(game_name).strip()
    domain = address.rsplit("@", 1)[1] if address and "@" in address else "turnited.invalid"
    summary = str(words.summary(game, round_info))
    text = str(words.description(round_info, address))

    cal = Calendar()
    cal.add("prodid", f"-//Turnited//{game}//{language.upper()}")
    cal.add("version", "2.0")
    cal.add("method", "PUBLISH")
    event = Event()
    slug = "".join(ch if ch.isalnum() else "-" for ch in game.lower()) or "turnited"
    event.add("uid", f"{slug}-round-{round_info.number}-deadline@{domain}")
    event.add("dtstamp", now.astimezone(deadline.tzinfo).replace(microsecond=0))
    event.add("dtstart", deadline.replace(microsecond=0))
    event.add("dtend", deadline.replace(microsecond=0))
    event.add("summary", summary)
    event.add("description", text)
    event.add("transp", "TRANSPARENT")
    alarm = Alarm()
    alarm.add("action", "DISPLAY")
    alarm.add("description", summary)
    alarm.add("trigger", -ALARM_BEFORE)
    event.add_component(alarm)
    cal.add_component(event)
    return cal.to_ical()


__all__ = ["ALARM_BEFORE", "calendar_file_name", "deadline_event"]
