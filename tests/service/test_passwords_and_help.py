"""Help without a password, harmless mails without a password error, and at
most three password candidates checked per mail (RULES.md §9, §11; issue 20),
through the real mail path, in German and English."""

from __future__ import annotations

import pytest

from bot.league import passwords
from tests.service.harness import Game


def folded(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize(("body", "subject", "help_title"), [
    ("?", "Frage", "So spielst du mit"),
    ("??", "", "So spielst du mit"),
    ("Hilfe", "", "So spielst du mit"),
    ("Help", "Help", "How to play"),
])
def test_a_registered_players_question_mark_gets_the_help(game: Game, body, subject,
                                                          help_title) -> None:
    game.register("ole@player.example", "Kiez Kicker")
    text = folded(game.reply("ole@player.example", body, subject=subject))
    assert help_title in text
    for words in ("FEHLER", "ERRORS", "enthält kein Passwort", "contains no password"):
        assert words not in text
    assert "10-10-15-15-20 (" not in text  # no team state without the password


def test_an_empty_looking_mail_of_a_manager_gets_no_password_error(game: Game) -> None:
    game.register("ole@player.example", "Kiez Kicker")
    text = folded(game.reply("ole@player.example", "\n\n", subject="Re: Runde 1"))
    assert "FEHLER" not in text and "enthält kein Passwort" not in text
    assert "keinen Befehl gefunden" in text
    assert "Kiez Kicker" not in text  # reveals nothing without the password


def test_an_english_empty_mail_of_a_manager(game: Game) -> None:
    game.register("sam@player.example", "Dock Rovers")
    game.send(game.mail("sam@player.example", "Password: wrong-one\nLineup: 10-10-15-15-20"))
    game.replies()
    text = folded(game.reply("sam@player.example", "Thanks!", subject="Hello"))
    assert "ERRORS" not in text and "contains no password" not in text
    assert "Dock Rovers" not in text


@pytest.fixture
def scrypt_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The real scrypt, counted."""
    calls: list[str] = []
    real = passwords._scrypt

    def counted(text: str, salt: bytes, n: int, r: int, p: int) -> bytes:
        calls.append(text)
        return real(text, salt, n, r, p)

    monkeypatch.setattr(passwords, "_scrypt", counted)
    return calls


def test_a_flood_of_password_lines_costs_no_scrypt(game: Game, scrypt_calls) -> None:
    password = game.register("ole@player.example", "Kiez Kicker")
    scrypt_calls.clear()
    guesses = "\n".join(f"Passwort: guess-{i:03d}" for i in range(40))
    body = f"{guesses}\nPasswort: {password}\nKiez Kicker: 10-10-16-15-20\n"
    text = folded(game.reply("ole@player.example", body))
    assert scrypt_calls == []
    assert game.lineups() == {"Kiez Kicker": "10-10-15-15-20"}  # nothing changed
    assert "mehr als 3 verschiedene Passwörter" in text


def test_three_candidates_are_checked_and_the_right_one_counts(game: Game,
                                                                scrypt_calls) -> None:
    password = game.register("ole@player.example", "Kiez Kicker")
    scrypt_calls.clear()
    body = (f"Passwort: falsch-1\nPasswort: falsch-2\nPasswort: {password.upper()}\n"
            f"Passwort: {password}\nKiez Kicker: 10-10-16-15-20\n")
    text = folded(game.reply("ole@player.example", body))
    assert game.lineups() == {"Kiez Kicker": "10-10-16-15-20"}
    assert "FEHLER" not in text
    assert 0 < len(scrypt_calls) <= 2 * 3  # the limit check and the runner, three each at most


def test_an_english_flood_is_refused_in_english(game: Game, scrypt_calls) -> None:
    game.register("sam@player.example", "Dock Rovers")
    scrypt_calls.clear()
    body = "\n".join(f"Password: try{i}" for i in range(4)) + "\nLineup: 10-10-16-15-20\n"
    text = folded(game.reply("sam@player.example", body, subject="lineup"))
    assert scrypt_calls == []
    assert "more than 3 different passwords" in text
    assert game.lineups() == {"Dock Rovers": "10-10-15-15-20"}
