"""Auditable lots (RULES.md §4) and the rollback of an evaluation, on real
database files: the seed is committed when a round opens, the evaluation
plays it, and a rollback followed by an evaluation is identical to never
having rolled back."""

from __future__ import annotations

import random
from dataclasses import replace
from decimal import Decimal

import pytest

from bot.league.errors import UnknownRound
from bot.league.service import CannotRollBack, League
from bot.rules.lots import seed_commitment, verify_seed
from bot.storage import open_database, results
from tests.league.conftest import (
    FAST,
    FIRST_DEADLINE,
    START,
    Player,
    after_deadline,
    lineup,
    register,
)

SEASON = replace(FAST, season_rounds=2)


def make(tmp_path, name: str = "state", seeds: int = 99, settings=SEASON) -> League:
    draws = random.Random(seeds)
    league = League(open_database(tmp_path / name), settings, lot=random.Random(0),
                    seeds=lambda: draws.randrange(2**63))
    league.ensure_first_round(START, FIRST_DEADLINE)
    return league


def evaluate(league: League):
    result = league.evaluate_due(after_deadline(league))
    assert result is not None
    return result


def commitment(league: League, number: int) -> str | None:
    with league.db.read() as conn:
        return league.commitment(conn, number)


def evaluation_rows(league: League, number: int) -> dict[str, object]:
    """Everything an evaluation of round ``number`` decides (not its clock times)."""
    with league.db.read() as conn:
        q = conn.execute
        return {
            "result": q("SELECT inputs, report, public_report FROM round_results"
                        " WHERE round = ?", (number,)).fetchall(),
            "entries": q("SELECT * FROM round_entries WHERE round = ? ORDER BY team_id",
                         (number,)).fetchall(),
            "wp_history": q("SELECT * FROM wp_history ORDER BY team_id, round, kind").fetchall(),
            "teams": q("SELECT id, name, wp, psz, deleted_round, doomed_round,"
                       " last_played_round FROM teams ORDER BY id").fetchall(),
            "rounds": q("SELECT number, season, round_in_season, state, seed FROM rounds"
                        " ORDER BY number").fetchall(),
        }


def season(league: League) -> dict[str, Player]:
    """Round 1: three managers play; round 2 (the season's last): one of them
    registers two more teams, so his weakest is deleted at the evaluation."""
    p = {k: Player(league, f"{k}@example.org") for k in ("anna", "bert", "cleo")}
    p["anna"].send(register("Rote Teufel"), lineup("10-10-15-15-20"))
    p["bert"].send(register("Blaue Jungs"), lineup("5-5-25-25-25"))
    p["cleo"].send(register("Grüne Welle"), lineup("0-10-30-20-20"))
    evaluate(league)
    at = after_deadline(league, -60)
    p["anna"].send(lineup("10-10-15-15-20", "Rote Teufel"), now=at)
    p["bert"].send(register("Neue Sterne"), lineup("8-8-20-20-20"),
                   register("Noch Neuere"), lineup("9-9-18-18-18"), now=at)
    p["cleo"].send(lineup("0-10-30-20-20", "Grüne Welle"), now=at)
    return p


def test_the_seed_is_committed_when_a_round_opens_and_played(tmp_path) -> None:
    league = make(tmp_path)
    first = commitment(league, 1)
    assert first is not None and len(first) == 64
    with league.db.read() as conn:
        assert league.status(conn, START).commitment == first
    # the next round's commitment exists as soon as it opens, before any lineup
    Player(league, "anna@example.org").send(register("Rote Teufel"), lineup("10-10-15-15-20"))
    result = evaluate(league)
    assert verify_seed(1, result.seed, first)
    assert result.report.seed == result.seed
    second = commitment(league, 2)
    assert second is not None and second != first
    with league.db.read() as conn:
        assert league.status(conn, after_deadline(league, -60)).commitment == second
        assert league.open_round(conn).seed is not None
    assert seed_commitment(2, league.open_round(league.db.connect()).seed) == second
    assert league.replay(1).identical


