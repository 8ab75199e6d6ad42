"""The mail with the password the game master gave (RULES.md §9), German and
English (the answers to ``Passwort vergessen`` are notices of the reply:
``test_forgot_notices.py``)."""

from __future__ import annotations

import pytest

from bot.mail.quotes import BOT_REPLY_MARKER
from bot.render.password import KINDS, render_password_mail


def mail(kind: str, language: str):
    return render_password_mail(
        kind, language=language, game_name="Turnited", game_address="gm@turnited.example",
        name="Uwe Öz", password="kiwi-7-tor", sender="fremd@example.org",
        subject="AW: Passwort vergessen")


@pytest.mark.parametrize("language", ["de", "en"])
@pytest.mark.parametrize("kind", KINDS)
def test_each_mail_in_each_language(kind: str, language: str) -> None:
    m = mail(kind, language)
    word = {"de": "Passwort", "en": "password"}[language]
    assert word in m.text
    if kind in ("reset", "given"):
        label = {"de": "Passwort: kiwi-7-tor", "en": "Password: kiwi-7-tor"}[language]
        assert f"\n    {label}\n" in m.text
        assert "gm@turnited.example" in m.text
    else:
        assert "kiwi-7-tor" not in m.text
    if kind == "unknown":
        assert "fremd@example.org" in m.text and "Uwe" not in m.text
    else:
        assert m.text.startswith(BOT_REPLY_MARKER) == (kind != "given")
        assert ("Hallo Uwe Öz," if language == "de" else "Hello Uwe Öz,") in m.text
    if kind == "given":
        assert m.subject == {"de": "Turnited: dein neues Passwort",
                             "en": "Turnited: your new password"}[language]
    else:
        assert m.subject == "Re: Passwort vergessen"
    if language == "de":  # nothing left in English
        assert "the game master" not in m.text and "Hello" not in m.text
    assert max(len(line) for line in m.text.splitlines()) <= 76


def test_a_password_mail_needs_its_password() -> None:
    with pytest.raises(ValueError, match="needs the new password"):
        render_password_mail("given", language="de", game_name="T", game_address="a@b.c")
    with pytest.raises(ValueError, match="unknown password mail"):
        render_password_mail("lost", language="de", game_name="T", game_address="a@b.c")  # type: ignore[arg-type]


@pytest.mark.parametrize("kind", KINDS)
def test_the_signature_keeps_its_delimiter(kind: str) -> None:
    """``-- `` with its space (RFC 3676 §4.3), so a mail client knows the
    signature; every other line has no trailing space."""
    text = mail(kind, "de").text
    assert "\n-- \n" in text
    assert [line for line in text.split("\n") if line != "-- " and line != line.rstrip()] == []
