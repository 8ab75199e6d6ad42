"""Greetings, prose and the forward to the game master (RULES.md §11, issue 20),
through the real mail path: a greeting is not listed; a message to a person is
forwarded once to ``gm.address`` (Reply-To: the player, his text quoted) and
the reply says so in the mail's language, never "FEHLER"/"ERRORS"; only lines
that look like an attempted command are listed as not understood."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.render.environment import Environments
from bot.service.context import Context
from tests.service.harness import GM, Game


def folded(text: str) -> str:
    return " ".join(text.split())


def forwards(sent: list) -> list:
    return [(text, msg) for to, text, msg in sent if to == GM]


def test_a_managers_question_goes_to_the_game_master(game: Game) -> None:
    game.register("ole@player.example", "Kiez Kicker")
    body = ("Hallo Spielleitung,\n\nwas ist eigentlich die PSZ? Und wie bekomme ich mehr WP?\n"
            "\nViele Grüße\nOle\n")
    game.send(game.mail("Ole Hansen <ole@player.example>", body, subject="Frage"))
    sent = game.sent()
    [(text, msg)] = forwards(sent)
    assert msg["Reply-To"] == "ole@player.example"
    assert msg["Subject"] == "Turnited: eine Nachricht von Ole Hansen <ole@player.example>"
    assert "> was ist eigentlich die PSZ? Und wie bekomme ich mehr WP?" in text
    assert "Betreff: Frage" in text
    [reply] = [t for to, t, _ in sent if to == "ole@player.example"]
    flat = folded(reply)
    assert "an die Spielleitung weitergeleitet" in flat
    for word in ("FEHLER", "nicht verstanden", "keinen Befehl", "enthält kein Passwort",
                 "So spielst du mit"):
        assert word not in flat


def test_a_strangers_english_message(game: Game) -> None:
    body = ("Hi there,\nI read about your game on a forum. How do I join, and is it free?\n"
            "Cheers, Tom\n")
    game.send(game.mail("Tom <tom@player.example>", body, subject="Question"))
    sent = game.sent()
    [(text, msg)] = forwards(sent)
    assert "> I read about your game on a forum. How do I join, and is it free?" in text
    assert msg["Reply-To"] == "tom@player.example"
    [reply] = [t for to, t, _ in sent if to == "tom@player.example"]
    flat = folded(reply)
    assert "I forwarded your message to the game master" in flat
    assert "How to play" in flat  # a stranger gets the help as well
    assert "ERRORS" not in flat and "not understood" not in flat
    assert game.lineups() == {}


def test_a_lineup_and_a_question_in_one_mail(game: Game) -> None:
    password = game.register("ole@player.example", "Kiez Kicker")
    body = (f"Moin!\nPasswort: {password}\nKiez Kicker: 0-10-30-20-20\n"
            "Kann ich die Aufstellung nach dem Einsendeschluss noch ändern?\n")
    game.send(game.mail("ole@player.example", body))
    sent = game.sent()
    assert len(forwards(sent)) == 1
    [reply] = [t for to, t, _ in sent if to == "ole@player.example"]
    flat = folded(reply)
    assert game.lineups() == {"Kiez Kicker": "0-10-30-20-20"}
    assert "an die Spielleitung weitergeleitet" in flat and "FEHLER" not in flat
    assert "Moin" not in flat  # the greeting is not listed


@pytest.mark.parametrize(("greeting", "language"), [
    ("Hallo Spielleitung,", "de"), ("Moin!", "de"), ("Hi GM,", "en"), ("Liebe Leute,", "de"),
    ("Dear game master,", "en"), ("Guten Abend zusammen!", "de"),
])
def test_a_greeting_is_not_listed(game: Game, greeting: str, language: str) -> None:
    lineup = "Lineup" if language == "en" else "Aufstellung"
    text = folded(game.reply("neu@player.example",
                             f"{greeting}\nNeues Team: Kiez Kicker\n{lineup}: 10-10-15-15-20\n"))
    assert greeting not in text
    assert "nicht verstanden" not in text and "not understood" not in text
    assert game.lineups() == {"Kiez Kicker": "10-10-15-15-20"}
    assert not forwards(game.sent())


def test_lines_that_go_with_the_commands_are_neither_listed_nor_forwarded(game: Game) -> None:
    password = game.register("ole@player.example", "Kiez Kicker")
    body = (f"Hier meine Aufstellung für diese Runde:\nPasswort: {password}\n"
            "Kiez Kicker: 0-10-30-20-20\nViel Glück allen!\nDiesmal volle Offensive!\n")
    text = folded(game.reply("ole@player.example", body))
    assert "nicht verstanden" not in text and "an die Spielleitung weitergeleitet" not in text
    assert not forwards(game.sent())


def test_only_attempted_commands_are_listed(game: Game) -> None:
    password = game.register("sam@player.example", "Dock Rovers")
    body = f"Password: {password}\nTactics: defensive\nDock Rovers: 0-10-30-20-20\n"
    text = folded(game.reply("sam@player.example", body, subject="lineup"))
    assert "These lines were not understood and were skipped: | Tactics: defensive" in text
    assert "I forwarded your message" not in text


def test_a_mail_is_forwarded_once(game: Game) -> None:
    raw = game.mail("ole@player.example", "Wann ist eigentlich die nächste Auswertung?")
    game.send(raw)
    game.send(raw)  # the same mail again (a second poll, a resend)
    assert len(forwards(game.sent())) == 1


def test_a_question_mark_alone_is_the_help_not_a_forward(game: Game) -> None:
    game.send(game.mail("ole@player.example", "?"))
    sent = game.sent()
    assert not forwards(sent)
    [(_, text, _)] = sent
    assert "So spielst du mit" in text


def test_without_a_game_master_address_the_message_is_listed(tmp_path: Path) -> None:
    game = Game(tmp_path)
    settings = game.context.settings
    game.context = Context(game.context.db, game.context.league,
                           type(settings)(**{**{f: getattr(settings, f)
                                               for f in settings.__dataclass_fields__},
                                            "gm_address": "gm@turnited.invalid"}),
                           game.context.clock, Environments(gm_address="gm@turnited.invalid"))
    game.ingestor.context, game.ingestor.environments = game.context, game.context.environments
    text = folded(game.reply("ole@player.example", "Wann ist eigentlich die nächste Auswertung?"))
    assert "weitergeleitet" not in text  # neither the notice nor the footer's promise
    assert "| Wann ist eigentlich die nächste Auswertung?" in text
