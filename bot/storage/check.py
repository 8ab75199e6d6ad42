"""What ``turnited check`` asks of the database: integrity, foreign keys,
the ledger's spool paths, the outbox backlog and the pages in use (read-only
queries)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass

#: How many problem rows a check returns at most (a broken file can have millions).
LIMIT = 20


def integrity_problems(conn: sqlite3.Connection, limit: int = LIMIT) -> list[str]:
    """``PRAGMA integrity_check``'s messages; empty when the file is sound."""
    rows = [str(r[0]) for r in conn.execute(f"PRAGMA integrity_check({int(limit)})")]
    return [] if rows == ["ok"] else rows


def foreign_key_problems(conn: sqlite3.Connection, limit: int = LIMIT) -> list[str]:
    """One line per row whose reference points nowhere (``PRAGMA foreign_key_check``)."""
    found = []
    for table, rowid, parent, _fkid in conn.execute("PRAGMA foreign_key_check"):
        found.append(f"{table} row {rowid} -> {parent}")
        if len(found) >= limit:
            break
    return found


def spool_paths(conn: sqlite3.Connection) -> Iterator[tuple[int, str]]:
    """(ledger id, spool path) of every ledgered incoming mail whose file is
    kept: not removed by the retention, nor an erased address's (RULES.md §12)."""
    pruned = any(r[1] == "spool_pruned_at" for r in conn.execute("PRAGMA table_info(inbound)"))
    where = " AND spool_pruned_at IS NULL" if pruned else ""
    for row_id, path in conn.execute(
            f"SELECT id, spool_path FROM inbound WHERE spool_path != ''{where} ORDER BY id"):
        yield int(row_id), str(path)


@dataclass(frozen=True, slots=True)
class Backlog:
    """The outbox's state: messages waiting (queued or being sent), failed for
    good, the oldest waiting message's creation time (stored form, '' if none),
    and how many rows still hold a body and its bytes."""

    waiting: int
    failed: int
    oldest_waiting: str
    bodies: int
    body_bytes: int


def backlog(conn: sqlite3.Connection) -> Backlog:
    waiting, oldest = conn.execute(
        "SELECT COUNT(*), COALESCE(MIN(created_at), '') FROM outbox"
        " WHERE state IN ('queued', 'sending')").fetchone()
    failed = conn.execute("SELECT COUNT(*) FROM outbox WHERE state = 'failed'").fetchone()[0]
    bodies, size = conn.execute(
        "SELECT COUNT(*), COALESCE(SUM(LENGTH(raw)), 0) FROM outbox WHERE LENGTH(raw) > 0"
    ).fetchone()
    return Backlog(int(waiting), int(failed), str(oldest), int(bodies), int(size))


@dataclass(frozen=True, slots=True)
class DatabaseUsage:
    """The database's pages: in use and free (SQLite reuses the free ones
    before the file grows), in bytes; and how many rounds were evaluated."""

    used_bytes: int
    free_bytes: int
    rounds: int


def database_usage(conn: sqlite3.Connection) -> DatabaseUsage:
    pages = int(conn.execute("PRAGMA page_count").fetchone()[0])
    free = int(conn.execute("PRAGMA freelist_count").fetchone()[0])
    size = int(conn.execute("PRAGMA page_size").fetchone()[0])
    rounds = int(conn.execute("SELECT COUNT(*) FROM rounds WHERE state = 'evaluated'")
                 .fetchone()[0])
    return DatabaseUsage((pages - free) * size, free * size, rounds)
