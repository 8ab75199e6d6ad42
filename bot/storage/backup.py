"""A consistent copy of the league database while the bot runs: SQLite's
online backup API (pages copied under a read transaction, so a writer never
sees a lock for long), then ``PRAGMA integrity_check`` on the copy.

Given a directory, the copy gets a dated name
(``turnited-backup-2027-01-17-200000.sqlite3``, UTC), so a nightly job can
give the same directory every night; given a file name, that file.

Restore: stop the worker, replace ``STATE/turnited.sqlite3`` by the backup
(and remove ``turnited.sqlite3-wal`` / ``-shm`` beside it), start again.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from bot.errors import N_
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


def backup_name(now: datetime) -> str:
    """The file name of a backup made at ``now`` into a directory."""
    return f"turnited-backup-{now.astimezone(UTC):%Y-%m-%d-%H%M%S}.sqlite3"


def _refused(message: str, **values: object) -> StorageError:
    error = StorageError(message % values)
    error.words = (message, values)
    return error


def backup_database(db: Database, dest: Path, *, now: datetime) -> BackupReport:
    """Copy ``db`` to the file ``dest`` (or to ``backup_name(now)`` in ``dest``
    if it is a directory) and check the copy. An existing file is never
    overwritten: ``StorageError`` names it. A copy that fails the integrity
    check is removed and reported as a ``StorageError``."""
    dest = Path(dest)
    if dest.is_dir():
        dest = dest / backup_name(now)
    if dest.exists():
        raise _refused(N_("%(path)s exists already; a backup never overwrites a file: give a "
                          "new file name or a directory"), path=repr(str(dest)))
    if not dest.parent.is_dir():
        raise _refused(N_("the folder %(path)s of the backup does not exist"),
                       path=repr(str(dest.parent)))
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
        raise _refused(N_("the backup of %(path)s failed its integrity check: %(problem)s"),
                       path=str(db.path), problem=integrity)
    partial.rename(dest)
    return BackupReport(dest, dest.stat().st_size, pages, version, integrity)
