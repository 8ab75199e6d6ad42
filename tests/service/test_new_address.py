"""``Neue Adresse`` / ``New address`` and ``Bestätigen`` / ``Confirm`` through
the real mail path (RULES.md §12): a code mailed to the new address, the
move when a mail from there carries it within 7 days, teams, WP, PSZ and
password moved, the old address told; and every bad input a clear reply
that changes nothing (a malformed or taken address, a wrong, expired,
reused or replaced code, a code from the wrong address, too many tries)."""

from __future__ import annotations

import re
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest

from bot.league.confirmations import MAX_WRONG
from tests.service.business_app import GAME, League, flat, kind, of_kind, text_of, to

ANNA = "anna@player.example"
NEW = "anna.neu@mail.example"
BOB = "bob@player.example"
BOB_NEW = "robert@mail.example"


@pytest.fixture
def league(tmp_path: Path) -> League:
    return League(tmp_path)


def state(league: League) -> list[tuple[object, ...]]:
    """Everything a move may change: managers with their teams, WP, PSZ."""
    return league.sql(
        "SELECT m.address, m.password_hash, t.name, t.wp, t.psz FROM managers m"
        " LEFT JOIN teams t ON t.manager_id = m.id ORDER BY m.id, t.id")


def code_in(msg: EmailMessage) -> str:
    found = re.search(r"^    (?:Bestätigen|Confirm): (\S+)$", text_of(msg), re.M)
    assert found, text_of(msg)
    return found.group(1)


def ask(league: League, sender: str, body: str, subject: str = "Adresse"
        ) -> tuple[EmailMessage, EmailMessage | None]:
    """Send a request; the reply and the code mail (if one was sent)."""
    mails = league.send(sender, body, subject)
    replies = [m for m in mails if to(m) == sender]
    assert len(replies) == 1, [to(m) for m in mails]
    others = [m for m in mails if to(m) != sender]
    return replies[0], (others[0] if others else None)


def test_a_german_manager_moves_to_a_new_address(league: League) -> None:
    password = league.register(ANNA, "Rote Teufel", "10-10-15-15-20")
    league.evaluate()  # the team has played: WP and PSZ of its own
    before = state(league)
    reply, code_mail = ask(league, ANNA, f"Neue Adresse: {NEW}\nPasswort: {password}")
    assert "Ein Bestätigungscode ist an anna.neu@mail.example unterwegs" in flat(reply)
    assert code_mail is not None and to(code_mail) == NEW and kind(code_mail) == "reply"
    assert code_mail["Subject"] == f"{GAME}: Bestätige deine neue Adresse"
    assert password not in text_of(code_mail) and ANNA not in text_of(code_mail)
    assert state(league) == before  # nothing moves before the confirmation

    mails = league.send(NEW, f"Bestätigen: {code_in(code_mail)}", "Re: Bestätigen")
    moved = {to(m): m for m in mails}
    assert sorted(moved) == sorted([ANNA, NEW])
    assert (f"Deine Teams, WP, PSZ und dein Passwort sind von {ANNA} an {NEW} umgezogen"
            in flat(moved[NEW]))
    assert "Rote Teufel" in text_of(moved[NEW])  # his teams, in the reply to the new address
    assert moved[ANNA]["Subject"] == f"{GAME}: Deine Teams sind an eine neue Adresse umgezogen"
    assert f"deine Teams, WP, PSZ und dein Passwort sind an {NEW} umgezogen" in flat(moved[ANNA])
    assert state(league) == [(NEW, *before[0][1:])]

    # The password works from the new address; the old one is a stranger now.
    (reply,) = league.send(NEW, f"Passwort: {password}\nRote Teufel: 9-9-16-16-20")
    assert "9-9-16-16-20" in text_of(reply) and "FEHLER" not in text_of(reply)
    (reply,) = league.send(ANNA, "Status")
    assert f"Unter der Adresse {ANNA} ist noch kein Manager eingetragen" in flat(reply)
    assert sorted(of_kind(league.evaluate(), "newsletter")) == [NEW]


def test_an_english_manager_moves(league: League) -> None:
    password = league.register(BOB, "Blue Eagles", "4-6-20-22-19", english=True)
    reply, code_mail = ask(league, BOB, f"New address: Robert <{BOB_NEW}>\n"
                                        f"Password: {password}", "Address")
    assert f"A confirmation code is on its way to {BOB_NEW}" in flat(reply)
    assert code_mail is not None and code_mail["Subject"] == f"{GAME}: confirm your new address"
    assert "A manager of this game asked to move his teams to this mail address" in flat(
        code_mail)
    mails = league.send(BOB_NEW, f"Confirm: {code_in(code_mail).lower()}", "Confirm")
    moved = {to(m): m for m in mails}
    assert f"have moved from {BOB} to {BOB_NEW}" in flat(moved[BOB_NEW])
    assert moved[BOB]["Subject"] == f"{GAME}: your teams moved to a new address"
    assert league.sql("SELECT address FROM managers") == [(BOB_NEW,)]


