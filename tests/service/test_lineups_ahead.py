"""Lineups ahead (RULES.md §12) through the real mail path and real evaluations:
``... für 3 Runden`` plays three evaluations with no further mail, each
corrected against that round's WP; a newer lineup or a withdrawal ends it;
the reply, ``Status`` and the reminders say until when it stands; more than
five rounds is an error that changes nothing; every round replays identically."""

from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal

import pytest

from bot.rules.corrections import correct
from bot.rules.lineup import Lineup
from bot.service.publish import digest_stats
from bot.service.remind import send_reminders
from bot.storage import rounds as round_rows
from bot.storage import teams as team_rows
from tests.service.harness import Game
from tests.service.mailed import Outbox

HANS = "Hans <hans@player.example>"
ADDRESS = "hans@player.example"


def words(text: str) -> str:
    return " ".join(text.split())


def register(game: Game, outbox: Outbox, body: str, subject: str = "Aufstellung") -> str:
    game.send(game.mail(HANS, body, subject=subject))
    text = outbox.one().text
    match = re.search(r"^\s*(?:Passwort|Password): (\S+)\s*$", text, re.M)
    assert match, text
    return match.group(1)


def evaluate(game: Game) -> int:
    """Let the open round's deadline pass and evaluate it (no mail is sent)."""
    with game.db.read() as conn:
        rnd = round_rows.open_round(conn)
    assert rnd is not None
    game.clock.now = rnd.deadline + timedelta(minutes=1)
    result = game.league.evaluate_due(game.clock.now)
    assert result is not None and result.round == rnd.number
    game.clock.now = game.clock.now + timedelta(hours=1)  # the next round is open
    return rnd.number


def entries(game: Game, team: str = "Rote Teufel") -> dict[int, tuple[str, str, int, Decimal]]:
    """Round -> (lineup as sent, as played, budget, WP before) of the team's entries."""
    with game.db.read() as conn:
        rows = conn.execute(
            "SELECT e.round, e.lineup, e.played, e.budget, e.wp_before FROM round_entries e"
            " JOIN teams t ON t.id = e.team_id WHERE t.name = ? ORDER BY e.round", (team,),
        ).fetchall()
    return {r[0]: (r[1], r[2], r[3], Decimal(r[4])) for r in rows}


def set_wp(game: Game, wp: str, team: str = "Rote Teufel") -> None:
    with game.db.transaction() as conn:
        row = team_rows.team_by_key(conn, team.casefold())
        assert row is not None
        team_rows.set_wp(conn, row.id, Decimal(wp))


def moves_count(game: Game) -> int:
    with game.db.read() as conn:
        return int(conn.execute("SELECT COUNT(*) FROM moves").fetchone()[0])


def test_a_lineup_for_three_rounds_plays_three_evaluations_without_further_mail(
    game: Game,
) -> None:
    outbox = Outbox(game)
    register(game, outbox, "Neues Team: Rote Teufel\n"
                           "Rote Teufel: 10-10-20-25-25 für 3 Runden\n")
    assert evaluate(game) == 1
    set_wp(game, "85.50")  # round 2 is corrected against 85 WP ...
    assert evaluate(game) == 2
    set_wp(game, "110")  # ... round 3 against 110: the lineup's 110 WP play as sent
    assert evaluate(game) == 3
    assert evaluate(game) == 4  # the fourth round: no lineup, the team sits out
    played = entries(game)
    assert sorted(played) == [1, 2, 3]
    sent = Lineup.parse("10-10-20-25-25")
    for lineup, as_played, budget, wp_before in played.values():
        assert lineup == "10-10-20-25-25"
        assert budget == int(wp_before)  # floor(WP) of that round
        assert as_played == str(correct(sent, budget).lineup)
    assert [played[n][2] for n in (1, 2, 3)] == [90, 85, 110]
    assert played[3][1] == "10-10-20-25-25"
    assert outbox.new() == []  # no mail to the manager on the way (no newsletter published)
    assert digest_stats(game.context, 1)["moves"] == 1  # the digest counts the line once
    for number in (1, 2, 3, 4):
        assert game.league.replay(number).identical


