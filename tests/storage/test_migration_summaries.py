"""Migration 9: what the archive lists of each round (winner, field size)
and of each team's round (place, stage reached, last group stage) become
columns, filled in from the stored public reports exactly as the evaluation
writes them for a new round; a report that cannot be read stops the
migration with the round's number (the old state stays as it was)."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from bot.league.service import League
from bot.rules.lineup import Lineup
from bot.rules.report import RoundReport
from bot.rules.requests import ParsedMoves, RegisterTeam, SetLineup
from bot.storage import open_database
from bot.storage.errors import StorageError
from bot.storage.migrations import MIGRATIONS
from tests.support.league import FAST, FIRST_DEADLINE, START, make_league, submit

SUMMARIES = next(m for m in MIGRATIONS if getattr(m.step, "__name__", "") == "round_summaries_v9")
QUERIES = ("SELECT round, winner, teams, players FROM round_results ORDER BY round",
           "SELECT round, team_id, place, reached, last_stage FROM round_entries"
           " ORDER BY round, team_id")


def played(tmp_path: Path, rounds: int = 3, players: int = 12) -> League:
    """``players`` teams (most of a 16-team field) play ``rounds`` rounds."""
    league = make_league(tmp_path, replace(FAST, passwords=False))
    for number in range(1, rounds + 1):
        with league.db.read() as conn:
            rnd = league.open_round(conn)
        assert rnd is not None
        for i in range(players):
            lineup = Lineup(i % 11, (i * 7) % 11, 15 + i, 30 - i, 20 + number)
            requests: list = [SetLineup(f"Aufstellung: {lineup}", None, lineup)]
            if number == 1:
                requests.insert(0, RegisterTeam(f"Neues Team: Team {i}", f"Team {i}", None))
            with league.db.transaction() as conn:
                submit(league, conn, sender=f"m{i}@x.example", sender_name=None,
                       moves=ParsedMoves(tuple(requests), (), ()),
                       now=rnd.deadline - (FIRST_DEADLINE - START) / 2)
        assert league.evaluate_due(rnd.deadline, force=True, seed=number) is not None
    return league


def without_summaries(path: Path) -> None:
    """The state as it was before the migration: no summary columns."""
    conn = sqlite3.connect(path / "turnited.sqlite3")
    with conn:
        for column in ("winner", "teams", "players"):
            conn.execute(f"ALTER TABLE round_results DROP COLUMN {column}")
        for column in ("place", "reached", "last_stage"):
            conn.execute(f"ALTER TABLE round_entries DROP COLUMN {column}")
    conn.close()


def migrate_summaries(path: Path) -> None:
    """Run the migration's step in one transaction, as ``apply_migrations``
    does (the later migrations have run already: they are not undone)."""
    conn = sqlite3.connect(path / "turnited.sqlite3", isolation_level=None)
    try:
        conn.execute("BEGIN")
        try:
            SUMMARIES.step(conn)  # type: ignore[operator]
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
    finally:
        conn.close()


def read(path: Path) -> list[list[tuple]]:
    conn = sqlite3.connect(path / "turnited.sqlite3")
    try:
        return [[tuple(r) for r in conn.execute(q)] for q in QUERIES]
    finally:
        conn.close()


def test_the_columns_are_filled_in_as_the_evaluation_writes_them(tmp_path: Path) -> None:
    league = played(tmp_path)
    state = tmp_path / "state"
    with league.db.read() as conn:
        reports = {n: RoundReport.from_json(league.stored_report(n)) for n in (1, 2, 3)}
        names = dict(conn.execute("SELECT id, name FROM teams").fetchall())
    league.db.close()
    written = read(state)
    # what the evaluation wrote is the report's own reading
    for number, winner, teams, players in written[0]:
        report = reports[number]
        assert (winner, teams, players) == (report.winner, 16, 12)
    for number, team_id, *reached in written[1]:
        assert tuple(reached) == reports[number].stage_reached(names[team_id])
    assert "group" in {r[3] for r in written[1]} and any(r[2] for r in written[1])  # placed
    without_summaries(state)
    migrate_summaries(state)
    assert read(state) == written
    db = open_database(state)
    assert db.schema_version() == MIGRATIONS[-1].version
    db.close()


def test_an_unreadable_stored_report_stops_the_migration(tmp_path: Path) -> None:
    league = played(tmp_path, rounds=2)
    league.db.close()
    state = tmp_path / "state"
    without_summaries(state)
    conn = sqlite3.connect(state / "turnited.sqlite3")
    with conn:
        conn.execute("UPDATE round_results SET public_report = '{\"format\": 9}' WHERE round = 2")
    conn.close()
    with pytest.raises(StorageError, match=r"stored report of round 2 cannot be read.*backup"):
        migrate_summaries(state)
    conn = sqlite3.connect(state / "turnited.sqlite3")
    try:  # nothing of the migration stayed
        columns = {r[1] for r in conn.execute("PRAGMA table_info(round_results)")}
        assert "winner" not in columns
    finally:
        conn.close()
