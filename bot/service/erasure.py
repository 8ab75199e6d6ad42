"""What is left of an erasure (``Daten löschen``, RULES.md §12) after its
mail's transaction committed: the spooled raw mails of the erased address,
the recipient of the reply that was the last mail to it, and the old pages
of the database that still hold it.

The erasure itself (``bot.league.erasure``) is part of the mail's
transaction, so a mail that is rolled back erases nothing; files cannot be
rolled back, so it only queues them (``spool_removals``); the ingest asks
for them in each batch's transaction (``spool_to_remove``, no extra
connection) and removes them once it committed (``remove_spool``).
``after_drain`` (called after the outbox drain) erases the recipient of a
farewell once it is sent (until then the queued reply holds the address
anyway), then writes the whole WAL into the database file and empties it
(``bot.storage.erasure.truncate_wal``; freed content is zeroed), so no old
page of either file keeps the address. Both are cheap when nothing is
waiting (one small query in a transaction the caller has anyway, or after a
drain that sent something) and safe to repeat: a crash before them leaves
the work for the next call.
"""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

from bot.mail.spool import remove_spooled
from bot.storage import erasure as rows
from bot.storage.db import Database

log = logging.getLogger(__name__)


def spool_to_remove(conn: sqlite3.Connection) -> list[str]:
    """The spool files erasures left to remove (read in the caller's
    transaction: the ingest asks in each batch's own)."""
    return rows.spool_removals(conn)


def remove_spool(db: Database, spool_dir: Path, paths: list[str]) -> int:
    """Remove ``paths`` from the spool once their erasure committed; returns
    how many files went."""
    removed = remove_spooled(spool_dir, paths)
    with db.transaction() as conn:
        rows.spool_removed(conn, paths)
    return removed


def after_drain(db: Database) -> int:
    """Erase the recipient of each farewell that was sent; returns how many."""
    with db.transaction() as conn:
        done = rows.forget_farewells(conn)
    if done:
        _truncate(db)
    return done


def _truncate(db: Database) -> None:
    conn = db.connect()
    try:
        if not rows.truncate_wal(conn):
            log.warning("erasure: a reader kept the WAL from being emptied; the next "
                        "checkpoint writes the erasure into the database file")
    finally:
        conn.close()


__all__ = ["after_drain", "remove_spool", "spool_to_remove"]
