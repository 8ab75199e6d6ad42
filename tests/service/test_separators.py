"""Separators through the real mail path (RULES.md §11, issue 20): a dash, an
en dash (Outlook's " – "), ``=`` after a keyword or a team name are read, in
German and English mails."""

from __future__ import annotations

from tests.service.harness import Game


def folded(text: str) -> str:
    return " ".join(text.split())


def test_german_mail_with_every_separator(game: Game) -> None:
    password = game.register("ole@player.example", "Westfalia Altona", "Exeter")
    body = (f"Passwort - {password}\n"
            "Westfalia Altona – 10-5-13-40-13\n"
            "Team = Exeter\n"
            "Aufstellung - 10-8-25-20-20\n")
    text = folded(game.reply("ole@player.example", body))
    assert game.lineups() == {"Westfalia Altona": "10-5-13-40-13", "Exeter": "10-8-25-20-20"}
    assert "FEHLER" not in text and "gibt es nicht" not in text and "Meintest du" not in text


def test_english_mail_registers_with_a_dash(game: Game) -> None:
    body = "new team - Concordia Moorburg / Moorburg\nLineup — 10-10-15-15-20\n"
    text = folded(game.reply("sam@player.example", body, subject="Hello"))
    assert game.lineups() == {"Concordia Moorburg": "10-10-15-15-20"}
    assert "ERRORS" not in text and "Password:" in text


def test_english_team_name_with_equals(game: Game) -> None:
    password = game.register("sam@player.example", "Exeter Wanderers")
    text = folded(game.reply("sam@player.example",
                             f"Password = {password}\nExeter Wanderers = 10-10-16-15-20\n",
                             subject="lineup"))
    assert game.lineups() == {"Exeter Wanderers": "10-10-16-15-20"}
    assert "ERRORS" not in text


def test_a_negative_number_after_a_dash_stays_an_error(game: Game) -> None:
    password = game.register("ole@player.example", "Blau-Weiß Lübeck")
    text = folded(game.reply("ole@player.example",
                             f"Passwort: {password}\nBlau-Weiß Lübeck -10-10-15-15-20\n"))
    assert game.lineups() == {"Blau-Weiß Lübeck": "10-10-15-15-20"}  # unchanged
    assert "-10 ist negativ" in text


def test_an_error_example_is_in_the_mails_language(game: Game) -> None:
    """Issue 20: a stranger's English mail got a German example."""
    english = " ".join(game.reply("tom@player.example", "New team:\nLineup: 10-10-15-15-20\n",
                                  subject="Joining").split())
    assert "The right form is e.g.: New team: FC Wanderers Altona / Wanderers" in english
    german = " ".join(game.reply("ole@player.example", "Neues Team:\n").split())
    assert "Richtig wäre z. B.: Neues Team: FC Wanderer Altona / Wanderer" in german
