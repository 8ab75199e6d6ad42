"""Private state: the database, its WAL/SHM files, the spool and what the
commands create are the owner's only (mode bits checked: tests run as root,
who may read anything). Real files, a real ``python -m bot`` process."""

from __future__ import annotations

import gzip
import os
import stat
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.mail.spool import COMPRESSLEVEL, read_spooled, spool, spool_file_exists
from bot.storage.db import DATABASE_FILE, open_database, open_existing
from bot.storage.outbox import enqueue

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
ROOT = Path(__file__).resolve().parents[2]


def mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def open_umask():
    """The loosest umask a careless shell could have."""
    old = os.umask(0)
    yield
    os.umask(old)


def _write(db) -> None:
    with db.transaction() as conn:
        enqueue(conn, raw=b"Subject: x\r\n\r\nPasswort: geheim\r\n", message_id="<a@t>",
                kind="reply", recipient="a@b.example", now=NOW)


def test_a_new_state_is_private_even_under_an_open_umask(tmp_path, open_umask):
    db = open_database(tmp_path / "state")
    _write(db)
    wal = tmp_path / "state" / f"{DATABASE_FILE}-wal"
    assert wal.exists()  # the handle's idle connection keeps the WAL
    assert mode(tmp_path / "state") == 0o700
    assert mode(tmp_path / "state" / DATABASE_FILE) == 0o600
    db.close()


def test_opening_an_old_world_readable_state_tightens_it(tmp_path):
    state = tmp_path / "state"
    open_database(state).close()
    os.chmod(state, 0o755)
    os.chmod(state / DATABASE_FILE, 0o644)
    db = open_database(state)
    _write(db)
    assert (mode(state), mode(state / DATABASE_FILE)) == (0o700, 0o600)
    for side in ("-wal", "-shm"):
        path = state / f"{DATABASE_FILE}{side}"
        assert not path.exists() or mode(path) == 0o600
    os.chmod(state / DATABASE_FILE, 0o664)
    open_existing(state / DATABASE_FILE).close()
    assert mode(state / DATABASE_FILE) == 0o600


def test_spooled_mail_is_private_compressed_and_exact(tmp_path, open_umask):
    raw = b"From: a@b.example\r\nSubject: Passwort\r\n\r\n" + b"Passwort: geheim\r\n" * 500
    first = spool(tmp_path / "spool", raw, NOW)
    assert first.relative_path == f"2026-12/{first.sha256}.eml.gz"
    assert mode(tmp_path / "spool") == mode(first.path.parent) == 0o700
    assert mode(first.path) == 0o600
    assert first.path.stat().st_size < len(raw) // 4
    assert gzip.decompress(first.path.read_bytes()) == raw
    assert read_spooled(tmp_path / "spool", first.relative_path) == raw
    again = spool(tmp_path / "spool", raw, NOW)  # the same mail: the same bytes on disk
    assert again == first
    assert first.path.read_bytes() == gzip.compress(raw, compresslevel=COMPRESSLEVEL, mtime=0)
    assert [p.name for p in first.path.parent.iterdir()] == [first.path.name]  # no temp left


def test_an_old_plain_spool_file_is_read_and_not_written_again(tmp_path):
    raw = b"Subject: alt\r\n\r\nvor der Kompression gespoolt\r\n"
    spooled = spool(tmp_path / "spool", raw, NOW)
    legacy = spooled.path.with_name(f"{spooled.sha256}.eml")
    spooled.path.unlink()
    legacy.write_bytes(raw)  # as versions before compression wrote it
    relative = f"2026-12/{spooled.sha256}.eml"
    assert read_spooled(tmp_path / "spool", relative) == raw
    assert spool(tmp_path / "spool", raw, NOW).relative_path == relative
    assert not spooled.path.exists()
    # a ledger path of the new form finds a file restored uncompressed, too
    assert read_spooled(tmp_path / "spool", spooled.relative_path) == raw
    legacy.unlink()
    assert not spool_file_exists(tmp_path / "spool", relative)
    with pytest.raises(FileNotFoundError, match=r"is missing from .*restore the spool"):
        read_spooled(tmp_path / "spool", relative)


def test_every_command_runs_under_a_private_umask(tmp_path):
    """``turnited init`` in a shell with umask 000: config, state, database private."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        ["sh", "-c", f'umask 000 && exec "{sys.executable}" -m bot init "{tmp_path / "league"}"'],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60)
    assert done.returncode == 0, done.stderr
    league = tmp_path / "league"
    state = next(p for p in league.iterdir() if p.is_dir())
    assert mode(state) == 0o700
    assert mode(league / "config.yaml") == 0o600
    assert {mode(p) for p in state.iterdir()} == {0o600}
