"""State stays private, the web root is readable (issue 22): ``check`` exits
0 on a healthy demo (everything under ``state/`` private, the archive too);
``publish DIR`` writes 0755 directories and 0644 files (``--mode`` to
choose); ``backup DIR`` writes a dated file, so a second night does not fail."""

from __future__ import annotations

import os
import sqlite3
import stat
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.cli import main
from bot.storage.backup import backup_database, backup_name
from bot.storage.db import DATABASE_FILE, open_existing

from .conftest import Game


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_check_exits_0_after_turnited_demo(tmp_path: Path, capsys):
    game = tmp_path / "demo"
    assert main(["demo", str(game), "--managers", "4", "--seasons", "1",
                 "--simulations", "100"]) == 0
    capsys.readouterr()
    assert main(["--config", str(game / "config.yaml"), "check", "--min-free-mb", "1"]) == 0
    out = capsys.readouterr().out
    assert "Dateirechte privat" in out and "FEHLER" not in out
    archive = game / "state" / "archive"
    assert {mode(p) for p in archive.iterdir()} == {0o600}  # private like the rest
    assert mode(archive) == 0o700


def test_published_files_are_readable_by_others(game: Game, tmp_path: Path):
    web = tmp_path / "www" / "turnited"
    status, _out, err = game.cli("publish", str(web))
    assert status == 0, err
    paths = [web, *web.rglob("*")]
    assert {mode(p) for p in paths if p.is_file()} == {0o644}
    assert {mode(p) for p in paths if p.is_dir()} == {0o755}
    for path in paths:  # others may read every file and enter every folder
        assert mode(path) & stat.S_IROTH
        assert not path.is_dir() or mode(path) & stat.S_IXOTH
    assert (web / "index.html").read_bytes() == (
        game.state / "archive" / "index.html").read_bytes()
    # files published earlier with other modes are set right, unchanged ones too
    os.chmod(web / "index.html", 0o600)
    assert game.cli("publish", str(web))[0] == 0
    assert mode(web / "index.html") == 0o644


def test_publish_mode_chooses_the_permissions(game: Game, tmp_path: Path):
    web = tmp_path / "www"
    assert game.cli("publish", str(web), "--mode", "640")[0] == 0
    assert {mode(p) for p in web.rglob("*") if p.is_file()} == {0o640}
    assert {mode(p) for p in [web, *web.rglob("*")] if p.is_dir()} == {0o750}
    with pytest.raises(SystemExit):  # a mode the owner cannot read is no mode for a web root
        game.cli("publish", str(web), "--mode", "200")


def test_backup_into_a_directory_every_night(game: Game, tmp_path: Path):
    db = open_existing(game.state / DATABASE_FILE)
    try:
        first = backup_database(db, tmp_path, now=datetime(2027, 1, 17, 2, 0, tzinfo=UTC))
        second = backup_database(db, tmp_path, now=datetime(2027, 1, 18, 2, 0, tzinfo=UTC))
    finally:
        db.close()
    assert (first.path.name, second.path.name) == (
        "turnited-backup-2027-01-17-020000.sqlite3", "turnited-backup-2027-01-18-020000.sqlite3")
    for report in (first, second):
        copy = sqlite3.connect(report.path)
        assert copy.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        copy.close()
    assert backup_name(datetime(2027, 1, 17, 2, 0, tzinfo=UTC)) == first.path.name
    # a file name works as before, and is never overwritten
    status, _out, err = game.cli("backup", str(tmp_path / "mine.sqlite3"))
    assert status == 0 and (tmp_path / "mine.sqlite3").is_file()
    status, _out, err = game.cli("backup", str(tmp_path / "mine.sqlite3"))
    assert status == 2 and "überschreibt nie" in err
