"""Issue 20: every reply that stores a lineup carries the open round's seed
commitment, round 1 of a new game included (RULES.md §4); a late mail's reply
gives the next round's deadline (RULES.md §7). Real Maildir pipeline, German
and English."""

from __future__ import annotations

import hashlib
from datetime import timedelta

import pytest

from bot.service.inbound import Ingestor
from tests.service.harness import BOT, Game
from tests.service.players import Player, folded
from tests.support.context import make_context

REGISTER = {"de": "Neues Team: Kickers\nKickers: 10-10-15-15-20",
            "en": "New team: Strikers\nLineup: 10-10-15-15-20"}
TEAM = {"de": "Kickers", "en": "Strikers"}


@pytest.fixture
def game(tmp_path) -> Game:
    return Game(tmp_path)


def commitment(game: Game, round_number: int) -> str:
    with game.db.read() as conn:
        published = game.league.commitment(conn, round_number)
        [(seed,)] = conn.execute("SELECT seed FROM round_seeds WHERE round = ?",
                                 (round_number,)).fetchall()
    assert published is not None
    # what a player checks with sha256sum (README "Checking the lots")
    assert published == hashlib.sha256(
        f"turnited-seed:{round_number}:{seed}".encode()).hexdigest()
    return published


@pytest.mark.parametrize("language", ["de", "en"])
def test_the_first_lineup_of_a_new_game_carries_round_1s_commitment(
        game: Game, language: str) -> None:
    player = Player(game, f"first-{language}@player.example", language=language)
    reply = folded(player.write(REGISTER[language]))
    assert ("Prüfsumme des Startwerts der Spielrunde 1 (veröffentlicht vor jeder Aufstellung"
            if language == "de" else
            "Commitment of the seed of round 1 (published before any lineup") in reply
    assert f" {commitment(game, 1)} " in reply
    # a new lineup replacing it: the commitment again
    assert commitment(game, 1) in player.write(f"{TEAM[language]}: 10-10-16-16-18")


@pytest.mark.parametrize("language", ["de", "en"])
def test_a_reply_that_stores_no_lineup_carries_no_commitment(
        game: Game, language: str) -> None:
    player = Player(game, f"none-{language}@player.example", language=language)
    player.write(REGISTER[language])
    one = commitment(game, 1)
    assert one not in player.write("Hilfe" if language == "de" else "Help")
    assert one not in player.write(f"{TEAM[language]}: 10-10-15-15-20")  # stored already
    assert one not in player.write(f"{TEAM[language]}: 10-10-15-15", password=True)  # refused
    assert one not in player.write(f"{TEAM[language]}: 10-10-16-16-18", password=False)


@pytest.mark.parametrize(("language", "said"), [
    ("de", "Deine Mail kam nach dem Einsendeschluss von Spielrunde 1 (So., 6. Dezember 2026, "
           "13:00 MEZ (Europe/Berlin)); alles darin gilt für Spielrunde 2. Der "
           "Einsendeschluss der Spielrunde 2 ist So., 13. Dezember 2026, 13:00 MEZ "
           "(Europe/Berlin)."),
    ("en", "Your mail arrived after the deadline of round 1 (Sun 6 Dec 2026, 13:00 CET "
           "(Europe/Berlin)); everything in it counts for round 2. The deadline of round 2 "
           "is Sun 13 Dec 2026, 13:00 CET (Europe/Berlin)."),
])
def test_a_late_mails_reply_gives_the_next_deadline_and_that_rounds_commitment(
        game: Game, language: str, said: str) -> None:
    player = Player(game, f"late-{language}@player.example", language=language)
    player.write(REGISTER[language])
    with game.db.read() as conn:
        game.clock.now = game.league.open_round(conn).deadline + timedelta(minutes=5)
    reply = folded(player.write(f"{TEAM[language]}: 10-10-16-16-18"))
    assert said in reply
    assert commitment(game, 2) in reply and commitment(game, 1) not in reply


def test_a_late_mail_without_a_planned_deadline_says_it_will_be_announced(
        game: Game) -> None:
    # a schedule whose only planned deadline is long past: none is planned after this one
    game.ingestor = Ingestor(make_context(game.league, game.clock, game.root, bot_address=BOT,
                                          deadlines=["2020-01-05 20:00"]), game.settings)
    player = Player(game, "late@player.example")
    player.write(REGISTER["de"])
    with game.db.read() as conn:
        game.clock.now = game.league.open_round(conn).deadline + timedelta(minutes=5)
    reply = folded(player.write("Kickers: 10-10-16-16-18"))
    assert ("alles darin gilt für Spielrunde 2. Der Einsendeschluss der Spielrunde 2 wird "
            "noch bekannt gegeben.") in reply
