"""``Ergebnisse [Runde N]`` / ``Results [round N]`` through the real mail path
and real evaluations (RULES.md §12): the reply carries the manager's personal
copy of the round's newsletter, exactly the text the newsletter mailed him,
to the registered address only; a round that does not exist or is not
evaluated yet, and a stranger, get a clear answer and nothing else."""

from __future__ import annotations

import re
import textwrap
from datetime import timedelta

import pytest

from bot.service.publish import publish
from bot.storage import rounds as round_rows
from tests.service.harness import Game
from tests.service.mailed import Mailed, Outbox

HANS = "Hans <hans@player.example>"
ADDRESS = "hans@player.example"


def words(text: str) -> str:
    return " ".join(text.split())


def register(game: Game, outbox: Outbox, body: str, subject: str = "Aufstellung") -> str:
    game.send(game.mail(HANS, body, subject=subject))
    match = re.search(r"^\s*(?:Passwort|Password): (\S+)\s*$", outbox.one().text, re.M)
    assert match
    return match.group(1)


def evaluate_and_publish(game: Game, outbox: Outbox) -> dict[str, Mailed]:
    """Evaluate the open round after its deadline and publish it; the
    newsletters it mailed, by recipient."""
    with game.db.read() as conn:
        rnd = round_rows.open_round(conn)
    assert rnd is not None
    game.clock.now = rnd.deadline + timedelta(minutes=1)
    result = game.league.evaluate_due(game.clock.now)
    assert result is not None
    publish(game.context, result)
    game.clock.now = game.clock.now + timedelta(hours=1)
    return {m.to: m for m in outbox.new()}


def copy_in(reply: str) -> str:
    """The newsletter in the reply: its indented lines after the first sentence,
    up to the reply's next line of its own (the teams, the deadline, the footer)."""
    lines = reply.replace("\r\n", "\n").split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("    "))
    end = next((i for i in range(start, len(lines))
                if lines[i].strip() and not lines[i].startswith("    ")), len(lines))
    return textwrap.dedent("\n".join(lines[start:end])).strip("\n") + "\n"


def test_the_reply_is_the_personal_newsletter_again_in_german(game: Game) -> None:
    outbox = Outbox(game)
    register(game, outbox, "Neues Team: Rote Teufel\nRote Teufel: 10-10-15-15-20")
    game.send(game.mail("eva@example.org", "Neues Team: Blaue Jungs\nBlaue Jungs: 5-5-25-25-20"))
    outbox.new()
    newsletters = evaluate_and_publish(game, outbox)
    mailed = newsletters[ADDRESS]
    assert "Dein Team: Rote Teufel" in mailed.text  # the personal block
    game.send(game.mail(HANS, "Ergebnisse", subject="Bitte", Reply_To="evil@example.org"))
    reply = outbox.one()
    assert reply.to == ADDRESS and "evil" not in str(reply.message["To"])
    assert reply.subject == "Re: Bitte"
    assert words(reply.text).startswith(
        words(f"{reply.text.split(chr(10))[0]} Hallo Hans, Hier sind die Ergebnisse der "
              "Spielrunde 1 (Saison 1, Runde 1) noch einmal, deine persönliche Ausgabe:"))
    assert copy_in(reply.text) == mailed.text.replace("\r\n", "\n")


def test_a_given_round_in_english_and_an_older_one(game: Game) -> None:
    outbox = Outbox(game)
    password = register(game, outbox, "New team: Red Devils\nRed Devils: 10-10-15-15-20",
                        subject="Lineup")
    first = evaluate_and_publish(game, outbox)[ADDRESS]
    assert first.subject.startswith("Turnited: results of round 1")
    game.send(game.mail(HANS, f"Password: {password}\nRed Devils: 0-10-30-20-20",
                        subject="Lineup"))
    outbox.new()
    second = evaluate_and_publish(game, outbox)[ADDRESS]
    assert first.text != second.text
    game.send(game.mail(HANS, "Results round 1", subject="Question"))
    reply = outbox.one()
    assert "Here are the results of round 1 (season 1, round 1) again" in words(reply.text)
    assert copy_in(reply.text) == first.text.replace("\r\n", "\n")
    game.send(game.mail(HANS, "Results", subject="Question"))
    assert copy_in(outbox.one().text) == second.text.replace("\r\n", "\n")


