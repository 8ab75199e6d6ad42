"""The outbox read for a daily sending budget: when messages went out in a
window, which due message goes next (personal mail before bulk mail), and
how many are waiting.

``bot.storage.outbox`` keeps the rows and their states; this module only
adds the order and the counts a budget needs. Bulk kinds (newsletters,
reminders) are given by the caller, which knows what they are.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import datetime

from bot.storage.outbox import Claimed
from bot.storage.values import time_from_db, time_to_db


def sent_since(conn: sqlite3.Connection, since: datetime) -> list[datetime]:
    """When each message sent after ``since`` went out, oldest first."""
    rows = conn.execute(
        "SELECT sent_at FROM outbox WHERE state = 'sent' AND sent_at > ? ORDER BY sent_at",
        (time_to_db(since),),
    ).fetchall()
    return [t for (text,) in rows if (t := time_from_db(text)) is not None]


def _where(bulk: Sequence[str], with_bulk: bool) -> tuple[str, str, list[object]]:
    if not bulk:
        raise ValueError("name the bulk kinds of mail (e.g. 'newsletter'), at least one")
    marks = ", ".join("?" * len(bulk))
    only = "" if with_bulk else f" AND kind NOT IN ({marks})"
    return only, f"kind IN ({marks})", list(bulk)


def next_due(conn: sqlite3.Connection, at: datetime, *, bulk: Sequence[str],
             with_bulk: bool) -> int | None:
    """The id of the message to send next at ``at``: the oldest due personal
    message, else (``with_bulk``) the oldest due bulk message."""
    only, is_bulk, kinds = _where(bulk, with_bulk)
    row = conn.execute(
        f"SELECT id FROM outbox WHERE state = 'queued' AND next_attempt_at <= ?{only}"
        f" ORDER BY {is_bulk}, id LIMIT 1",
        [time_to_db(at), *(kinds if only else []), *kinds],
    ).fetchone()
    return None if row is None else int(row[0])


def claim(conn: sqlite3.Connection, at: datetime, *, bulk: Sequence[str],
          with_bulk: bool) -> Claimed | None:
    """Mark the message ``next_due`` names ``sending`` (the caller commits
    before sending)."""
    row_id = next_due(conn, at, bulk=bulk, with_bulk=with_bulk)
    if row_id is None:
        return None
    row = conn.execute("SELECT id, recipient, raw, attempts FROM outbox WHERE id = ?",
                       (row_id,)).fetchone()
    conn.execute("UPDATE outbox SET state = 'sending' WHERE id = ?", (row_id,))
    return Claimed(int(row[0]), str(row[1]), bytes(row[2]), int(row[3]))


def waiting(conn: sqlite3.Connection, at: datetime, *, bulk: Sequence[str]) -> tuple[int, int]:
    """(personal, bulk): how many queued messages are due at ``at``."""
    _only, is_bulk, kinds = _where(bulk, True)
    row = conn.execute(
        f"SELECT COALESCE(SUM(NOT ({is_bulk})), 0), COALESCE(SUM({is_bulk}), 0) FROM outbox"
        " WHERE state = 'queued' AND next_attempt_at <= ?",
        [*kinds, *kinds, time_to_db(at)],
    ).fetchone()
    return int(row[0]), int(row[1])