def test_a_round_of_old_state_without_a_seed_draws_one_at_its_evaluation(tmp_path) -> None:
    league = make(tmp_path)
    with league.db.transaction() as conn:  # as a round opened before commitments existed
        conn.execute("UPDATE rounds SET seed = NULL")
        conn.execute("DELETE FROM round_seeds")
    assert commitment(league, 1) is None
    with league.db.read() as conn:
        assert league.status(conn, START).commitment is None
    result = evaluate(league)
    assert isinstance(result.seed, int) and league.replay(1).identical
    assert commitment(league, 2) is not None


def test_rollback_then_evaluation_is_identical_to_never_rolling_back(tmp_path) -> None:
    straight, rolled = make(tmp_path, "straight"), make(tmp_path, "rolled")
    for league in (straight, rolled):
        season(league)
    first = evaluate(straight)
    assert first.aged and first.deleted  # the season's end: ageing and a deleted team
    once = evaluate(rolled)
    assert evaluation_rows(rolled, 2) == evaluation_rows(straight, 2)

    undone = rolled.rollback(after_deadline(rolled))
    assert (undone.round, undone.corrects, undone.aged) == (2, 1, True)
    assert undone.restored == once.deleted
    with rolled.db.read() as conn:
        rnd = rolled.open_round(conn)
        assert (rnd.number, rnd.seed, rnd.corrects) == (2, once.seed, 1)
        anna = conn.execute("SELECT wp, psz FROM teams WHERE name = 'Rote Teufel'").fetchone()
        # back to the WP/PSZ after round 1 (no gain, no ageing of round 2)
        gain = conn.execute("SELECT wp_after FROM wp_history h JOIN teams t ON t.id = h.team_id"
                            " WHERE t.name = 'Rote Teufel' AND round = 1").fetchone()[0]
        assert Decimal(anna[0]) == Decimal(gain)
    assert commitment(rolled, 2) == commitment(straight, 2)  # the same committed seed

    again = evaluate(rolled)
    assert again.seed == once.seed == first.seed
    assert again.report == first.report
    assert evaluation_rows(rolled, 2) == evaluation_rows(straight, 2)
    # the next round keeps the commitment it had before the rollback
    assert commitment(rolled, 3) == commitment(straight, 3)
    assert all(rolled.replay(n).identical for n in (1, 2))
    with rolled.db.read() as conn:
        assert rolled.open_round(conn).corrects == 0
        assert conn.execute("SELECT corrects FROM rounds WHERE number = 2").fetchone()[0] == 1


def test_moves_for_the_next_round_survive_a_rollback(tmp_path) -> None:
    league = make(tmp_path)
    anna = Player(league, "anna@example.org")
    anna.send(register("Rote Teufel"), lineup("10-10-15-15-20"))
    evaluate(league)
    anna.send(lineup("9-9-15-15-20", "Rote Teufel"), now=after_deadline(league, -60))
    undone = league.rollback(after_deadline(league))
    assert (undone.round, undone.removed_round, undone.kept_moves) == (1, 2, 1)
    evaluate(league)
    with league.db.read() as conn:
        status = league.status(conn, after_deadline(league, -60))
    assert status.round == 2 and status.teams_with_lineup == ("Rote Teufel",)


def test_rollback_is_refused_when_there_is_nothing_or_a_later_round(tmp_path) -> None:
    league = make(tmp_path)
    with pytest.raises(CannotRollBack, match="nothing to roll back"):
        league.rollback(START)
    evaluate(league)
    evaluate(league)
    before = evaluation_rows(league, 1)
    with pytest.raises(CannotRollBack, match="round 2 was evaluated after it") as caught:
        league.rollback(after_deadline(league), 1)
    assert (caught.value.round, caught.value.last) == (1, 2)
    with pytest.raises(UnknownRound):
        league.rollback(after_deadline(league), 3)
    assert evaluation_rows(league, 1) == before  # a refusal changes nothing
    assert league.rollback(after_deadline(league), 2).round == 2
    assert league.rollback(after_deadline(league)).round == 1
    with pytest.raises(CannotRollBack):
        league.rollback(after_deadline(league))


