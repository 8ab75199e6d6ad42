"""The answers to ``Passwort vergessen`` (RULES.md §9) are notices of the reply,
German and English: a new password, asked again too soon, an unknown address."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.league.outcome import ManagerInfo, MoveOutcome, Notice
from bot.mail.quotes import BOT_REPLY_MARKER
from bot.render.reply import render_reply
from bot.service.commands.forgot_password import (
    FORGOT_UNKNOWN,
    PASSWORD_RESET,
    PASSWORD_TOO_SOON,
)

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def answer(code: str, language: str) -> str:
    known = code != FORGOT_UNKNOWN
    outcome = MoveOutcome(
        manager=ManagerInfo("uwe@example.org", "Uwe Öz", False) if known else None,
        accepted=True, round=3, late=False, deadline=None, language=language,
        notices=[Notice(code, {"password": "kiwi-7-tor", "address": "fremd@example.org"})],
    )
    return render_reply(outcome, subject="AW: Passwort vergessen", now=NOW,
                        timezone="Europe/Berlin", game_name="Turnited",
                        game_address="gm@turnited.example").text


@pytest.mark.parametrize("language", ["de", "en"])
@pytest.mark.parametrize("code", [PASSWORD_RESET, PASSWORD_TOO_SOON, FORGOT_UNKNOWN])
def test_each_answer_in_each_language(code: str, language: str) -> None:
    text = answer(code, language)
    assert text.startswith(BOT_REPLY_MARKER)
    assert {"de": "Passwort", "en": "password"}[language] in text
    if code == PASSWORD_RESET:
        label = {"de": "Passwort: kiwi-7-tor", "en": "Password: kiwi-7-tor"}[language]
        assert f"\n    {label}\n" in text  # a line of its own, to copy
        assert "gm@turnited.example" in text
    else:
        assert "kiwi-7-tor" not in text
    if code == FORGOT_UNKNOWN:
        assert "fremd@example.org" in text and "Uwe" not in text
    else:
        assert ("Hallo Uwe Öz," if language == "de" else "Hello Uwe Öz,") in text
    if language == "de":  # nothing left in English
        assert "the game master" not in text and "Hello" not in text
    assert max(len(line) for line in text.splitlines()) <= 76
