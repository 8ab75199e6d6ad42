"""The database handle: connections, the one ``transaction()`` helper, migrations on open.

Every connection is configured the same way: autocommit mode
(``isolation_level=None``, transactions are begun explicitly), WAL journal,
foreign keys on, a busy timeout and ``sqlite3.Row`` rows. A connection is
made per transaction, so the handle can be shared between threads; a nested
``transaction()`` in the same thread reuses the open connection and becomes
a SAVEPOINT.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

DATABASE_FILE = "turnited.sqlite3"
#: How long a writer waits for another writer's lock before giving up.
BUSY_TIMEOUT_MS = 30_000


class StorageError(RuntimeError):
    """The database is unusable: e.g. its schema is newer than this program."""


class Database:
    """One SQLite database file.

    ``transaction()`` is the only way to write; ``connect()`` gives a fresh
    connection for read-only work (the caller closes it, or uses ``read()``).
    """

    def __init__(self, path: Path, *, durable: bool = True) -> None:
        self.path = Path(path)
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
        conn = self._configure(sqlite3.connect(
            self.path,
            isolation_level=None,
            timeout=BUSY_TIMEOUT_MS / 1000,
            check_same_thread=False,
        ))
        with self._anchor_lock:
            if self._anchor is None:
                self._anchor = sqlite3.connect(self.path, check_same_thread=False)
                self._anchor.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        return conn

    def _configure(self, conn: sqlite3.Connection) -> sqlite3.Connection:
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA journal_mode = WAL")
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
            name = f"sp_{depth}"
            current.execute(f"SAVEPOINT {name}")
            try:
                yield current
            except BaseException:
                current.execute(f"ROLLBACK TO SAVEPOINT {name}")
                current.execute(f"RELEASE SAVEPOINT {name}")
                raise
            else:
                current.execute(f"RELEASE SAVEPOINT {name}")
            finally:
                self._local.depth -= 1
            return
        conn = self.connect()
        self._local.conn, self._local.depth = conn, 0
        try:
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

    # -- schema ------------------------------------------------------------

    def migrate(self) -> list[int]:
        """Apply every pending migration; returns the versions applied."""
        from bot.storage.migrations import apply_migrations

        return apply_migrations(self)

    def schema_version(self) -> int:
        from bot.storage.migrations import current_version

        with self.read() as conn:
            return current_version(conn)


def open_database(state_dir: Path, *, durable: bool = True) -> Database:
    """Create ``state_dir`` if needed, open ``turnited.sqlite3`` in it and bring
    its schema up to date."""
    state_dir = Path(state_dir)
    state_dir.mkdir(parents=True, exist_ok=True)
    db = Database(state_dir / DATABASE_FILE, durable=durable)
    db.migrate()
    return db