def test_the_reply_says_until_which_round_it_stands_in_both_languages(game: Game) -> None:
    outbox = Outbox(game)
    register(game, outbox, "Neues Team: Rote Teufel\nAufstellung: 10-10-15-15-20 für 3 Runden")
    evaluate(game)
    game.send(game.mail("Eva <eva@player.example>",
                        "New team: Blue Boys\nLineup: 10-10-15-15-20 for 2 rounds",
                        subject="Lineup"))
    text = words(outbox.one().text)
    assert ('"Blue Boys" plays 10-10-15-15-20 in rounds 2 to 3 (2 rounds): the lineup stands '
            "until round 3") in text
    assert "stands until round 3 (sent for several rounds)" in text
    game.send(game.mail(HANS, "Status"))
    text = words(outbox.one().text)
    assert "Passwort" in text  # Status needs the password: nothing about the teams
    assert "steht bis" not in text


def test_status_says_until_which_round_the_lineup_stands(game: Game) -> None:
    outbox = Outbox(game)
    password = register(game, outbox, "Neues Team: Rote Teufel\n"
                                      "Rote Teufel: 10-10-15-15-20 für 3 Runden")
    evaluate(game)
    game.send(game.mail(HANS, f"Passwort: {password}\nStatus"))
    text = words(outbox.one().text)
    assert "Deine Teams für Spielrunde 2" in text
    assert "Aufstellung: 10-10-15-15-20 steht bis Spielrunde 3 (für mehrere Runden geschickt)" \
        in text
    evaluate(game)
    game.send(game.mail(HANS, f"Passwort: {password}\nStatus"))
    assert "steht bis Spielrunde 3" in words(outbox.one().text)  # its last round
    evaluate(game)
    game.send(game.mail(HANS, f"Passwort: {password}\nStatus"))
    text = words(outbox.one().text)
    assert "steht bis" not in text and "noch keine Aufstellung" in text


def test_a_newer_lineup_ends_it(game: Game) -> None:
    outbox = Outbox(game)
    password = register(game, outbox, "Neues Team: Rote Teufel\n"
                                      "Rote Teufel: 10-10-15-15-20 für 3 Runden")
    evaluate(game)
    game.send(game.mail(HANS, f"Passwort: {password}\nRote Teufel: 5-5-20-20-30"))
    text = words(outbox.one().text)
    assert ("Die Aufstellung, die du für „Rote Teufel“ für mehrere Runden geschickt hast "
            "(bis Spielrunde 3), endet mit Spielrunde 2") in text
    assert "steht bis" not in text
    evaluate(game)
    evaluate(game)
    assert {n: e[0] for n, e in entries(game).items()} == {1: "10-10-15-15-20",
                                                           2: "5-5-20-20-30"}


def test_a_new_lineup_ahead_replaces_the_old_one(game: Game) -> None:
    outbox = Outbox(game)
    password = register(game, outbox, "Neues Team: Rote Teufel\n"
                                      "Rote Teufel: 10-10-15-15-20 für 2 Runden")
    game.send(game.mail(HANS, f"Passwort: {password}\n"
                              "Rote Teufel: 5-5-20-20-30 für die nächsten drei Runden"))
    text = words(outbox.one().text)
    assert "endet mit Spielrunde 1" in text and "in den Spielrunden 1 bis 3" in text
    for _ in range(4):
        evaluate(game)
    assert {n: e[0] for n, e in entries(game).items()} == {n: "5-5-20-20-30" for n in (1, 2, 3)}


def test_the_same_lineup_for_one_round_ends_it_too_and_says_so(game: Game) -> None:
    outbox = Outbox(game)
    password = register(game, outbox, "Neues Team: Rote Teufel\n"
                                      "Rote Teufel: 10-10-15-15-20 für 3 Runden")
    game.send(game.mail(HANS, f"Passwort: {password}\nRote Teufel: 10-10-15-15-20"))
    text = words(outbox.one().text)
    assert "endet mit Spielrunde 1" in text and "für 3 Runden" in text
    evaluate(game)
    evaluate(game)
    assert sorted(entries(game)) == [1]