def test_old_state_opens_replays_identically_and_its_open_round_draws_a_seed(tmp_path) -> None:
    league = make(tmp_path)
    Player(league, "anna@example.org").send(register("Rote Teufel"), lineup("10-10-15-15-20"))
    evaluate(league)
    evaluate(league)
    league.db.close()
    # Take the state back to schema version 3: no commitments, no new columns,
    # the open round opened without a seed.
    import sqlite3

    conn = sqlite3.connect(tmp_path / "state" / "turnited.sqlite3")
    summaries = ("SELECT round, winner, teams, players FROM round_results ORDER BY round",
                 "SELECT round, team_id, place, reached, last_stage FROM round_entries"
                 " ORDER BY round, team_id")
    written = [conn.execute(q).fetchall() for q in summaries]
    with conn:
        for column in ("winner", "teams", "players"):  # and v9
            conn.execute(f"ALTER TABLE round_results DROP COLUMN {column}")
        for column in ("place", "reached", "last_stage"):
            conn.execute(f"ALTER TABLE round_entries DROP COLUMN {column}")
        conn.execute("DROP TABLE round_seeds")
        conn.execute("DROP TABLE previews")  # v13
        conn.execute("ALTER TABLE rounds DROP COLUMN corrects")
        conn.execute("ALTER TABLE managers DROP COLUMN banned_at")
        conn.execute("UPDATE rounds SET seed = NULL WHERE state = 'open'")
        for index in ("outbox_kind_round", "inbound_received", "moves_received"):  # and v5
            conn.execute(f"DROP INDEX {index}")
        conn.execute("ALTER TABLE outbox DROP COLUMN size")
        conn.execute("ALTER TABLE outbox DROP COLUMN sha256")
        conn.execute("DROP TABLE imported_teams")  # and v8 (a league taken over)
        conn.execute("DROP TABLE league_import")
        for index in ("inbound_sender", "inbound_trouble"):  # v10
            conn.execute(f"DROP INDEX {index}")
        for column in ("code", "authenticated", "thread", "attempts", "notices"):
            conn.execute(f"ALTER TABLE inbound DROP COLUMN {column}")
        # v11: the results as JSON texts, the public report stored beside the report
        texts = [(n, *results.stored_inputs_and_report(conn, n),
                  results.stored_report(conn, n, public=True), created)
                 for n, created in conn.execute("SELECT round, created_at FROM round_results")]
        conn.execute("DROP TABLE round_results")
        conn.execute("CREATE TABLE round_results (round INTEGER PRIMARY KEY REFERENCES rounds"
                     " (number), inputs TEXT NOT NULL, report TEXT NOT NULL, public_report"
                     " TEXT NOT NULL, created_at TEXT NOT NULL)")
        conn.executemany("INSERT INTO round_results VALUES (?, ?, ?, ?, ?)", texts)
        # v12: the retention
        conn.execute("DROP INDEX inbound_spooled")
        conn.execute("ALTER TABLE inbound DROP COLUMN spool_pruned_at")
        conn.execute("DROP TABLE retention_runs")
        conn.execute("ALTER TABLE managers DROP COLUMN unsubscribed_at")  # v14
        conn.execute("ALTER TABLE managers DROP COLUMN language_chosen_at")  # v15
        conn.execute("DROP TABLE confirmations")  # v16
        conn.execute("ALTER TABLE managers DROP COLUMN erased_at")  # v17
        conn.execute("ALTER TABLE teams DROP COLUMN retired")
        conn.execute("DROP TABLE erasures")
        conn.execute("DROP TABLE spool_removals")
        for column in ("ahead_from", "ahead_until"):  # v18: lineups for several rounds
            conn.execute(f"ALTER TABLE moves DROP COLUMN {column}")
        conn.execute("DELETE FROM schema_migrations WHERE version >= 4")
    conn.close()
    old = League(open_database(tmp_path / "state"), SEASON)
    with old.db.read() as conn:  # read back from the stored reports as evaluated
        assert [[tuple(r) for r in conn.execute(q)] for q in summaries] == written
    assert written[0][0][1] and written[0][0][2:] == (16, 1)  # a winner, 16 teams, 1 player
    assert all(old.replay(n).identical for n in (1, 2))
    assert commitment(old, 3) is None and commitment(old, 1) is None
    result = evaluate(old)
    assert result.round == 3 and old.replay(3).identical
    assert commitment(old, 4) is not None
    undone = old.rollback(after_deadline(old))  # rolls back with the seed it drew
    assert undone.round == 3
    assert evaluate(old).report == result.report


