"""RULES.md §7 (managers and teams): names, the two-team rule, the latest
lineup, withdrawals and late mail — managers write mail text to a league on a
real SQLite file, and the replies they would read are rendered."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

from bot.league.outcome import Code
from tests.compliance.support import (
    Manager,
    evaluate,
    make_league,
    open_deadline,
    reply_text,
    team,
)


def test_long_names_are_shortened_and_the_reply_says_so(tmp_path) -> None:
    league = make_league(tmp_path)
    m = Manager(league, "lang@x.example")
    given = "Fußballclub Rot-Weiß Oberhausen-Sterkrade 1904"  # 46 characters
    outcome = m.write(f"Neues Team: {given}\n10-10-15-15-20")
    assert outcome.accepted
    registered = outcome.teams[0]
    assert len(registered.name) <= 30 and len(registered.short_name) <= 15
    assert registered.name == team(league, registered.name)["name"]
    assert {Code.NAME_SHORTENED, Code.SHORT_NAME_DERIVED} <= set(outcome.codes())
    text = reply_text(outcome)
    assert f"„{given}“ ist länger als 30 Zeichen und wurde gekürzt zu „{registered.name}“" in text
    derived = f"für „{registered.name}“ gilt „{registered.short_name}“"
    assert f"Kein Kurzname angegeben; {derived}" in text
    english = reply_text(outcome, "en")
    assert "longer than 30 characters" in english and registered.name in english

    short = Manager(league, "kurz@x.example").write(
        "Neues Team: Blau / Ein viel zu langer Kurzname\n10-10-15-15-20")
    assert len(short.teams[0].short_name) <= 15 and Code.SHORT_NAME_SHORTENED in short.codes()
    assert "länger als 15 Zeichen" in reply_text(short)


def test_names_are_unique_forever_ignoring_case_and_spaces(tmp_path) -> None:
    league = make_league(tmp_path)
    anna = Manager(league, "anna@x.example")
    anna.write("Neues Team: Rote Teufel\n10-10-15-15-20")
    anna.write("Neues Team: Blaue Adler\n10-10-15-15-20")
    bert = Manager(league, "bert@x.example")
    taken = bert.write("Neues Team: rote   TEUFEL\n10-10-15-15-20")
    assert not taken.accepted and Code.NAME_TAKEN in taken.codes()
    assert "gibt oder gab es schon" in reply_text(taken)
    evaluate(league, seed=1)
    # Anna's third team dooms one of her teams; once deleted its name stays taken
    anna.write("Neues Team: Grüne Jäger\n10-10-15-15-20")
    doomed = next(n for n in ("Rote Teufel", "Blaue Adler") if team(league, n)["doomed_round"])
    evaluate(league, seed=2)
    assert team(league, doomed)["deleted_round"] == 2
    again = bert.write(f"Neues Team: {doomed.upper()}\n10-10-15-15-20")
    assert not again.accepted and Code.NAME_TAKEN in again.codes()
    with league.db.read() as conn:
        assert conn.execute("SELECT COUNT(*) FROM teams WHERE manager_id IN"
                            " (SELECT id FROM managers WHERE address = ?)",
                            ("bert@x.example",)).fetchone()[0] == 0


def test_teams_cannot_be_renamed(tmp_path) -> None:
    league = make_league(tmp_path)
    m = Manager(league, "m@x.example")
    m.write("Neues Team: Alter Name / Alt\n10-10-15-15-20")
    outcome = m.write("Kurzname: Neu")
    assert not outcome.accepted and Code.SHORT_NAME_WITHOUT_TEAM in outcome.codes()
    assert "Teams können nicht umbenannt werden" in reply_text(outcome)
    assert team(league, "Alter Name")["short_name"] == "Alt"
    again = m.write("Neues Team: alter name\n10-10-15-15-20")
    assert not again.accepted and Code.NAME_TAKEN in again.codes()


def _two_old_teams(tmp_path, lot_seed: int = 0,
                   body: str = "Erstes: 10-10-15-15-20\nZweites: 0-10-30-20-20"):
    league = make_league(tmp_path, lot_seed=lot_seed)
    m = Manager(league, "drei@x.example")
    m.write(f"Neues Team: Erstes\nNeues Team: Zweites\n{body}")
    return league, m


def test_a_third_team_dooms_the_weaker_one_at_evaluation(tmp_path) -> None:
    league, m = _two_old_teams(tmp_path)
    evaluate(league, seed=3)
    wp = {n: Decimal(team(league, n)["wp"]) for n in ("Erstes", "Zweites")}
    assert wp["Erstes"] != wp["Zweites"]
    weaker = min(wp, key=wp.get)
    stronger = max(wp, key=wp.get)
    outcome = m.write("Neues Team: Drittes\n10-10-15-15-20")
    assert outcome.accepted
    warning = [n for n in outcome.notices if n.code == Code.TEAM_WILL_BE_DELETED]
    assert [n.params["team"] for n in warning] == [weaker]
    text = reply_text(outcome)
    assert f"Dein schwächeres Team „{weaker}“" in text and "endgültig gelöscht" in text
    assert "Zurückziehen: Drittes" in text  # how to take the registration back
    m.write(f"{weaker}: 10-10-15-15-20\n{stronger}: 10-10-15-15-20")
    result = evaluate(league, seed=4)
    assert result.deleted == (weaker,)
    assert team(league, weaker)["deleted_round"] == 2
    players = {t.name for t in result.report.players}
    assert players == {stronger, "Drittes"}  # the doomed team did not play
    later = m.write(f"{weaker}: 10-10-15-15-20")
    assert not later.accepted and Code.TEAM_DELETED in later.codes()


def test_equal_wp_then_played_longer_ago_then_lot(tmp_path) -> None:
    # Lineups without any chance lose every game and keep 90 WP.
    league, m = _two_old_teams(tmp_path / "ago", body="Erstes: 0-0-0-0-0")
    evaluate(league, seed=1)  # only Erstes plays round 1
    m.write("Zweites: 0-0-0-0-0")
    evaluate(league, seed=2)  # only Zweites plays round 2
    wp = {n: Decimal(team(league, n)["wp"]) for n in ("Erstes", "Zweites")}
    assert wp == {"Erstes": 90, "Zweites": 90}
    outcome = m.write("Neues Team: Drittes\n10-10-15-15-20")
    doomed = [n.params["team"] for n in outcome.notices if n.code == Code.TEAM_WILL_BE_DELETED]
    assert doomed == ["Erstes"]  # played longer ago

    chosen = set()
    for seed in range(12):
        league, m = _two_old_teams(tmp_path / f"lot{seed}", lot_seed=seed, body="")
        evaluate(league, seed=1)  # neither played: equal in every respect
        outcome = m.write("Neues Team: Drittes\n10-10-15-15-20")
        [notice] = [n for n in outcome.notices if n.code == Code.TEAM_WILL_BE_DELETED]
        chosen.add(notice.params["team"])
    assert chosen == {"Erstes", "Zweites"}  # decided by lot


def test_withdrawing_the_new_team_saves_the_old_one(tmp_path) -> None:
    league, m = _two_old_teams(tmp_path)
    evaluate(league, seed=3)
    m.write("Neues Team: Drittes\n10-10-15-15-20")
    outcome = m.write("Zurückziehen: Drittes")
    assert Code.DELETION_CANCELLED in outcome.codes()
    result = evaluate(league, seed=4)
    assert result.deleted == ()
    with league.db.read() as conn:
        names = [r[0] for r in conn.execute("SELECT name FROM teams WHERE deleted_round IS NULL")]
    assert sorted(names) == ["Erstes", "Zweites"]


def test_the_latest_lineup_before_the_deadline_counts(tmp_path) -> None:
    league = make_league(tmp_path)
    m = Manager(league, "m@x.example")
    deadline = open_deadline(league)
    m.write("Neues Team: Spaet\n10-10-15-15-20", now=deadline - timedelta(days=2))
    m.write("Spaet: 0-10-30-20-20", now=deadline - timedelta(hours=1))
    m.write("Spaet: 5-5-20-20-30", now=deadline)  # exactly at the deadline: on time
    late = m.write("Spaet: 9-9-20-20-20", now=deadline + timedelta(seconds=1))
    assert late.late and late.round == 2
    evaluate(league, seed=1)
    with league.db.read() as conn:
        rows = conn.execute("SELECT round, lineup FROM round_entries").fetchall()
    assert [tuple(r) for r in rows] == [(1, "5-5-20-20-30")]
    evaluate(league, seed=2)
    with league.db.read() as conn:
        row = conn.execute("SELECT lineup FROM round_entries WHERE round = 2").fetchone()
    assert row[0] == "9-9-20-20-20"


def test_a_withdrawn_team_does_not_play(tmp_path) -> None:
    league = make_league(tmp_path)
    m = Manager(league, "m@x.example")
    m.write("Neues Team: Zieher\n10-10-15-15-20")
    evaluate(league, seed=1)
    m.write("Zieher: 10-10-15-15-20")
    outcome = m.write("Zurückziehen: Zieher")
    assert Code.WITHDRAWN in outcome.codes() and outcome.teams[0].withdrawn
    assert "zurückgezogen" in reply_text(outcome)
    assert evaluate(league, seed=2).report.empty
    m.write("Zurückziehen: Zieher")
    m.write("Zieher: 0-10-30-20-20")  # a lineup after the withdrawal counts again
    result = evaluate(league, seed=3)
    assert [t.name for t in result.report.players] == ["Zieher"]


def test_late_mail_counts_for_the_next_round_and_says_so(tmp_path) -> None:
    league = make_league(tmp_path)
    m = Manager(league, "m@x.example")
    m.write("Neues Team: Puenktlich\n10-10-15-15-20")
    late_at = open_deadline(league) + timedelta(minutes=5)
    outcome = m.write("Puenktlich: 0-10-30-20-20", now=late_at)
    assert outcome.accepted and outcome.late and outcome.round == 2
    assert Code.LATE in outcome.codes()
    text = reply_text(outcome)
    assert "nach dem Einsendeschluss von Spielrunde 1" in text and "gilt für Spielrunde 2" in text
    assert "after the deadline of round 1" in reply_text(outcome, "en")
    result = evaluate(league, seed=1)
    assert result.report.teams[0].name == "Puenktlich"
    with league.db.read() as conn:
        first = conn.execute("SELECT lineup FROM round_entries WHERE round = 1").fetchone()[0]
    assert first == "10-10-15-15-20"  # the late lineup did not replace it
    evaluate(league, seed=2)
    with league.db.read() as conn:
        second = conn.execute("SELECT lineup FROM round_entries WHERE round = 2").fetchone()[0]
    assert second == "0-10-30-20-20"