def test_a_withdrawal_ends_it(game: Game) -> None:
    outbox = Outbox(game)
    password = register(game, outbox, "Neues Team: Rote Teufel\nRote Teufel: 10-10-15-15-20")
    evaluate(game)  # played once: withdrawing it no longer cancels its registration
    game.send(game.mail(HANS, f"Passwort: {password}\n"
                              "Rote Teufel: 10-10-15-15-20 für 3 Runden"))
    outbox.new()
    game.send(game.mail(HANS, f"Passwort: {password}\nZurückziehen: Rote Teufel"))
    text = words(outbox.one().text)
    assert "zurückgezogen" in text and "(bis Spielrunde 4), endet mit Spielrunde 2" in text
    for _ in range(3):
        evaluate(game)
    assert sorted(entries(game)) == [1]


@pytest.mark.parametrize(("body", "subject", "needle"), [
    ("Rote Teufel: 10-10-15-15-20 für 6 Runden", "Aufstellung",
     "kann für höchstens 5 Runden geschickt werden, nicht für 6"),
    ("Aufstellung: 10-10-15-15-20 für sechs Runden", "Aufstellung",
     "nicht für 6"),
    ("Lineup: 10-10-15-15-20 for 6 rounds", "Lineup",
     "a lineup can be sent for at most 5 rounds, not 6"),
    ("Red Devils: 10-10-15-15-20 for 0 rounds", "Lineup", "not 0"),
])
def test_more_than_five_rounds_is_a_clear_error_that_changes_nothing(
    game: Game, body: str, subject: str, needle: str
) -> None:
    outbox = Outbox(game)
    team = "Red Devils" if "Red Devils" in body else "Rote Teufel"
    password = register(game, outbox, f"New team: {team}\nLineup: 1-1-10-10-10", "Lineup")
    before = moves_count(game)
    game.send(game.mail(HANS, f"Password: {password}\n{body}\nManager: Hans Meier",
                        subject=subject))
    text = words(outbox.one().text)
    assert needle in text
    assert moves_count(game) == before
    evaluate(game)
    evaluate(game)
    assert [e[0] for e in entries(game, team).values()] == ["1-1-10-10-10"]


def test_a_late_lineup_ahead_starts_with_the_next_round(game: Game) -> None:
    outbox = Outbox(game)
    password = register(game, outbox, "Neues Team: Rote Teufel\nRote Teufel: 10-10-15-15-20")
    with game.db.read() as conn:
        rnd = round_rows.open_round(conn)
    assert rnd is not None
    game.clock.now = rnd.deadline + timedelta(seconds=30)  # missed, not evaluated yet
    game.send(game.mail(HANS, f"Passwort: {password}\nRote Teufel: 5-5-20-20-30 für 2 Runden"))
    assert "in den Spielrunden 2 bis 3" in words(outbox.one().text)
    for _ in range(4):
        evaluate(game)
    assert {n: e[0] for n, e in entries(game).items()} == {
        1: "10-10-15-15-20", 2: "5-5-20-20-30", 3: "5-5-20-20-30"}


def test_the_reminder_names_the_lineups_that_stand(game: Game) -> None:
    outbox = Outbox(game)
    password = register(game, outbox, "Neues Team: Rote Teufel\nRote Teufel: 10-10-15-15-20\n"
                                      "Neues Team: Kiez Kicker / Kiez\n"
                                      "Kiez Kicker: 10-10-15-15-20")
    evaluate(game)  # both played round 1
    game.send(game.mail(HANS, f"Passwort: {password}\nKiez Kicker: 10-10-15-15-20 für 3 Runden"))
    outbox.new()
    with game.db.read() as conn:
        rnd = round_rows.open_round(conn)
    assert rnd is not None and rnd.number == 2
    assert send_reminders(game.context, rnd.deadline - timedelta(hours=24), 24) == 1
    (reminder,) = outbox.new()
    text = words(reminder.text)
    assert reminder.to == ADDRESS and "Rote Teufel" in text
    assert "für mehrere Runden geschickt; sie stehen: - Kiez Kicker: bis Spielrunde 4" in text
    assert reminder.html is not None and "bis Spielrunde 4" in reminder.html


def test_the_help_names_the_lineup_for_several_rounds(game: Game) -> None:
    outbox = Outbox(game)
    game.send(game.mail(HANS, "Hilfe", subject="Frage"))
    assert "Rote Teufel: 10-10-15-15-20 für 3 Runden   (höchstens 5 Runden)" in outbox.one().text
