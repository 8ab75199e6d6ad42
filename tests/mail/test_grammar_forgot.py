"""`Passwort vergessen` / `Forgot password` (RULES.md §9) in the mail grammar."""

from __future__ import annotations

import pytest

from bot.rules.requests import GivePassword
from bot.service.commands.forgot_password import ForgotPassword
from tests.support.grammar import parse_moves


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Passwort vergessen", "de"),
        ("Kennwort vergessen!", "de"),
        ("passwort  VERGESSEN?", "de"),
        ("Forgot password", "en"),
        ("Password forgotten.", "en"),
        ("Lost password", "en"),
        ("Forgot my password", "en"),
    ],
)
def test_the_spellings_are_one_request(text, language):
    moves = parse_moves("", text)
    assert moves.requests == (ForgotPassword(line=" ".join(text.split())),)
    assert moves.errors == () and moves.language == language


def test_in_the_subject_too():
    assert parse_moves("AW: Passwort vergessen", "").requests == (
        ForgotPassword(line="Passwort vergessen"),
    )


def test_a_password_called_vergessen_is_still_a_password():
    (request,) = parse_moves("", "Passwort: vergessen").requests
    assert request == GivePassword(line="Passwort: vergessen", password="vergessen")


def test_a_sentence_about_it_is_text():
    moves = parse_moves("", "Ich habe mein Passwort vergessen")
    assert moves.requests == () and moves.ignored == ()
    # a message to a person: forwarded to the game master (RULES.md §11)
    assert moves.prose == ("Ich habe mein Passwort vergessen",)
