"""bot/render/reasons.py: German and English wording for the grammar's new
problems (too-long lines and Subjects, too-long lineups); templates/shared/
reasons.j2: its notes (typo, comment, signature, long text), suggestions and
name refusals, in both languages from the message catalog."""

from __future__ import annotations

import pytest

from bot.league.names import GmLookAlikeName, check_new_name
from bot.render.environment import make_environment
from bot.render.reasons import german_reason, reason
from bot.rules import requests
from tests.support.grammar import parse_moves

#: The macros of templates/shared/reasons.j2, per language.
WORDS = {lang: make_environment(lang).get_template("reasons.j2").module for lang in ("de", "en")}


def note_text(kind: str, text: str, value: str | None, language: str) -> str:
    return str(WORDS[language].note(kind, text, value))


def suggestion_text(suggestion: str, language: str) -> str:
    return str(WORDS[language].suggestion(suggestion))


def name_refusal(kind: str, name: str, language: str, other: str = "") -> str:
    return str(WORDS[language].name_refusal(kind, name, other))


def test_every_note_kind_of_the_grammar_has_both_wordings() -> None:
    kinds = {requests.TYPO, requests.COMMENT, requests.SIGNATURE, requests.LONG_TEXT}
    for kind in kinds:
        german = note_text(kind, "Aufstelung", "Aufstellung", "de")
        english = note_text(kind, "Aufstelung", "Aufstellung", "en")
        assert german and english and german != english
        assert "Aufstelung" in german and "Aufstelung" in english


def test_the_notes_of_the_brief_read_as_asked() -> None:
    moves = parse_moves("", "Aufstelung: 10-10-15-15-20 (diesmal offensiv)")
    said = [note_text(n.kind, n.text, n.value, "de") for n in moves.notes]
    assert said == ["„Aufstelung“ als „Aufstellung“ gelesen",
                    "Kommentar übergangen: (diesmal offensiv)"]
    said = [note_text(n.kind, n.text, n.value, "en") for n in moves.notes]
    assert said == ['read "Aufstelung" as "Aufstellung"', "Comment skipped: (diesmal offensiv)"]


@pytest.mark.parametrize(
    ("subject", "text", "german"),
    [
        ("", "Aufstellung: " + "1" * 5000,
         "die Zeile ist zu lang (5013 Zeichen; gelesen werden höchstens 1000)"),
        ("Aufstellung: " + "1-" * 5000, "",
         "der Betreff ist zu lang (10013 Zeichen; gelesen werden höchstens 1000)"),
        ("", "Aufstellung: " + "T1 " * 100,
         "ist zu lang für eine Aufstellung (299 Zeichen, höchstens 200)"),
        ("", "Aufstellung: " + "1-" * 100, "100 Zahlen statt fünf"),
    ],
)
def test_new_line_errors_have_a_german_wording(subject: str, text: str, german: str) -> None:
    [error] = parse_moves(subject, text).errors
    assert german in german_reason(error.reason)
    assert reason(error.reason, "en") == error.reason


def test_suggestions_and_name_refusals_in_both_languages() -> None:
    assert suggestion_text("10-10-15-15-20", "de") == "Meintest du 10-10-15-15-20?"
    assert suggestion_text("10-10-15-15-20", "en") == "Did you mean 10-10-15-15-20?"
    with pytest.raises(GmLookAlikeName) as raised:
        check_new_name("gm 10/10/16/15/39")
    german = name_refusal("gm_look_alike", raised.value.name, "de")
    assert "„gm 10/10/16/15/39“" in german and "GM" in german
    english = name_refusal("confusable", "Rоte Teufel", "en", other="Rote Teufel")
    assert '"Rote Teufel"' in english and "Cyrillic" in english
    german = name_refusal("confusable", "Rоte Teufel", "de", other="Rote Teufel")
    assert "„Rote Teufel“" in german and "kyrillisches" in german


def test_describe_note_reads_a_note_of_the_grammar() -> None:
    [typo] = parse_moves("", "Staus").notes
    assert note_text(typo.kind, typo.text, typo.value, "de") == "„Staus“ als „Status“ gelesen"
    assert note_text(typo.kind, typo.text, typo.value, "en") == 'read "Staus" as "Status"'
