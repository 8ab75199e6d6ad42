"""The storage layer on real SQLite files: migrations, transactions, savepoints."""

from __future__ import annotations

import sqlite3
import threading
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal
from fractions import Fraction

import pytest

from bot.storage import DATABASE_FILE, Database, StorageError, open_database
from bot.storage.migrations import MIGRATIONS, Migration, apply_migrations, split_statements
from bot.storage.values import (
    dec_from_db,
    dec_to_db,
    fraction_from_db,
    time_from_db,
    time_to_db,
)


def test_open_creates_directory_file_and_schema(tmp_path):
    db = open_database(tmp_path / "state")
    assert (tmp_path / "state" / DATABASE_FILE).is_file()
    assert db.schema_version() == MIGRATIONS[-1].version
    conn = db.connect()
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        recorded = [tuple(r) for r in conn.execute("SELECT version, name FROM schema_migrations")]
    finally:
        conn.close()
    for table in ("managers", "teams", "rounds", "moves", "round_results", "inbound",
                  "outbox", "bounces", "reminders_sent", "worker_events"):
        assert table in tables
    assert recorded == [(m.version, m.name) for m in MIGRATIONS]


def test_reopening_applies_nothing_twice(tmp_path):
    open_database(tmp_path)
    db = open_database(tmp_path)
    assert db.migrate() == []


def test_mail_tables_have_the_agreed_columns(tmp_path):
    db = open_database(tmp_path)
    with db.read() as conn:
        def columns(table):
            return {r["name"] for r in conn.execute(f"PRAGMA table_info({table})")}

        assert {"id", "source", "uidvalidity", "uid", "message_id", "sha256", "spool_path",
                "received_at", "sender", "subject", "kind", "outcome", "round",
                "manager_id"} <= columns("inbound")
        assert {"id", "message_id", "kind", "recipient", "raw", "created_at", "state",
                "attempts", "next_attempt_at", "last_error", "sent_at", "inbound_id",
                "round"} <= columns("outbox")
        assert {"round", "hours_before", "manager_id", "sent_at"} <= columns("reminders_sent")


def _inbound(conn, uid, message_id="<a@b>"):
    conn.execute(
        "INSERT INTO inbound (source, uidvalidity, uid, message_id, sha256, spool_path,"
        " received_at, kind) VALUES ('imap', 7, ?, ?, 'x', 'p', '2024-01-01T00:00:00+00:00',"
        " 'human')",
        (uid, message_id),
    )


def test_inbound_ledger_refuses_the_same_imap_uid_twice(tmp_path):
    db = open_database(tmp_path)
    with db.transaction() as conn:
        _inbound(conn, 1)
    with pytest.raises(sqlite3.IntegrityError), db.transaction() as conn:
        _inbound(conn, 1)


def test_outbox_defaults_and_constraints(tmp_path):
    db = open_database(tmp_path)
    with db.transaction() as conn:
        conn.execute(
            "INSERT INTO outbox (message_id, kind, recipient, raw, created_at, next_attempt_at)"
            " VALUES ('<m1@x>', 'reply', 'a@b', ?, 'now', 'now')",
            (b"Subject: x\r\n\r\nbody",),
        )
    with db.read() as conn:
        row = conn.execute("SELECT state, attempts, raw FROM outbox").fetchone()
    assert (row["state"], row["attempts"], bytes(row["raw"])) == (
        "queued", 0, b"Subject: x\r\n\r\nbody")
    with pytest.raises(sqlite3.IntegrityError), db.transaction() as conn:
        conn.execute(
            "INSERT INTO outbox (message_id, kind, recipient, raw, created_at, next_attempt_at)"
            " VALUES ('<m2@x>', 'spam', 'a@b', x'00', 'now', 'now')"
        )


def test_foreign_keys_are_enforced(tmp_path):
    db = open_database(tmp_path)
    with pytest.raises(sqlite3.IntegrityError), db.transaction() as conn:
        conn.execute(
            "INSERT INTO teams (name, name_key, short_name, manager_id, wp, psz,"
            " registered_round, created_at) VALUES ('A', 'a', 'A', 99, '90', '250', 1, 'now')"
        )


def test_transaction_commits_and_rolls_back(tmp_path):
    db = open_database(tmp_path)
    with db.transaction() as conn:
        _inbound(conn, 1)
    with pytest.raises(RuntimeError), db.transaction() as conn:
        _inbound(conn, 2)
        raise RuntimeError("boom")
    with db.read() as conn:
        assert [r[0] for r in conn.execute("SELECT uid FROM inbound")] == [1]


def test_nested_transaction_is_a_savepoint(tmp_path):
    db = open_database(tmp_path)
    with db.transaction() as outer:
        _inbound(outer, 1)
        with pytest.raises(KeyError), db.transaction() as inner:
            assert inner is outer
            _inbound(inner, 2)
            raise KeyError("inner fails alone")
        with db.transaction() as inner:
            _inbound(inner, 3)
    with db.read() as conn:
        assert [r[0] for r in conn.execute("SELECT uid FROM inbound ORDER BY uid")] == [1, 3]


def test_a_copy_inside_a_transaction_holds_its_changes_so_far(tmp_path):
    # (SQLite's backup of a writing connection waits for ever: the game
    # master's Vorschau runs inside the ingest's transaction.)
    db = open_database(tmp_path / "state")
    with db.transaction() as conn:
        _inbound(conn, 1)
    with db.transaction() as conn:
        _inbound(conn, 2)
        (tmp_path / "copy").mkdir()
        copy = open_database(db.copy_to(tmp_path / "copy").parent)
        _inbound(conn, 3)
    with copy.read() as conn:
        assert [r[0] for r in conn.execute("SELECT uid FROM inbound ORDER BY uid")] == [1, 2]
    copy.close()
    (tmp_path / "again").mkdir()
    again = open_database(db.copy_to(tmp_path / "again").parent)  # outside: a backup
    with again.read() as conn:
        assert [r[0] for r in conn.execute("SELECT uid FROM inbound ORDER BY uid")] == [1, 2, 3]
    again.close()


