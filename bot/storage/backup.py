"""A consistent copy of the league database while the bot runs: SQLite's
online backup API (pages copied under a read transaction, so a writer never
sees a lock for long), then ``PRAGMA integrity_check`` on the copy.

Restore: stop the worker, replace ``STATE/turnited.sqlite3`` by the backup
(and remove ``turnited.sqlite3-wal`` / ``-shm`` beside it), start again.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from bot.storage.db import Database
from bot.storage.errors import StorageError, storage_errors
from bot.storage.migrations import current_version

#: Pages copied per step of the online backup (the writer may run between).
PAGES_PER_STEP = 256


@dataclass(frozen=True, slots=True)
class BackupReport:
    path: Path
    bytes: int
    pages: int
    schema_version: int
    #: The first line of ``PRAGMA integrity_check`` on the copy ("ok").
    integrity: str


def backup_database(db: Database, dest: Path) -> BackupReport:
    """Copy ``db`` to the file ``dest`` (or ``dest/turnited-backup.sqlite3``
    if ``dest`` is a directory) and check the copy. An existing file is never
    overwritten: ``StorageError`` names it. A copy that fails the integrity
    check is removed and reported as a ``StorageError``."""
    dest = Path(dest)
    if dest.is_dir():
        dest = dest / "turnited-backup.sqlite3"
    if dest.exists():
        raise StorageError(f"{str(dest)!r} exists already; a backup never overwrites a file: "
                           "give a new file name or an empty directory")
    if not dest.parent.is_dir():
        raise StorageError(f"the folder {str(dest.parent)!r} of the backup does not exist")
    partial = dest.with_name(dest.name + ".partial")
    with db.read() as conn, storage_errors(dest):
        target = sqlite3.connect(partial)
        try:
            conn.backup(target, pages=PAGES_PER_STEP)
            integrity = target.execute("PRAGMA integrity_check").fetchone()[0]
            pages = int(target.execute("PRAGMA page_count").fetchone()[0])
            version = current_version(target)
        finally:
            target.close()
    if integrity != "ok":
        partial.unlink(missing_ok=True)
        raise StorageError(f"the backup of {db.path} failed its integrity check: {integrity}")
    partial.rename(dest)
    return BackupReport(dest, dest.stat().st_size, pages, version, integrity)
