"""Greetings and prose (RULES.md §11; bot.mail.prose): what the grammar does
with lines that are no command."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.mail.prose import MAX_GREETING, Kind, is_greeting, judge
from tests.support.grammar import parse_moves


@pytest.mark.parametrize("line", [
    "Hallo Spielleitung,", "Moin!", "Moin moin", "Hi GM,", "Hallo zusammen!", "Liebe Leute,",
    "Dear game master,", "Good morning everyone!", "Servus", "Guten Abend zusammen,",
    "Hey Jens,", "Sehr geehrte Spielleitung,",
])
def test_greetings(line: str) -> None:
    assert is_greeting(line)


@pytest.mark.parametrize("line", [
    "Hallo, wann ist der nächste Einsendeschluss?", "Hi GM, Rote Teufel: 10-10-15-15-20",
    "Hallo " + "x" * MAX_GREETING, "Hilfe", "Rote Teufel", "Team: Hallo",
])
def test_no_greetings(line: str) -> None:
    assert not is_greeting(line)


@pytest.mark.parametrize(("line", "kind"), [
    # a message to a person
    ("Was ist eigentlich die PSZ?", Kind.MESSAGE),
    ("Wie melde ich mich an?", Kind.MESSAGE),
    ("Can I still change my lineup after the deadline?", Kind.MESSAGE),
    ("Ich bin die nächsten zwei Wochen im Urlaub", Kind.MESSAGE),
    ("Ich kann meine Aufstellung diese Woche nicht schicken, bitte nimm die alte", Kind.MESSAGE),
    # goes with the commands
    ("Hier meine Aufstellung:", Kind.QUIET),
    ("Here is my lineup for this round", Kind.QUIET),
    ("Viel Glück allen!", Kind.QUIET),
    ("Danke für die Auswertung", Kind.QUIET),
    ("Diesmal volle Offensive!", Kind.QUIET),
    # an attempted command
    ("Taktik: offensiv", Kind.ATTEMPT),
    ("Tabelle bitte", Kind.ATTEMPT),
    ("Tel. 0171-123-45-67", Kind.ATTEMPT),
    ("Rote Teufel", Kind.ATTEMPT),
])
def test_judge(line: str, kind: Kind) -> None:
    assert judge(line) is kind


def test_the_subject_is_a_message_only_as_a_question() -> None:
    assert judge("Turnited: Ergebnisse der Spielrunde 12", subject=True) is Kind.QUIET
    assert judge("Frage zur PSZ?", subject=True) is Kind.MESSAGE
    moves = parse_moves("Re: Turnited: Ergebnisse der Spielrunde 12", "")
    assert moves.prose == () and moves.ignored == ()


def test_a_greeting_only_as_the_first_line() -> None:
    moves = parse_moves("", "Hallo Spielleitung,\nRote Teufel: 10-10-15-15-20\nMoin!")
    assert moves.ignored == ("Moin!",)  # a short word at the end, no greeting any more


def test_a_question_after_the_sign_off_is_still_a_message() -> None:
    moves = parse_moves("", "Rote Teufel: 10-10-15-15-20\nGruß\nOle\nWann ist Auswertung?")
    assert moves.prose == ("Wann ist Auswertung?",)


def test_a_name_as_the_last_line_is_not_listed() -> None:
    moves = parse_moves("", "Rote Teufel: 10-10-15-15-20\nTaktik: offensiv\nSam")
    assert moves.ignored == ("Taktik: offensiv",)


@given(st.text(max_size=200))
def test_judge_and_greeting_take_any_line(line: str) -> None:
    assert judge(line) in Kind
    assert is_greeting(line) in (True, False)