def test_a_banned_managers_teams_sit_out_keep_their_wp_and_get_no_reminder(tmp_path) -> None:
    league = make(tmp_path, settings=FAST)  # no season end: WP change only by playing
    anna, bert = Player(league, "anna@example.org"), Player(league, "bert@example.org")
    anna.send(register("Rote Teufel"), lineup("10-10-15-15-20"))
    bert.send(register("Blaue Jungs"), lineup("5-5-25-25-25"))
    evaluate(league)
    with league.db.read() as conn:
        wp = conn.execute("SELECT wp FROM teams WHERE name = 'Blaue Jungs'").fetchone()[0]
        assert {t.address for t in league.managers_without_lineup(conn, 2)} == {
            "anna@example.org", "bert@example.org"}
    at = after_deadline(league, -60)
    bert.send(lineup("5-5-25-25-25", "Blaue Jungs"), now=at)
    manager, before = league.ban("Bert <BERT@example.org>", at)
    assert manager.address == "bert@example.org" and not before
    with league.db.read() as conn:
        assert league.is_banned(conn, "bert@example.org")
        assert league.status(conn, at).teams_with_lineup == ()
        assert [t.address for t in league.managers_without_lineup(conn, 2)] == [
            "anna@example.org"]
    anna.send(lineup("10-10-15-15-20", "Rote Teufel"), now=at)
    evaluate(league)
    with league.db.read() as conn:
        played = conn.execute("SELECT t.name FROM round_entries e JOIN teams t"
                              " ON t.id = e.team_id WHERE e.round = 2").fetchall()
        assert [r[0] for r in played] == ["Rote Teufel"]
        assert conn.execute("SELECT wp FROM teams WHERE name = 'Blaue Jungs'").fetchone()[0] == wp
    assert league.ban("bert@example.org", at)[1] is True  # banned already: nothing changes
    assert league.unban("bert@example.org")[1] is True
    assert league.unban("bert@example.org")[1] is False
    with league.db.read() as conn:
        assert not league.is_banned(conn, "bert@example.org")
    bert.send(lineup("5-5-25-25-25", "Blaue Jungs"), now=after_deadline(league, -60))
    evaluate(league)
    with league.db.read() as conn:
        assert conn.execute("SELECT COUNT(*) FROM round_entries WHERE round = 3").fetchone()[0] == 1


def test_late_mail_for_the_next_round_finds_its_seed_committed_already(tmp_path) -> None:
    league = make(tmp_path)
    promised = commitment(league, 2)  # fixed when round 1 opened
    assert promised is not None
    anna = Player(league, "anna@example.org")
    result = anna.send(register("Rote Teufel"), lineup("10-10-15-15-20"),
                       now=after_deadline(league))  # too late for round 1: counts for 2
    assert result.round == 2
    evaluate(league)
    assert commitment(league, 2) == promised and commitment(league, 3) is not None
    with league.db.read() as conn:
        assert seed_commitment(2, league.open_round(conn).seed) == promised
        committed = conn.execute("SELECT committed_at FROM round_seeds WHERE round = 2"
                                 ).fetchone()[0]
        received = conn.execute("SELECT received_at FROM moves").fetchone()[0]
    assert committed < received
