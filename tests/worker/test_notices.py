"""The worker's notices to the game master: every word from the message
catalog, in the game's language, with real plurals."""

from __future__ import annotations

import pytest

from bot.worker.notices import CODES, render_notice

DEADLINE = "2026-12-06 20:00 Europe/Berlin (2026-12-06 19:00 UTC)"


@pytest.mark.parametrize("code", CODES)
def test_every_notice_in_german_and_english(code: str) -> None:
    de = render_notice(code, "de", deadline=DEADLINE, error="timed out", retry=30, rounds=[4])
    en = render_notice(code, "en", deadline=DEADLINE, error="timed out", retry=30, rounds=[4])
    assert de != en
    for subject, text in (de, en):
        assert subject and "\n" not in subject
        assert DEADLINE in text
        assert "%(" not in text and "(s)" not in text and "(n)" not in text
    english_words = ("The ", "inbox", "evaluation", "seconds", "round")
    assert not any(word in de[0] + de[1] for word in english_words), de


def test_inbox_unreadable_says_the_error_and_the_next_attempt() -> None:
    subject, text = render_notice("inbox_unreadable", "de", deadline=DEADLINE,
                                  error="OSError: connection refused", retry=60)
    assert subject == "Posteingang nicht lesbar – Auswertung wartet"
    assert text == (
        f"Der Einsendeschluss {DEADLINE} ist erreicht, aber der Posteingang konnte nicht "
        "gelesen werden:\n\n    OSError: connection refused\n\nDie Runde wird erst "
        "ausgewertet, wenn alle bis dahin eingegangenen Mails gelesen sind, damit keine "
        "Aufstellung fehlt. Der Bot versucht es weiter (nächster Versuch in 60 Sekunden) "
        "und meldet sich, sobald es geklappt hat.")


@pytest.mark.parametrize(("retry", "de", "en"), [
    (1, "in 1 Sekunde erneut", "tries again in 1 second;"),
    (90, "in 90 Sekunden erneut", "tries again in 90 seconds;"),
])
def test_seconds_are_plural_unless_one(retry: int, de: str, en: str) -> None:
    assert de in render_notice("evaluation_failed", "de", deadline=DEADLINE, error="x",
                               retry=retry)[1]
    assert en in render_notice("evaluation_failed", "en", deadline=DEADLINE, error="x",
                               retry=retry)[1]


@pytest.mark.parametrize(("rounds", "de", "en"), [
    ([7], "Ausgewertete Runde: 7.", "Round evaluated: 7."),
    ([7, 8], "Ausgewertete Runden: 7, 8.", "Rounds evaluated: 7, 8."),
    ([], "Keine Runde wurde ausgewertet.", "No round was evaluated."),
])
def test_the_rounds_evaluated_after_the_inbox_recovered(rounds: list[int], de: str,
                                                        en: str) -> None:
    subject, text = render_notice("inbox_recovered", "de", deadline=DEADLINE, rounds=rounds)
    assert subject == "Posteingang wieder lesbar" and text.endswith(de)
    subject, text = render_notice("inbox_recovered", "en", deadline=DEADLINE, rounds=rounds)
    assert subject == "Inbox readable again" and text.endswith(en)


def test_an_unknown_language_is_german_and_an_unknown_code_an_error() -> None:
    assert render_notice("evaluation_failed", "fr", deadline=DEADLINE)[0] == (
        "Auswertung fehlgeschlagen")
    with pytest.raises(ValueError, match="'nope'"):
        render_notice("nope", "de", deadline=DEADLINE)
