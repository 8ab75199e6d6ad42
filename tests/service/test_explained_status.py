"""Issue 20: ``Status`` by mail gives each team's WP, budget, WP rank, lineup
state and last result, and the round's seed commitment (RULES.md §4, §12).
Real Maildir pipeline and a real evaluation, German and English."""

from __future__ import annotations

import json
from datetime import timedelta
from decimal import Decimal

import pytest

from bot.league.outcome import Code, ManagerInfo, MoveOutcome, Notice, TeamState
from bot.render.formatting import wp_gain
from bot.render.personal import stage_reached
from bot.render.reply import render_reply
from bot.rules.report import RoundReport
from bot.storage import results
from tests.service.harness import START, Game
from tests.service.players import Player, folded

STATUS = {"de": "Status", "en": "Status"}


@pytest.fixture
def game(tmp_path) -> Game:
    return Game(tmp_path)


def play_round(game: Game, players: int = 6) -> list[Player]:
    """Six managers (German and English alternately), one team each, round 1 evaluated."""
    out = []
    for i in range(players):
        language = "de" if i % 2 == 0 else "en"
        player = Player(game, f"p{i}@player.example", language=language)
        keyword = "Neues Team" if language == "de" else "New team"
        player.write(f"{keyword}: Team {i}\nTeam {i}: 10-10-{15 + i}-15-{20 - i}")
        out.append(player)
    with game.db.read() as conn:
        deadline = game.league.open_round(conn).deadline
    game.clock.now = deadline + timedelta(minutes=5)
    game.league.evaluate_due(game.clock.now, seed=20, next_deadline=deadline + timedelta(days=7))
    game.flush()  # the newsletters are not what these tests read
    game.seen = len(game.flush())  # type: ignore[attr-defined]
    return out


@pytest.mark.parametrize("language", ["de", "en"])
def test_status_before_any_tournament(game: Game, language: str) -> None:
    player = Player(game, f"early-{language}@player.example", language=language)
    keyword = "Neues Team" if language == "de" else "New team"
    player.write(f"{keyword}: Kickers\nKickers: 10-10-15-15-20")
    text = folded(player.write(STATUS[language]))
    if language == "de":
        assert ("* Kickers (Kickers): 90,00 WP, einsetzbar 90 WP, PSZ 250 noch kein Turnier "
                "gespielt Aufstellung: 10-10-15-15-20 es spielt so") in text
        assert "WP-Tabelle" not in text  # no table before the first evaluation
        assert "Prüfsumme des Startwerts der Spielrunde 1" in text
    else:
        assert ("* Kickers (Kickers): 90.00 WP, budget 90 WP, PSZ 250 no tournament played "
                "yet lineup: 10-10-15-15-20 plays as sent") in text
        assert "WP table" not in text
        assert "Commitment of the seed of round 1" in text
    with game.db.read() as conn:
        assert game.league.commitment(conn, 1) in text


def test_status_after_a_round_gives_rank_and_last_result(game: Game) -> None:
    players = play_round(game)
    with game.db.read() as conn:
        table = {row.team: row for row in game.league.wp_table(conn, 1)}
        entries = {r["name"]: r for r in conn.execute(
            "SELECT t.name, e.won, e.drawn, e.lost, e.wp_gain FROM round_entries e"
            " JOIN teams t ON t.id = e.team_id WHERE e.round = 1")}
        report = RoundReport.from_json(json.loads(results.stored_report(conn, 1, public=True)))
        commitment = game.league.commitment(conn, 2)
    for i, player in enumerate(players):
        team = f"Team {i}"
        text = folded(player.write(STATUS[player.language]))
        row, entry = table[team], entries[team]
        place, reached, stage = stage_reached(report, team)
        gain = wp_gain(Decimal(entry["wp_gain"]), player.language)
        if player.language == "de":
            assert "Stand: Saison 1, Runde 2 (Spielrunde 2)." in text
            assert (f"* {team} ({team}): {row.wp:.2f} WP".replace(".", ",")
                    + f", einsetzbar {int(row.wp)} WP") in text
            assert f"WP-Tabelle: Platz {row.place} von 6" in text
            assert "zuletzt, Spielrunde 1: " in text and f"; {gain} WP" in text
            assert "noch keine Aufstellung" in text  # lineup state for round 2
        else:
            assert "Status: season 1, round 2 (round 2 overall)." in text
            assert f"* {team} ({team}): {row.wp:.2f} WP, budget {int(row.wp)} WP" in text
            assert f"WP table: place {row.place} of 6" in text
            assert "last result, round 1: " in text and f"; {gain} WP" in text
            assert "no lineup yet" in text
        stage_words = {
            ("de", "group"): f"in der {stage}. Gruppenphase ausgeschieden",
            ("en", "group"): f"out in group stage {stage}",
            ("de", "semi_final"): "Halbfinale", ("en", "semi_final"): "semi-final",
        }
        if place == 1:
            assert ("Turniersieg" if player.language == "de" else "won the tournament") in text
        elif place:
            assert (f"{place}. Platz" if player.language == "de" else f"place {place}") in text
        else:
            assert stage_words[(player.language, reached)] in text
        assert commitment in text


def test_a_status_without_the_password_reveals_nothing(game: Game) -> None:
    [player, *_] = play_round(game, players=4)
    text = folded(player.write("Status", password=False))
    assert "WP-Tabelle" not in text and "zuletzt" not in text and "Team 0 (" not in text


@pytest.mark.parametrize(("language", "record"), [
    ("de", ("1 Sieg, 1 Unentschieden, 1 Niederlage", "2 Siege, 0 Unentschieden, 4 Niederlagen")),
    ("en", ("1 win, 1 draw, 1 loss", "2 wins, 0 draws, 4 losses")),
])
def test_the_record_has_real_plurals(language: str, record: tuple[str, str]) -> None:
    def status_reply(won: int, drawn: int, lost: int) -> str:
        team = TeamState("Kickers", "Kickers", Decimal("90.5"), 90, Decimal("250"), None, None,
                         None, False, False, False, False)
        last = {"round": 1, "place": None, "reached": "group", "last_stage": 1, "won": won,
                "drawn": drawn, "lost": lost, "gain": Decimal("0.3")}
        notice = Notice(Code.STATUS, {"season": 1, "round": 2, "round_in_season": 2,
                                      "deadline": None, "commitment": None,
                                      "standings": {"Kickers": {"rank": 1, "listed": 1,
                                                            "last": last}}})
        outcome = MoveOutcome(ManagerInfo("k@example.org", None, False), True, 2, False, None,
                              notices=[notice], teams=[team], language=language)
        return folded(render_reply(outcome, subject="Status", now=START, timezone="UTC",
                                   game_name="Turnited", game_address=None).text)

    assert record[0] in status_reply(1, 1, 1)
    assert record[1] in status_reply(2, 0, 4)

