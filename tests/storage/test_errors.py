"""An unusable database is one clear ``StorageError`` (and one line from the
CLI), never a bare sqlite3 error or a traceback: real files throughout."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime

import pytest

from bot.cli import main
from bot.storage import DATABASE_FILE, Database, StorageError, open_database
from bot.storage.outbox import enqueue

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def _garbage(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"this is not an SQLite file\n" * 200)


def _truncated(state):
    db = open_database(state)
    with db.transaction() as conn:
        for n in range(300):
            enqueue(conn, raw=b"x" * 2000, message_id=f"<{n}@t>", kind="notice",
                    recipient="gm@example.org", now=NOW)
    db.close()
    path = state / DATABASE_FILE
    data = path.read_bytes()
    assert len(data) > 100_000 and not (state / f"{DATABASE_FILE}-wal").exists()
    path.write_bytes(data[: len(data) // 3])


def test_a_file_that_is_not_a_database_is_reported_as_corrupt(tmp_path):
    _garbage(tmp_path / DATABASE_FILE)
    with pytest.raises(StorageError, match="is corrupt or not a Turnited database") as info:
        open_database(tmp_path)
    assert str(tmp_path / DATABASE_FILE) in str(info.value)
    assert "\n" not in str(info.value)


def test_a_truncated_database_is_reported_as_corrupt(tmp_path):
    _truncated(tmp_path)
    db = Database(tmp_path / DATABASE_FILE)
    with pytest.raises(StorageError, match="corrupt"), db.read() as conn:
        conn.execute("SELECT COUNT(*), SUM(LENGTH(raw)) FROM outbox").fetchone()


def test_writing_a_read_only_database_says_so(tmp_path):
    open_database(tmp_path).close()
    db = Database(tmp_path / DATABASE_FILE, read_only=True)
    with db.read() as conn:  # reading works
        assert conn.execute("SELECT COUNT(*) FROM outbox").fetchone()[0] == 0
    with pytest.raises(StorageError, match="is read-only; make the file"), \
            db.transaction() as conn:
        enqueue(conn, raw=b"x", message_id="<a@t>", kind="notice", recipient="a@b.c", now=NOW)
    with Database(tmp_path / DATABASE_FILE).read() as conn:
        assert conn.execute("SELECT COUNT(*) FROM outbox").fetchone()[0] == 0


def test_a_full_database_says_the_disk_is_full_and_keeps_what_was_there(tmp_path):
    db = open_database(tmp_path)
    with db.transaction() as conn:
        enqueue(conn, raw=b"kept", message_id="<kept@t>", kind="notice",
                recipient="gm@example.org", now=NOW)
    with pytest.raises(StorageError, match="the disk is full"), db.transaction() as conn:
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages}")  # SQLite's own "disk full"
        enqueue(conn, raw=b"y" * 1_000_000, message_id="<big@t>", kind="notice",
                recipient="gm@example.org", now=NOW)
    with db.read() as conn:
        assert [r[0] for r in conn.execute("SELECT message_id FROM outbox")] == ["<kept@t>"]


def test_a_path_that_cannot_be_opened_says_what_to_check(tmp_path):
    (tmp_path / DATABASE_FILE).mkdir()  # a directory where the file should be
    with pytest.raises(StorageError, match="cannot open the database"):
        open_database(tmp_path)


def test_other_sqlite_errors_are_not_disguised(tmp_path):
    import sqlite3

    db = open_database(tmp_path)
    with pytest.raises(sqlite3.OperationalError, match="no such table"), \
            db.transaction() as conn:
        conn.execute("SELECT * FROM nowhere")


@pytest.mark.parametrize("damage", ["garbage", "truncated"])
def test_the_cli_prints_one_line_and_exits_2(tmp_path, capsys, damage):
    state = tmp_path / "state"
    if damage == "garbage":
        _garbage(state / DATABASE_FILE)
    else:
        _truncated(state)
    for command in (["status"], ["replay", "--all"]):
        assert main([*command, "--state", str(state), "--lang", "en"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1, err
        assert err.startswith(f"turnited {command[0]}: error: the database ")
        assert "corrupt" in err


def test_python_m_bot_on_a_corrupt_database_has_no_traceback(tmp_path):
    _garbage(tmp_path / DATABASE_FILE)
    proc = subprocess.run([sys.executable, "-m", "bot", "status", "--state", str(tmp_path)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1
    assert "is corrupt or not a Turnited database" in proc.stderr