def test_no_password_is_needed_and_a_lineup_beside_it_still_needs_one(game: Game) -> None:
    outbox = Outbox(game)
    register(game, outbox, "Neues Team: Rote Teufel\nRote Teufel: 10-10-15-15-20")
    evaluate_and_publish(game, outbox)
    game.send(game.mail(HANS, "Ergebnisse\nRote Teufel: 5-5-20-20-30"))
    text = words(outbox.one().text)
    assert "Passwort" in text and "Hier sind die Ergebnisse der Spielrunde 1" in text
    with game.db.read() as conn:
        assert conn.execute("SELECT COUNT(*) FROM moves WHERE round = 2").fetchone()[0] == 0


@pytest.mark.parametrize(("line", "subject", "needle"), [
    ("Ergebnisse Runde 99", "Frage",
     "Eine Spielrunde 99 gibt es nicht. Die zuletzt ausgewertete ist Spielrunde 1: "
     "„Ergebnisse Runde 1“."),
    ("Ergebnisse Runde 2", "Frage", "Spielrunde 2 ist noch nicht ausgewertet"),
    ("Results round 99", "Question", 'There is no round 99. The last evaluated round is '
                                     'round 1: "Results round 1".'),
    ("Results: round 2", "Question", "Round 2 is not evaluated yet, so it has no results."),
])
def test_a_round_that_does_not_exist_or_is_not_evaluated(
    game: Game, line: str, subject: str, needle: str
) -> None:
    outbox = Outbox(game)
    register(game, outbox, "Neues Team: Rote Teufel\nRote Teufel: 10-10-15-15-20")
    evaluate_and_publish(game, outbox)
    game.send(game.mail(HANS, line, subject=subject))
    text = words(outbox.one().text)
    assert needle in text
    assert "Ergebnisse der Spielrunde" not in text and "results of round 1 (" not in text


def test_before_any_evaluation(game: Game) -> None:
    outbox = Outbox(game)
    register(game, outbox, "Neues Team: Rote Teufel\nRote Teufel: 10-10-15-15-20")
    game.send(game.mail(HANS, "Ergebnisse", subject="Frage"))
    assert "Es ist noch keine Runde ausgewertet" in words(outbox.one().text)


def test_an_unreadable_round_is_an_error_of_the_line(game: Game) -> None:
    outbox = Outbox(game)
    register(game, outbox, "Neues Team: Rote Teufel\nRote Teufel: 10-10-15-15-20")
    evaluate_and_publish(game, outbox)
    game.send(game.mail(HANS, "Ergebnisse: Runde 1 und 2", subject="Frage"))
    text = words(outbox.one().text)
    assert "welche Runde? Schreibe z. B. „Ergebnisse Runde 12“" in text


def test_a_stranger_has_no_personal_copy(game: Game) -> None:
    outbox = Outbox(game)
    register(game, outbox, "Neues Team: Rote Teufel\nRote Teufel: 10-10-15-15-20")
    evaluate_and_publish(game, outbox)
    game.send(game.mail("fan@example.org", "Results", subject="Question"))
    (reply,) = outbox.new()
    assert reply.to == "fan@example.org"
    assert "No manager is registered with the address fan@example.org" in words(reply.text)
    assert "results of round 1" not in reply.text
    with game.db.read() as conn:
        assert conn.execute("SELECT COUNT(*) FROM managers").fetchone()[0] == 1


def test_the_help_names_the_results(game: Game) -> None:
    outbox = Outbox(game)
    game.send(game.mail(HANS, "Help", subject="Question"))
    assert "Results round 12" in outbox.one().text
