"""The reminder's calendar entry: an ``.ics`` event at the deadline, attached
by ``compose``; and the open round's seed commitment in the reminder."""

from __future__ import annotations

from datetime import timedelta
from email import message_from_bytes, policy

import pytest
from icalendar import Calendar

from bot.mail.compose import Attachment, InvalidHeaderError, compose
from bot.render.calendar import deadline_event
from bot.render.errors import InvalidTimeError
from bot.render.model import RoundInfo
from bot.render.reminder import render_reminder
from bot.rules.lots import seed_commitment
from tests.render.conftest import DEADLINE

INFO = RoundInfo(3, 2, 12)
NOW = DEADLINE - timedelta(days=2)


def reminder(**extra):
    return render_reminder(manager="Jürgen", teams=["Grüne Jäger"], round_info=INFO,
                           deadline=DEADLINE, now=NOW, timezone="Europe/Berlin",
                           language=extra.pop("language", "de"), game_name="Turnited",
                           game_address="turnited@example.org", **extra)


@pytest.mark.parametrize("language", ["de", "en"])
def test_the_event_is_at_the_deadline(language: str) -> None:
    ics = deadline_event(round_info=INFO, deadline=DEADLINE, now=NOW, game_name="Turnited",
                         language=language, address="turnited@example.org")
    cal = Calendar.from_ical(ics)
    (event,) = cal.walk("VEVENT")
    assert event.decoded("dtstart") == DEADLINE == event.decoded("dtend")
    assert str(event["uid"]) == "turnited-round-12-deadline@example.org"
    assert "12" in str(event["summary"]) and "turnited@example.org" in str(event["description"])
    (alarm,) = event.walk("VALARM")
    assert alarm.decoded("trigger") == -timedelta(hours=2)
    # the same round gives the same entry (a calendar updates, never doubles it)
    again = deadline_event(round_info=INFO, deadline=DEADLINE, now=NOW + timedelta(hours=1),
                           game_name="Turnited", language=language)
    assert str(Calendar.from_ical(again).walk("VEVENT")[0]["uid"]).startswith("turnited-round-12-")


def test_a_naive_deadline_is_refused() -> None:
    with pytest.raises(InvalidTimeError, match="naive"):
        deadline_event(round_info=INFO, deadline=DEADLINE.replace(tzinfo=None), now=NOW,
                       game_name="Turnited", language="de")


def test_the_reminder_attaches_the_deadline_and_prints_the_commitment() -> None:
    commitment = seed_commitment(12, 4711)
    mail = reminder(commitment=commitment)
    ((name, kind, data, method),) = mail.attachments
    assert (name, kind, method) == ("turnited-round-12.ics", "text/calendar", "PUBLISH")
    assert b"BEGIN:VEVENT" in data
    assert commitment in mail.text and commitment in mail.html
    plain = reminder(calendar=False)
    assert plain.attachments == () and "Prüfsumme" not in plain.text


def test_compose_attaches_files_deterministically() -> None:
    ics = reminder().attachments[0]
    args = dict(kind="reminder", sender="turnited@example.org", sender_name="Turnited",
                to="anna@example.org", subject="Erinnerung", text="Hallo Anna", html="<p>Hallo</p>",
                date=NOW, key="reminder/round-12/48h", attachments=[Attachment(*ics)])
    first, second = compose(**args), compose(**args)
    assert first.data == second.data
    msg = message_from_bytes(first.data, policy=policy.default)
    assert msg.get_content_type() == "multipart/mixed"
    body, attached = msg.iter_parts()
    assert body.get_content_type() == "multipart/alternative"
    assert attached.get_content_type() == "text/calendar"
    assert attached.get_param("method") == "PUBLISH"
    assert attached.get_filename() == "turnited-round-12.ics"
    assert attached.get_payload(decode=True) == ics[2]
    assert attached.get_content() == ics[2].decode("utf-8")
    assert msg.get_body(("plain",)).get_content().strip() == "Hallo Anna"
    without = compose(**{**args, "attachments": ()})
    assert message_from_bytes(without.data, policy=policy.default).get_content_type() == (
        "multipart/alternative")
    assert without.message_id == first.message_id


@pytest.mark.parametrize("name", ["../x.ics", "a b.ics", "", "x\r\n.ics"])
def test_compose_refuses_unsafe_attachment_names(name: str) -> None:
    with pytest.raises(InvalidHeaderError, match="attachment name"):
        compose(kind="reminder", sender="turnited@example.org", sender_name="T",
                to="anna@example.org", subject="s", text="t", date=NOW, key="k",
                attachments=[Attachment(name, "text/calendar", b"x")])
