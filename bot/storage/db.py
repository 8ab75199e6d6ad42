"""The database handle: connections, the one ``transaction()``/``savepoint()`` helper,
migrations on open.

Every connection is configured the same way: autocommit mode
(``isolation_level=None``, transactions are begun explicitly), WAL journal,
foreign keys on, secure delete (freed pages are zeroed), a busy timeout and
``sqlite3.Row`` rows. A connection is made per transaction, so the handle
can be shared between threads; a nested ``transaction()`` in the same thread
reuses the open connection and becomes a SAVEPOINT (``savepoint(conn,
name)``, also usable on its own).

A read-only, full, corrupt or unopenable database surfaces as
``StorageError`` (``bot.storage.errors``) from ``connect()``, ``read()``,
``transaction()`` and ``open_database()``, never as a bare ``sqlite3`` error.

Opening a database (``open_database``/``open_existing``) makes it private
(``bot.storage.permissions``): the state directory 0700, the database and its
WAL and shared-memory files 0600, whatever modes an older version left.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from bot.storage.errors import StorageError, storage_errors
from bot.storage.migrations import apply_migrations, current_version
from bot.storage.permissions import make_private

__all__ = ["DATABASE_FILE", "Database", "Savepoint", "StorageError", "open_database",
           "open_existing", "savepoint"]

DATABASE_FILE = "turnited.sqlite3"
#: The files SQLite keeps beside the database in WAL mode.
SIDE_SUFFIXES = ("-wal", "-shm")
#: Bytes the WAL file keeps after a checkpoint (``PRAGMA journal_size_limit``).
WAL_SIZE_LIMIT = 4 * 2**20
#: How long a writer waits for another writer's lock before giving up.
BUSY_TIMEOUT_MS = 30_000


class Savepoint:
    """An open SAVEPOINT; ``rollback()`` undoes what was done inside it (the
    block goes on, and the savepoint is released at its end)."""

    def __init__(self, conn: sqlite3.Connection, name: str) -> None:
        self.conn = conn
        self.name = name
        self.rolled_back = False

    def rollback(self) -> None:
        self.conn.execute(f"ROLLBACK TO SAVEPOINT {self.name}")
        self.rolled_back = True


@contextmanager
def savepoint(conn: sqlite3.Connection, name: str) -> Iterator[Savepoint]:
    """A SAVEPOINT inside ``conn``'s transaction: released at the end of the
    block, rolled back (and released) if the block raises."""
    if not name.isidentifier():
        raise ValueError(f"savepoint name {name!r} must be an identifier")
    conn.execute(f"SAVEPOINT {name}")
    point = Savepoint(conn, name)
    try:
        yield point
    except BaseException:
        conn.execute(f"ROLLBACK TO SAVEPOINT {name}")
        conn.execute(f"RELEASE SAVEPOINT {name}")
        raise
    else:
        conn.execute(f"RELEASE SAVEPOINT {name}")


class Database:
    """One SQLite database file.

    ``transaction()`` is the only way to write; ``connect()`` gives a fresh
    connection for read-only work (the caller closes it, or uses ``read()``).
    """

    def __init__(self, path: Path, *, durable: bool = True, read_only: bool = False) -> None:
        self.path = Path(path)
        #: Open the file with ``mode=ro``: every write fails with ``StorageError``.
        self.read_only = read_only
        #: ``synchronous=FULL`` (every commit reaches the disk) or ``NORMAL``
        #: (commits stay atomic, the last ones may be lost on power failure;
        #: for simulations and tests).
        self.durable = durable
        self._local = threading.local()
        # One idle connection held open for the handle's lifetime: without it
        # every transaction's close would be the last one, and SQLite would
        # checkpoint and delete the WAL file each time.
        self._anchor: sqlite3.Connection | None = None
        self._anchor_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"Database({str(self.path)!r})"

    # -- connections -------------------------------------------------------

    def close(self) -> None:
        """Release the idle connection (the handle stays usable)."""
        with self._anchor_lock:
            if self._anchor is not None:
                self._anchor.close()
                self._anchor = None

    def connect(self) -> sqlite3.Connection:
        """A new configured connection (autocommit mode; the caller closes it)."""
        with storage_errors(self.path):
            conn = self._configure(sqlite3.connect(
                self._target(),
                isolation_level=None,
                timeout=BUSY_TIMEOUT_MS / 1000,
                check_same_thread=False,
                uri=self.read_only,
            ))
            with self._anchor_lock:
                if self._anchor is None:
                    self._anchor = sqlite3.connect(self._target(), check_same_thread=False,
                                                   uri=self.read_only)
                    self._anchor.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        return conn

    def _target(self) -> str | Path:
        return f"{self.path.resolve().as_uri()}?mode=ro" if self.read_only else self.path

    def _configure(self, conn: sqlite3.Connection) -> sqlite3.Connection:
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA foreign_keys = ON")
        # Freed content is overwritten with zeros: a dropped mail body (with a
        # password in clear) does not linger in the file's free pages.
        conn.execute("PRAGMA secure_delete = ON")
        if not self.read_only:
            conn.execute("PRAGMA journal_mode = WAL")
            # After a checkpoint the WAL file is cut back to this size: a
            # round's burst of newsletters does not leave a large file behind.
            conn.execute(f"PRAGMA journal_size_limit = {WAL_SIZE_LIMIT}")
        conn.execute(f"PRAGMA synchronous = {'FULL' if self.durable else 'NORMAL'}")
        return conn

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """A connection for reading inside one consistent snapshot (a deferred
        transaction), closed afterwards. Inside a ``transaction()`` of this
        thread it is that transaction's connection."""
        current = getattr(self._local, "conn", None)
        if current is not None:
            yield current
            return
        conn = self.connect()
        try:
            with storage_errors(self.path):
                conn.execute("BEGIN")
                try:
                    yield conn
                finally:
                    conn.execute("ROLLBACK")
        finally:
            conn.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction (``BEGIN IMMEDIATE``): commit on success, roll
        back on any exception. Nested use in the same thread is a SAVEPOINT
        on the same connection, rolled back alone if its block fails."""
        current = getattr(self._local, "conn", None)
        if current is not None:
            depth = self._local.depth = self._local.depth + 1
            try:
                with savepoint(current, f"sp_{depth}"):
                    yield current
            finally:
                self._local.depth -= 1
            return
        conn = self.connect()
        self._local.conn, self._local.depth = conn, 0
        try:
            with storage_errors(self.path):
                conn.execute("BEGIN IMMEDIATE")
                try:
                    yield conn
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
                else:
                    conn.execute("COMMIT")
        finally:
            self._local.conn = None
            conn.close()

    def copy_to(self, state_dir: Path) -> Path:
        """Copy the database, consistently, to ``state_dir/turnited.sqlite3``.
        Inside a ``transaction()`` of this thread the copy holds its changes
        so far (SQLite's backup cannot read a connection that is writing: it
        would wait for ever), as an image of that connection's database."""
        target_path = Path(state_dir) / DATABASE_FILE
        if getattr(self._local, "conn", None) is not None:
            with self.read() as conn, storage_errors(target_path):
                target_path.write_bytes(conn.serialize())
            return target_path
        with self.read() as conn, storage_errors(target_path):
            target = sqlite3.connect(target_path)
            try:
                conn.backup(target)
            finally:
                target.close()
        return target_path

    # -- schema ------------------------------------------------------------

    def migrate(self) -> list[int]:
        """Apply every pending migration; returns the versions applied."""
        return apply_migrations(self)

    def schema_version(self) -> int:
        with self.read() as conn:
            return current_version(conn)