def test_bad_addresses_change_nothing(league: League) -> None:
    password = league.register(ANNA, "Rote Teufel", "10-10-15-15-20")
    league.register(BOB, "Blaue Jungs", "5-5-25-25-25")
    before = state(league)
    for line, words in (
        ("Neue Adresse: anna-at-mail.example", "keine einzelne Mailadresse wie neu@example.org"),
        ("Neue Adresse: a@b.example, c@d.example", "keine einzelne Mailadresse"),
        ("Neue Adresse:", "nach dem Stichwort fehlt die Adresse"),
        (f"Neue Adresse: {ANNA.upper()}", f"{ANNA} ist schon deine Adresse"),
        (f"Neue Adresse: {BOB}", f"Die Adresse {BOB} kann nicht deine werden"),
        ("Neue Adresse: turnited@game.example", "kann nicht deine werden"),
    ):
        reply, code_mail = ask(league, ANNA, f"{line}\nPasswort: {password}")
        assert code_mail is None, line
        assert "FEHLER" in text_of(reply) and words in flat(reply), (line, flat(reply))
        assert "Wegen der Fehler oben wurde aus dieser Mail nichts gespeichert" in flat(reply)
    # without the password nothing is asked for at all
    reply, code_mail = ask(league, ANNA, f"Neue Adresse: {NEW}")
    assert code_mail is None and "Passwort" in flat(reply)
    assert state(league) == before
    assert league.sql("SELECT COUNT(*) FROM confirmations") == [(0,)]


def test_bad_codes_change_nothing(league: League) -> None:
    password = league.register(ANNA, "Rote Teufel", "10-10-15-15-20")
    _, code_mail = ask(league, ANNA, f"Neue Adresse: {NEW}\nPasswort: {password}")
    assert code_mail is not None
    code = code_in(code_mail)
    before = state(league)
    (reply,) = league.send(NEW, "Bestätigen: ja")
    assert "kein Bestätigungscode: acht Buchstaben und Ziffern" in flat(reply)
    (reply,) = league.send(NEW, "Bestätigen: AAAA-BBBB")
    assert ("Der Code ist nicht der, der dir geschickt wurde; es wurde nichts geändert. "
            f"Du hast noch {MAX_WRONG - 1} Versuche.") in flat(reply)
    (reply,) = league.send(ANNA, f"Bestätigen: {code}\nPasswort: {password}")  # wrong sender
    assert "Von dieser Adresse wartet keine Anfrage auf eine Bestätigung" in flat(reply)
    assert state(league) == before
    # the right code from the right address still works, once
    mails = league.send(NEW, f"Bestätigen: {code}")
    assert sorted(to(m) for m in mails) == sorted([ANNA, NEW])
    (reply,) = league.send(NEW, f"Bestätigen: {code}\nPasswort: {password}")
    assert "Dieser Code wurde schon benutzt" in flat(reply)
    assert league.sql("SELECT address FROM managers") == [(NEW,)]


def test_an_expired_code_changes_nothing(league: League) -> None:
    password = league.register(ANNA, "Rote Teufel", "10-10-15-15-20")
    _, code_mail = ask(league, ANNA, f"Neue Adresse: {NEW}\nPasswort: {password}")
    assert code_mail is not None
    league.clock.now += timedelta(days=7, minutes=1)
    (reply,) = league.send(NEW, f"Bestätigen: {code_in(code_mail)}")
    assert "Dieser Code galt bis" in flat(reply) and "ist abgelaufen" in flat(reply)
    assert league.sql("SELECT address FROM managers") == [(ANNA,)]


def test_a_newer_request_replaces_the_older(league: League) -> None:
    password = league.register(ANNA, "Rote Teufel", "10-10-15-15-20")
    _, first = ask(league, ANNA, f"Neue Adresse: {NEW}\nPasswort: {password}")
    _, second = ask(league, ANNA, f"Neue Adresse: anna@other.example\nPasswort: {password}")
    assert first is not None and second is not None
    (reply,) = league.send(NEW, f"Bestätigen: {code_in(first)}")
    assert "nur der neueste Code gilt" in flat(reply)
    assert league.sql("SELECT address FROM managers") == [(ANNA,)]
    mails = league.send("anna@other.example", f"Bestätigen: {code_in(second)}")
    assert len(mails) == 2
    assert league.sql("SELECT address FROM managers") == [("anna@other.example",)]


def test_too_many_wrong_codes_block_the_request(league: League) -> None:
    password = league.register(ANNA, "Rote Teufel", "10-10-15-15-20")
    _, code_mail = ask(league, ANNA, f"Neue Adresse: {NEW}\nPasswort: {password}",)
    assert code_mail is not None
    for left in range(MAX_WRONG - 1, -1, -1):
        league.clock.now += timedelta(minutes=1)
        (reply,) = league.send(NEW, "Confirm: AAAA-BBBB", "Confirm")
        assert f"You may try {left} more time" in flat(reply)
    (reply,) = league.send(NEW, f"Confirm: {code_in(code_mail)}", "Confirm")
    assert f"After {MAX_WRONG} wrong codes from this address its requests are blocked" in flat(
        reply)
    assert league.sql("SELECT address FROM managers") == [(ANNA,)]
    # asking again gives a new code that works
    league.clock.now += timedelta(minutes=1)
    _, again = ask(league, ANNA, f"Neue Adresse: {NEW}\nPasswort: {password}")
    assert again is not None
    assert len(league.send(NEW, f"Bestätigen: {code_in(again)}")) == 2


def test_an_address_that_got_a_manager_meanwhile_is_not_taken_over(league: League) -> None:
    password = league.register(ANNA, "Rote Teufel", "10-10-15-15-20")
    _, code_mail = ask(league, ANNA, f"Neue Adresse: {NEW}\nPasswort: {password}")
    assert code_mail is not None
    other = league.register(NEW, "Grüne Jäger", "5-5-19-23-18")  # someone plays from there
    (reply,) = league.send(NEW, f"Bestätigen: {code_in(code_mail)}\nPasswort: {other}")
    assert f"Die Adresse {NEW} kann nicht deine werden" in flat(reply)
    assert league.sql("SELECT address FROM managers ORDER BY id") == [(ANNA,), (NEW,)]
