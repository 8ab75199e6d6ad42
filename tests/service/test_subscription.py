"""``Abmelden`` / ``Unsubscribe`` and ``Anmelden`` / ``Subscribe`` through the
real mail path (RULES.md §12): no password to leave, the reply to the
registered address only, the list headers of every newsletter and reminder
turned by a mail client into exactly that mail, and no newsletter and no
reminder afterwards while every mail is still answered and the teams play."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import pytest

from bot.service import remind
from tests.service.business_app import (
    BOT,
    League,
    flat,
    kind,
    of_kind,
    text_of,
    to,
)

ANNA = "anna@player.example"  # writes German
BOB = "bob@player.example"  # writes English
CARL = "carl@player.example"  # stays on the list


@pytest.fixture
def league(tmp_path: Path) -> League:
    return League(tmp_path)


def unsubscribed(league: League, address: str) -> bool:
    (row,) = league.sql("SELECT unsubscribed_at FROM managers WHERE address = ?", address)
    return row[0] is not None


def test_unsubscribe_needs_no_password_and_answers_the_registered_address(
        league: League) -> None:
    league.register(ANNA, "Rote Teufel", "10-10-15-15-20")
    # A bare mail, the address spelled otherwise, a Reply-To elsewhere: no password.
    (reply,) = league.send("Anna <ANNA@Player.Example>", "", "Abmelden",
                           Reply_To="someone@else.example")
    assert to(reply) == ANNA and kind(reply) == "reply"
    assert "Du bist abgemeldet: Ab jetzt bekommst du keine Newsletter" in flat(reply)
    assert "Rote Teufel" in text_of(reply)  # the teams still stand as they were
    assert unsubscribed(league, ANNA)
    (again,) = league.send(ANNA, "Abmelden")
    assert "Du warst schon abgemeldet" in flat(again) and unsubscribed(league, ANNA)


def test_english_unsubscribe_and_subscribe_again_with_the_password(league: League) -> None:
    password = league.register(BOB, "Blue Eagles", "4-6-20-22-19", english=True)
    (reply,) = league.send(BOB, "Unsubscribe", "Unsubscribe")
    assert "You are unsubscribed: from now on you get no newsletters" in flat(reply)
    # Subscribing again is the manager's: without the password nothing changes.
    (refused,) = league.send(BOB, "Subscribe", "Subscribe")
    assert "ERRORS" in text_of(refused) and "password" in flat(refused)
    assert unsubscribed(league, BOB)
    (reply,) = league.send(BOB, f"Subscribe\nPassword: {password}", "Subscribe")
    assert "You are subscribed again" in flat(reply) and not unsubscribed(league, BOB)
    (reply,) = league.send(BOB, f"Subscribe\nPassword: {password}", "Subscribe")
    assert "You get the newsletters and reminders already" in flat(reply)


def test_german_subscribe_again(league: League) -> None:
    password = league.register(ANNA, "Rote Teufel", "10-10-15-15-20")
    league.send(ANNA, "Abmelden")
    (reply,) = league.send(ANNA, f"Anmelden\nPasswort: {password}")
    assert "Du bist wieder angemeldet" in flat(reply) and not unsubscribed(league, ANNA)


def test_a_stranger_is_told_and_nothing_is_stored(league: League) -> None:
    (reply,) = league.send("fremd@player.example", "", "Unsubscribe")
    assert "No manager is registered with the address fremd@player.example" in flat(reply)
    # "Anmelden" from a stranger means he wants to play: how to register.
    (reply,) = league.send("neu@player.example", "Anmelden")
    assert ("Unter der Adresse neu@player.example ist noch kein Manager eingetragen. "
            "Melde ein Team an") in flat(reply)
    assert league.sql("SELECT COUNT(*) FROM managers") == [(0,)]


def test_a_sentence_that_starts_alike_is_no_command(league: League) -> None:
    league.register(ANNA, "Rote Teufel", "10-10-15-15-20")
    league.send(ANNA, "Abmelden möchte ich mich nicht, nur fragen")
    assert not unsubscribed(league, ANNA)


def leave_by_the_button(league: League, address: str, newsletter_or_reminder) -> list:
    """What a mail client's unsubscribe button does with the List-Unsubscribe
    header: a new mail to the mailto address with its subject, empty body."""
    uri = newsletter_or_reminder["List-Unsubscribe"].strip().removeprefix("<").removesuffix(">")
    parts = urlsplit(uri)
    assert parts.scheme == "mailto"
    (subject,) = parse_qs(parts.query)["subject"]
    return league.send(address, "", subject, to=unquote(parts.path))


def test_the_list_unsubscribe_button_leaves_the_list(league: League) -> None:
    passwords = {ANNA: league.register(ANNA, "Rote Teufel", "10-10-15-15-20"),
                 BOB: league.register(BOB, "Blue Eagles", "4-6-20-22-19", english=True),
                 CARL: league.register(CARL, "Grüne Jäger", "5-5-19-23-18")}
    first = of_kind(league.evaluate(), "newsletter")
    assert sorted(first) == [ANNA, BOB, CARL]
    for address, msg in first.items():
        command = "Unsubscribe" if address == BOB else "Abmelden"
        assert msg["List-Unsubscribe"].strip() == f"<mailto:{BOT}?subject={command}>"
        assert msg["List-Id"] == '"Turnited Test" <turnited.game.example>'

    (reply,) = leave_by_the_button(league, ANNA, first[ANNA])
    assert to(reply) == ANNA and "Du bist abgemeldet" in flat(reply)
    (reply,) = leave_by_the_button(league, BOB, first[BOB])
    assert to(reply) == BOB and "You are unsubscribed" in flat(reply)

    # Round 2: Carl alone is reminded; his reminder carries the same headers.
    reminders = of_kind(league.remind(48), "reminder")
    assert sorted(reminders) == [CARL]
    assert reminders[CARL]["List-Unsubscribe"].strip() == f"<mailto:{BOT}?subject=Abmelden>"
    assert reminders[CARL]["List-Id"] == first[CARL]["List-Id"]
    # The game master's "remind --missing" leaves them out as well.
    assert remind.remind_missing(league.app.services).queued == 1
    assert sorted(of_kind(league.flush(), "reminder")) == [CARL]

    # Anna still plays when she sends a lineup, and is still answered.
    league.clock.now += timedelta(hours=1)
    (reply,) = league.send(ANNA, f"Passwort: {passwords[ANNA]}\nRote Teufel: 9-9-16-16-20")
    assert "9-9-16-16-20" in text_of(reply)
    league.send(CARL, f"Passwort: {passwords[CARL]}\nGrüne Jäger: 5-5-19-23-18")
    second = league.evaluate()
    assert sorted(of_kind(second, "newsletter")) == [CARL]
    assert [to(m) for m in second if kind(m) == "reminder"] == []
    played = league.sql("SELECT t.name FROM round_entries e JOIN teams t ON t.id = e.team_id"
                        " WHERE e.round = 2 ORDER BY t.name")
    assert played == [("Grüne Jäger",), ("Rote Teufel",)]
