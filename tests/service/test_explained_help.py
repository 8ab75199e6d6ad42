"""Issue 20: the help opens with "Neu hier?" / "New here?" (a registration that
works without a team), names "Passwort vergessen", every mail's footer says
how to reach the game master (a person), and every error example is in the
mail's language. Through the real Maildir pipeline, German and English."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bot.render.environment import Environments, contact_address
from bot.render.model import RoundInfo
from bot.render.reminder import render_reminder
from bot.render.reply import render_problem
from tests.render.conftest import DEADLINE
from tests.service.harness import Game
from tests.service.players import Player, folded

NEW_HERE = {"de": "Neu hier? Melde ein Team mit seiner ersten Aufstellung in einer Mail an",
            "en": "New here? Register a team with its first lineup in one mail to"}
CONTACT = {
    "de": "Eine Frage an die Spielleitung (einen Menschen)? Schreib sie in eine Mail an "
          "diese Adresse, sie wird weitergeleitet, oder direkt an gm@turnited.example.",
    "en": "A question for the game master (a person)? Write it in a mail to this address, "
          "it is forwarded, or straight to gm@turnited.example.",
}
HELP = {"de": "Hilfe", "en": "Help"}


@pytest.fixture
def game(tmp_path) -> Game:
    return Game(tmp_path)


@pytest.mark.parametrize("language", ["de", "en"])
def test_the_help_opens_with_new_here_and_names_forgot_password(
        game: Game, language: str) -> None:
    text = Player(game, f"new-{language}@player.example", language=language).write(
        HELP[language])
    flat = folded(text)
    title = "So spielst du mit" if language == "de" else "How to play"
    help_text = flat[flat.index(title):]
    assert help_text.startswith(f"{title} {'-' * len(title)} {NEW_HERE[language]}")
    first = ("Neues Team: FC Musterstadt / Muster Aufstellung: 10-10-15-15-20"
             if language == "de" else
             "New team: FC Example Town / Example Lineup: 10-10-15-15-20")
    assert help_text.index(first) < help_text.index(
        "Rote Teufel: 10-10-15-15-20" if language == "de" else "Red Devils: 10-10-15-15-20")
    assert ("„Passwort vergessen“" if language == "de" else '"Forgot password"') in flat
    assert ("Passwort vergessen (ein neues an deine Adresse)" if language == "de"
            else "Forgot password (a new one to your address)") in flat
    assert CONTACT[language] in flat
    assert flat.count(CONTACT[language]) == 1  # the help's, not the footer's again


@pytest.mark.parametrize("language", ["de", "en"])
def test_a_stranger_who_copies_the_first_example_is_registered_and_plays(
        game: Game, language: str) -> None:
    stranger = Player(game, f"copy-{language}@player.example", language=language)
    lines = stranger.write(HELP[language]).splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(NEW_HERE[language][:9]))
    example = []
    for line in lines[start + 1:]:
        if line.startswith("  ") and line.strip():
            example.append(line.strip())
        elif example:
            break
    assert len(example) == 2
    reply = folded(stranger.write("\n".join(example)))
    assert "FEHLER" not in reply and "ERRORS" not in reply
    with game.db.read() as conn:
        [(name, short, lineup)] = conn.execute(
            "SELECT t.name, t.short_name, m.lineup FROM teams t JOIN moves m ON m.team_id = t.id"
            " JOIN managers g ON g.id = t.manager_id WHERE g.address = ?",
            (stranger.address,)).fetchall()
    assert (name, short, lineup) == (
        ("FC Musterstadt", "Muster", "10-10-15-15-20") if language == "de"
        else ("FC Example Town", "Example", "10-10-15-15-20"))
    assert stranger.password is not None  # the reply brought the password


@pytest.mark.parametrize("language", ["de", "en"])
def test_every_reply_names_the_game_master_in_its_footer(game: Game, language: str) -> None:
    player = Player(game, f"footer-{language}@player.example", language=language)
    reply = player.write("Neues Team: Kickers\nKickers: 10-10-15-15-20" if language == "de"
                         else "New team: Strikers\nLineup: 10-10-15-15-20")
    body, _signature = reply.rsplit("\n-- \n", 1)
    assert folded(body).endswith(CONTACT[language])
    problem = render_problem("too_large", subject="x", language=language, game_name="Turnited",
                             game_address="bot@turnited.example", limit=1024,
                             env=game.context.environments)
    assert CONTACT[language] in folded(problem.text)


@pytest.mark.parametrize("language", ["de", "en"])
def test_reminders_name_the_game_master_in_text_and_html(language: str) -> None:
    mail = render_reminder(
        manager="Jürgen", teams=["Dynamo Ölberg"], round_info=RoundInfo(3, 2, 12),
        deadline=DEADLINE, now=DEADLINE - timedelta(days=1), timezone="Europe/Berlin",
        language=language, game_name="Turnited", game_address="bot@turnited.example",
        env=Environments(gm_address="gm@turnited.example"))
    assert CONTACT[language] in folded(mail.text)
    assert mail.html is not None
    assert '<a href="mailto:gm@turnited.example">gm@turnited.example</a>' in mail.html


def test_an_address_that_never_receives_mail_is_not_named() -> None:
    assert contact_address("gm@turnited.invalid") is None
    assert contact_address(" ") is None and contact_address(None) is None
    assert contact_address("Spielleitung@Example.org") == "Spielleitung@Example.org"
    mail = render_problem("too_large", subject="x", language="de", game_name="Turnited",
                          game_address="bot@turnited.example", limit=1024,
                          env=Environments(gm_address="gm@turnited.invalid"))
    # no address that receives mail: nothing is forwarded, so the footer promises nothing
    assert "Eine Frage an die Spielleitung" not in folded(mail.text)
    assert "invalid" not in mail.text


@pytest.mark.parametrize(("language", "body", "right", "wrong"), [
    ("en", "Team:\nLineup: 10-10-15-15-20", "The right form is e.g.: Team: Red Devils",
     "Rote Teufel"),
    ("de", "Team:\nAufstellung: 10-10-15-15-20",
     "Richtig wäre z. B.: Team: Rote Teufel", "Red Devils"),
    ("en", "New team:\nLineup: 10-10-15-15-20",
     "The right form is e.g.: New team: FC Wanderers Altona / Wanderers", "Neues Team"),
    ("de", "Neues Team:\nAufstellung: 10-10-15-15-20",
     "Richtig wäre z. B.: Neues Team: FC Wanderer Altona / Wanderer", "New team"),
    ("en", "Withdraw:", "The right form is e.g.: Withdraw: Red Devils", "Zurückziehen"),
    ("de", "Zurückziehen:", "Richtig wäre z. B.: Zurückziehen: Rote Teufel",
     "Withdraw"),
])
def test_an_error_example_is_in_the_mails_language(
        game: Game, language: str, body: str, right: str, wrong: str) -> None:
    """A stranger's English mail no longer gets the German example."""
    reply = folded(Player(game, "someone@player.example", language=language).write(body))
    error_part = reply[:reply.index("So spielst du mit" if language == "de" else "How to play")]
    assert right in error_part
    assert wrong not in error_part