def open_database(state_dir: Path, *, durable: bool = True) -> Database:
    """Create ``state_dir`` if needed, open ``turnited.sqlite3`` in it and bring
    its schema up to date."""
    state_dir = Path(state_dir)
    state_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    db = Database(state_dir / DATABASE_FILE, durable=durable)
    _private(db.path, state_dir)
    db.migrate()
    _private(db.path)
    return db


def open_existing(path: Path, *, durable: bool = True) -> Database:
    """Open the database file ``path`` that must exist already (the CLI's
    read commands: they never create a league) and bring its schema up to date."""
    path = Path(path)
    if not path.is_file():
        raise StorageError(f"no league database at {str(path)!r}; is the state directory "
                           "right (--state DIR)? The bot creates it when it starts.")
    db = Database(path, durable=durable)
    _private(path)
    db.migrate()
    _private(path)
    return db


def database_files(path: Path) -> tuple[Path, ...]:
    """The database file and its WAL/shared-memory companions."""
    path = Path(path)
    return (path, *(path.with_name(path.name + s) for s in SIDE_SUFFIXES))


def _private(path: Path, *dirs: Path) -> None:
    """Tighten the modes of the database files (and ``dirs``); a file the bot
    may not change (not its own, a read-only file system) is left as it is:
    writing it then fails with a ``StorageError`` that says so."""
    for target in (*dirs, *database_files(path)):
        with suppress(OSError):
            make_private(target)
