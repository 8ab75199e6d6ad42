"""A round's stored result (issue 22): compressed, the public report kept once
(derived from the report when it is the report without the player lineups),
every text read back byte for byte; migration 11 converts old rounds and they
still replay as identical. Real SQLite files, real evaluations."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime

from bot.league.evaluation import canonical_json
from bot.league.service import League
from bot.rules.report import public_report
from bot.storage import DATABASE_FILE, open_database, results
from tests.compliance.support import Manager, evaluate, make_league

LINEUPS = ("10-10-15-15-20", "5-5-25-25-25", "0-10-20-30-20", "8-8-20-20-26")

V10_TABLE = ("CREATE TABLE round_results (round INTEGER PRIMARY KEY REFERENCES rounds (number),"
             " inputs TEXT NOT NULL, report TEXT NOT NULL, public_report TEXT NOT NULL,"
             " created_at TEXT NOT NULL, winner TEXT, teams INTEGER, players INTEGER)")


def played(tmp_path, rounds: int = 2) -> League:
    """A league of four teams after ``rounds`` evaluated rounds."""
    league = make_league(tmp_path)
    managers = [Manager(league, f"m{n}@player.example") for n in range(4)]
    for n, manager in enumerate(managers):
        manager.write(f"Neues Team: Elf {n}")
    for number in range(rounds):
        for n, (manager, lineup) in enumerate(zip(managers, LINEUPS, strict=True)):
            manager.write(f"Elf {n}: {lineup}")
        assert evaluate(league, seed=number + 7).round == number + 1
    return league


def test_a_round_is_stored_compressed_and_its_public_report_once(tmp_path) -> None:
    league = played(tmp_path, rounds=1)
    with league.db.read() as conn:
        inputs, report, public = conn.execute(
            "SELECT inputs, report, public_report FROM round_results").fetchone()
        full_text = results.stored_report(conn, 1, public=False)
        public_text = results.stored_report(conn, 1, public=True)
        stored_inputs, stored_report = results.stored_inputs_and_report(conn, 1)
    assert isinstance(report, bytes) and isinstance(inputs, bytes) and public is None
    assert len(report) * 3 < len(full_text.encode())  # compressed at least 3:1
    assert stored_report == full_text == canonical_json(json.loads(full_text))
    # The public text is what the evaluation made of the report, byte for byte.
    assert public_text == canonical_json(public_report(json.loads(full_text)))
    assert all("lineup" not in t for t in json.loads(public_text)["teams"] if not t["gm"])
    assert json.loads(stored_inputs)["seed"] == json.loads(full_text)["seed"]
    assert league.replay(1).identical


def test_a_public_report_of_another_shape_is_kept_as_given(tmp_path) -> None:
    db = open_database(tmp_path)
    report = canonical_json({"format": 2, "teams": [
        {"name": "A", "gm": False, "lineup": "10-10-15-15-20"},
        {"name": "GM 1", "gm": True, "lineup": "0-10-16-15-39"}]})
    stripped = canonical_json({"format": 2, "teams": [
        {"name": "A", "gm": False}, {"name": "GM 1", "gm": True, "lineup": "0-10-16-15-39"}]})
    other = canonical_json({"format": 2, "teams": [{"name": "A", "gm": False}], "note": "x"})
    now = datetime(2026, 12, 1, tzinfo=UTC)
    with db.transaction() as conn:
        for number in (1, 2):
            conn.execute("INSERT INTO rounds (number, season, round_in_season, deadline,"
                         " state, opened_at, evaluated_at) VALUES (?, 1, ?, 'x', 'evaluated',"
                         " 'x', 'x')", (number, number))
        summary = results.RoundSummary(winner="A", teams=2, players=1)
        results.insert_result(conn, 1, inputs="{}", report=report, public_report=stripped,
                              now=now, summary=summary)
        results.insert_result(conn, 2, inputs="{}", report=report, public_report=other, now=now,
                              summary=summary)
    with db.read() as conn:
        kept = [r[0] for r in conn.execute("SELECT public_report FROM round_results ORDER BY 1")]
        assert kept[0] is None and results.decode(kept[1]) == other
        assert results.stored_report(conn, 1, public=True) == stripped
        assert results.stored_report(conn, 2, public=True) == other
        assert results.stored_report(conn, 2, public=False) == report
        assert results.stored_report(conn, 3, public=True) is None


def _back_to_version_10(path) -> dict[int, tuple[str, str, str]]:
    """The database as schema version 10 stored its results: JSON texts, the
    public one beside the report (and the round's summary columns). Returns
    the texts by round."""
    conn = sqlite3.connect(path)
    with conn:
        texts = {n: (*results.stored_inputs_and_report(conn, n),
                     results.stored_report(conn, n, public=True))
                 for (n,) in conn.execute("SELECT round FROM round_results")}
        kept = {n: rest for n, *rest in conn.execute(
            "SELECT round, created_at, winner, teams, players FROM round_results")}
        conn.execute("DROP TABLE round_results")
        conn.execute(V10_TABLE)
        conn.executemany("INSERT INTO round_results VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                         [(n, *t, *kept[n]) for n, t in texts.items()])
        conn.execute("DROP INDEX inbound_spooled")
        conn.execute("ALTER TABLE inbound DROP COLUMN spool_pruned_at")
        conn.execute("DROP TABLE retention_runs")
        conn.execute("ALTER TABLE moves DROP COLUMN ahead_from")  # migration 13's
        conn.execute("ALTER TABLE moves DROP COLUMN ahead_until")
        conn.execute("DELETE FROM schema_migrations WHERE version >= 11")
    conn.close()
    return texts


def test_migration_11_compresses_old_rounds_and_they_replay_identically(tmp_path) -> None:
    league = played(tmp_path, rounds=2)
    settings = league.settings
    league.db.close()
    path = tmp_path / "state" / DATABASE_FILE
    texts = _back_to_version_10(path)
    # An old round whose public report is not its report without lineups
    # (a layout an older version may have written) keeps it.
    odd = canonical_json({**json.loads(texts[2][2]), "written_by": "an older bot"})
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE round_results SET public_report = ? WHERE round = 2", (odd,))
    texts[2] = (texts[2][0], texts[2][1], odd)
    old = League(open_database(tmp_path / "state"), settings)
    assert old.db.schema_version() >= 12
    with old.db.read() as conn:
        for number, (inputs, report, public) in texts.items():
            assert results.stored_inputs_and_report(conn, number) == (inputs, report)
            assert results.stored_report(conn, number, public=True) == public
        kinds = conn.execute("SELECT typeof(inputs), typeof(report), typeof(public_report)"
                             " FROM round_results ORDER BY round").fetchall()
    assert [tuple(k) for k in kinds] == [("blob", "blob", "null"), ("blob", "blob", "blob")]
    assert all(old.replay(n).identical for n in texts)
