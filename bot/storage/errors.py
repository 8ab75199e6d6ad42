"""``StorageError``: the database cannot be used, said in one line a person understands.

SQLite reports a read-only, full, corrupt or unopenable database as
``sqlite3.OperationalError``/``DatabaseError`` with a terse message;
``storage_errors(path)`` turns exactly those (by their SQLite result code)
into a ``StorageError`` that names the file and what would help. Every
other SQLite error (a constraint, a bug in a statement) passes unchanged.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bot.errors import TurnitedError


class StorageError(TurnitedError, RuntimeError):
    """The database is unusable: read-only, full, corrupt, cannot be opened, or
    its schema is newer than this program."""


# SQLite primary result codes (https://sqlite.org/rescode.html).
_PERM, _IOERR, _CORRUPT, _FULL, _CANTOPEN, _READONLY, _NOTADB = 3, 10, 11, 13, 14, 8, 26


def describe(exc: sqlite3.Error, path: Path | str) -> str | None:
    """The one-line explanation of a storage failure, or None if ``exc`` is not one."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None:
        return None
    primary = code & 0xFF
    if primary in (_READONLY, _PERM):
        return (f"cannot write the database {path}: it is read-only; make the file and the "
                "state directory writable for the bot's user")
    if primary == _FULL:
        return f"cannot write the database {path}: the disk is full; free some space"
    if primary in (_CORRUPT, _NOTADB):
        return (f"the database {path} is corrupt or not a Turnited database ({exc}); "
                "restore it from a backup or point --state/state_dir at the right directory")
    if primary == _CANTOPEN:
        return (f"cannot open the database {path}: check that the state directory exists "
                "and is writable and that the path is a file")
    if primary == _IOERR:
        return f"disk I/O error on the database {path} ({exc}); check the disk"
    return None


@contextmanager
def storage_errors(path: Path | str) -> Iterator[None]:
    """Re-raise an unusable-database error inside the block as ``StorageError``."""
    try:
        yield
    except sqlite3.Error as exc:
        message = describe(exc, path)
        if message is None:
            raise
        raise StorageError(message) from exc
