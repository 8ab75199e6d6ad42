"""``Sprache: Englisch`` / ``Language: German`` through the real mail path
(RULES.md §12): the reply to that mail, every later reply, the newsletter
and the reminders are in the chosen language, whatever the manager writes
in; an unknown language is an error of its line that changes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.service.business_app import League, flat, kind, of_kind, text_of

ANNA = "anna@player.example"  # writes German
BOB = "bob@player.example"  # writes English


@pytest.fixture
def league(tmp_path: Path) -> League:
    return League(tmp_path)


def language(league: League, address: str) -> tuple[object, bool]:
    ((stored, chosen),) = league.sql(
        "SELECT language, language_chosen_at FROM managers WHERE address = ?", address)
    return stored, chosen is not None


def test_a_german_player_chooses_english_for_good(league: League) -> None:
    password = league.register(ANNA, "Rote Teufel", "10-10-15-15-20")
    assert language(league, ANNA) == ("de", False)
    (reply,) = league.send(ANNA, f"Hallo,\nSprache: Englisch\nPasswort: {password}\nGruß")
    assert reply["Content-Language"] == "en"
    assert "From now on you get replies, newsletters and reminders in English" in flat(reply)
    assert "Your teams for round 1" in text_of(reply)
    assert language(league, ANNA) == ("en", True)
    # A later mail in German is still answered in English, and changes nothing about it.
    (reply,) = league.send(ANNA, f"Hallo,\nPasswort: {password}\nAufstellung: 9-9-16-16-20\n"
                                 "Viele Grüße")
    assert reply["Content-Language"] == "en" and 'New lineup for "Rote Teufel"' in text_of(reply)
    assert language(league, ANNA) == ("en", True)
    # The newsletter and the reminder follow.
    newsletter = of_kind(league.evaluate(), "newsletter")[ANNA]
    assert newsletter["Content-Language"] == "en" and "results of round 1" in newsletter["Subject"]
    reminder = of_kind(league.remind(48), "reminder")[ANNA]
    assert reminder["Content-Language"] == "en"
    assert reminder["List-Unsubscribe"].strip().endswith("?subject=Unsubscribe>")


def test_an_english_player_chooses_german(league: League) -> None:
    password = league.register(BOB, "Blue Eagles", "4-6-20-22-19", english=True)
    (reply,) = league.send(BOB, f"Language: German\nPassword: {password}", "Language")
    assert reply["Content-Language"] == "de"
    assert "Ab jetzt bekommst du Antworten, Newsletter und Erinnerungen auf Deutsch" in flat(reply)
    assert language(league, BOB) == ("de", True)
    (reply,) = league.send(BOB, f"Hello,\nPassword: {password}\nStatus\nCheers", "Status")
    assert reply["Content-Language"] == "de"


@pytest.mark.parametrize(("written", "code"), [
    ("Sprache: en", "en"), ("Sprache = ENGLISH", "en"), ("Sprache: auf Englisch", "en"),
    ("language: Deutsch.", "de"), ("Language - de", "de"), ("Sprache: in German", "de"),
])
def test_the_ways_to_name_a_language(league: League, written: str, code: str) -> None:
    password = league.register(ANNA, "Rote Teufel", "10-10-15-15-20")
    (reply,) = league.send(ANNA, f"{written}\nPasswort: {password}")
    assert kind(reply) == "reply" and language(league, ANNA) == (code, True)


def test_an_unknown_language_is_a_clear_error_that_changes_nothing(league: League) -> None:
    password = league.register(ANNA, "Rote Teufel", "10-10-15-15-20")
    (reply,) = league.send(ANNA, f"Sprache: Klingonisch\nPasswort: {password}\n"
                                 "Rote Teufel: 9-9-16-16-20")
    text = flat(reply)
    assert reply["Content-Language"] == "de" and "FEHLER" in text
    assert ("„Sprache: Klingonisch“ – unbekannte Sprache; schreibe Deutsch (German) oder "
            "Englisch (English).") in text
    assert "Sprache: Englisch" in text  # the right form
    assert language(league, ANNA) == ("de", False)
    # the lineup of the same mail stands: each team stands alone (RULES.md §11)
    assert league.sql("SELECT COUNT(*) FROM moves WHERE lineup = '9-9-16-16-20'") == [(1,)]


def test_an_unknown_language_in_english(league: League) -> None:
    password = league.register(BOB, "Blue Eagles", "4-6-20-22-19", english=True)
    (reply,) = league.send(BOB, f"Language: French\nPassword: {password}", "Language")
    text = flat(reply)
    assert reply["Content-Language"] == "en" and "ERRORS" in text
    assert ('"Language: French" - unknown language; write German (Deutsch) or English '
            '(Englisch).') in text
    assert language(league, BOB) == ("en", False)
    (reply,) = league.send(BOB, f"Language:\nPassword: {password}", "Language")
    assert "no language after the keyword" in flat(reply)
    assert language(league, BOB) == ("en", False)


def test_choosing_needs_the_password(league: League) -> None:
    league.register(ANNA, "Rote Teufel", "10-10-15-15-20")
    (reply,) = league.send(ANNA, "Sprache: Englisch")
    assert "FEHLER" in text_of(reply) and language(league, ANNA) == ("de", False)


def test_a_stranger_is_answered_in_the_language_he_asks_for(league: League) -> None:
    (reply,) = league.send("neu@player.example", "Hallo,\nSprache: Englisch\nGruß")
    assert reply["Content-Language"] == "en"
    assert "There is no manager with the address neu@player.example yet" in flat(reply)
    assert league.sql("SELECT COUNT(*) FROM managers") == [(0,)]


def test_a_sentence_that_starts_with_the_keyword_is_text(league: League) -> None:
    """Without a colon a line must make sense as the command; else it is text
    (listed as not understood) and the rest of the mail is carried out."""
    password = league.register(ANNA, "Rote Teufel", "10-10-15-15-20")
    (reply,) = league.send(ANNA, f"Sprache ist mir egal\nPasswort: {password}\n"
                                 "Rote Teufel: 9-9-16-16-20")
    assert "FEHLER" not in text_of(reply) and "| Sprache ist mir egal" in text_of(reply)
    assert league.sql("SELECT COUNT(*) FROM moves WHERE lineup = '9-9-16-16-20'") == [(1,)]
    assert language(league, ANNA) == ("de", False)
    (reply,) = league.send(ANNA, f"Sprache Englisch\nPasswort: {password}")  # a command
    assert language(league, ANNA) == ("en", True)