def test_failure_after_a_savepoint_rolls_back_everything(tmp_path):
    db = open_database(tmp_path)
    with pytest.raises(RuntimeError), db.transaction():
        with db.transaction() as inner:
            _inbound(inner, 1)
        raise RuntimeError("outer fails")
    with db.read() as conn:
        assert conn.execute("SELECT COUNT(*) FROM inbound").fetchone()[0] == 0


def test_transactions_in_threads_do_not_share_connections(tmp_path):
    db = open_database(tmp_path)
    errors: list[BaseException] = []

    def work(start):
        try:
            for uid in range(start, start + 20):
                with db.transaction() as conn:
                    _inbound(conn, uid)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i * 100,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    with db.read() as conn:
        assert conn.execute("SELECT COUNT(*) FROM inbound").fetchone()[0] == 80


def test_a_newer_schema_is_refused(tmp_path):
    db = open_database(tmp_path)
    with db.transaction() as conn:
        conn.execute("INSERT INTO schema_migrations VALUES (999, 'future', 'now')")
    with pytest.raises(StorageError, match="999"):
        open_database(tmp_path)


def test_a_failing_migration_leaves_no_trace(tmp_path):
    db = Database(tmp_path / "x.sqlite3")
    sql = "CREATE TABLE extra (x INTEGER);\nINSERT INTO nowhere VALUES (1);"
    bad = (*MIGRATIONS, Migration(MIGRATIONS[-1].version + 1, "bad", sql))
    with pytest.raises(sqlite3.OperationalError):
        apply_migrations(db, bad)
    assert db.schema_version() == MIGRATIONS[-1].version
    with db.read() as conn:
        assert conn.execute("SELECT 1 FROM sqlite_master WHERE name='extra'").fetchone() is None


def test_callable_migration_runs_once(tmp_path):
    calls = []

    def step(conn):
        calls.append(1)
        conn.execute("CREATE TABLE extra (x INTEGER)")

    db = Database(tmp_path / "x.sqlite3")
    more = (*MIGRATIONS, Migration(MIGRATIONS[-1].version + 1, "extra", step))
    apply_migrations(db, more)
    apply_migrations(db, more)
    assert calls == [1]


def test_split_statements_keeps_semicolons_inside_strings():
    parts = split_statements("INSERT INTO t VALUES ('a;b');\nCREATE TABLE u (x);\n")
    assert parts == ["INSERT INTO t VALUES ('a;b');", "CREATE TABLE u (x);"]
    with pytest.raises(ValueError, match="incomplete"):
        split_statements("CREATE TABLE v (x")


def test_decimal_text_round_trip_is_exact():
    assert dec_to_db(Decimal("90") + Decimal("0.1") + Decimal("0.2")) == "90.3"
    assert dec_to_db(Decimal("9E+1")) == "90"
    assert dec_from_db("92.32") == Decimal("92.32")
    assert fraction_from_db("233.33") == Fraction(23333, 100)
    with pytest.raises(TypeError):
        dec_to_db(0.3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not a decimal"):
        dec_from_db("abc")


def test_times_are_stored_in_utc():
    berlin = timezone(timedelta(hours=2))
    moment = datetime(2024, 6, 1, 20, 0, tzinfo=berlin)
    text = time_to_db(moment)
    assert text == "2024-06-01T18:00:00+00:00"
    assert time_from_db(text) == moment
    assert time_from_db(text).tzinfo == UTC
    with pytest.raises(ValueError, match="naive"):
        time_to_db(datetime(2024, 1, 1))


def test_savepoint_rollback_undoes_only_its_block(tmp_path):
    from bot.storage.db import savepoint

    db = open_database(tmp_path)
    with db.transaction() as conn:
        _inbound(conn, 1)
        with savepoint(conn, "inner") as point:
            _inbound(conn, 2)
            point.rollback()
            assert point.rolled_back
            _inbound(conn, 3)  # the block goes on after a rollback
        with pytest.raises(RuntimeError), savepoint(conn, "failing"):
            _inbound(conn, 4)
            raise RuntimeError("boom")
    with db.read() as conn:
        assert [r[0] for r in conn.execute("SELECT uid FROM inbound ORDER BY uid")] == [1, 3]


def test_savepoint_names_must_be_identifiers(tmp_path):
    from bot.storage.db import savepoint

    db = open_database(tmp_path)
    with pytest.raises(ValueError, match="identifier"), db.transaction() as conn, \
            savepoint(conn, "x; DROP TABLE inbound"):
        pass


def test_migrations_do_not_import_the_database_module():
    """db.py applies the migrations when a database is opened; the migrations
    know the database only as a protocol, so there is no import cycle."""
    import ast
    from pathlib import Path

    import bot.storage.migrations as migrations

    tree = ast.parse(Path(migrations.__file__).read_text(encoding="utf-8"))
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert "bot.storage.db" not in imported and "bot.storage" not in imported


def test_every_sql_statement_lives_in_bot_storage():
    """Storage owns the SQL: no module outside bot/storage calls ``execute``."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "bot"
    offenders = []
    for path in sorted(root.rglob("*.py")):
        if path.is_relative_to(root / "storage"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in {"execute", "executemany", "executescript"}):
                offenders.append(f"{path.relative_to(root.parent)}:{node.lineno}")
    assert offenders == []
