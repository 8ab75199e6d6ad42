"""The ``confirmations`` table: requests that wait for a second mail with a code.

A row is one request that a mail carrying ``Bestätigen: CODE`` from
``confirm_from`` carries out (``bot.league.confirmations`` makes and checks
the codes): what for (``purpose``, e.g. ``move`` or ``erase``), whose
(``manager_id``), what else it needs (``payload``, JSON), the code's salted
digest (never the code), until when it holds, and whether it is still
``pending``, ``used`` or ``replaced`` by a newer request. Plus the one read
of the ledger it needs: how many wrong codes a sender sent since a request
was made (a wrong code changes nothing, so only the ledger remembers it).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bot.storage.addresses import canonical_address
from bot.storage.values import time_from_db, time_to_db

PENDING, USED, REPLACED = "pending", "used", "replaced"


@dataclass(frozen=True, slots=True)
class ConfirmationRow:
    id: int
    purpose: str
    confirm_from: str
    manager_id: int | None
    payload: dict[str, Any]
    code_hash: str
    created_at: datetime
    expires_at: datetime
    state: str


def _row(row: sqlite3.Row) -> ConfirmationRow:
    return ConfirmationRow(
        int(row["id"]), row["purpose"], row["confirm_from"], row["manager_id"],
        json.loads(row["payload"]), row["code_hash"],
        time_from_db(row["created_at"]), time_from_db(row["expires_at"]),  # type: ignore[arg-type]
        row["state"],
    )


def insert(
    conn: sqlite3.Connection, *, purpose: str, confirm_from: str, manager_id: int | None,
    payload: dict[str, Any], code_hash: str, now: datetime, expires_at: datetime,
) -> int:
    cur = conn.execute(
        "INSERT INTO confirmations (purpose, confirm_from, manager_id, payload, code_hash,"
        " created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (purpose, confirm_from, manager_id, json.dumps(payload, sort_keys=True), code_hash,
         time_to_db(now), time_to_db(expires_at)),
    )
    return int(cur.lastrowid)  # type: ignore[arg-type]


def of_sender(
    conn: sqlite3.Connection, confirm_from: str, purposes: Collection[str],
) -> list[ConfirmationRow]:
    """Every request of ``purposes`` a mail from ``confirm_from`` may confirm
    (pending or not), newest first."""
    marks = ", ".join("?" * len(purposes))
    rows = conn.execute(
        f"SELECT * FROM confirmations WHERE confirm_from = ? AND purpose IN ({marks})"
        " ORDER BY id DESC", (confirm_from, *purposes),
    )
    return [_row(r) for r in rows]


def replace_pending(
    conn: sqlite3.Connection, purpose: str, *, manager_id: int | None, confirm_from: str,
    now: datetime,
) -> int:
    """Mark the pending requests of ``purpose`` of this manager (of this
    address when there is none) ``replaced``; returns how many."""
    key: int | str
    if manager_id is not None:
        where, key = "manager_id = ?", manager_id
    else:
        where, key = "manager_id IS NULL AND confirm_from = ?", confirm_from
    return conn.execute(
        f"UPDATE confirmations SET state = '{REPLACED}', settled_at = ?"
        f" WHERE state = '{PENDING}' AND purpose = ? AND {where}",
        (time_to_db(now), purpose, key),
    ).rowcount


def replace_all_pending(conn: sqlite3.Connection, manager_id: int, now: datetime) -> int:
    """Every pending request of the manager is ``replaced`` (his address changed)."""
    return conn.execute(
        f"UPDATE confirmations SET state = '{REPLACED}', settled_at = ?"
        f" WHERE state = '{PENDING}' AND manager_id = ?", (time_to_db(now), manager_id),
    ).rowcount


def mark_used(conn: sqlite3.Connection, confirmation_id: int, now: datetime) -> None:
    conn.execute(
        f"UPDATE confirmations SET state = '{USED}', settled_at = ? WHERE id = ?",
        (time_to_db(now), confirmation_id),
    )


def forget(conn: sqlite3.Connection, *, address: str, manager_id: int | None) -> int:
    """Delete every request from or for ``address`` and of the manager (his
    data is erased); returns how many."""
    return conn.execute(
        "DELETE FROM confirmations WHERE confirm_from = ? OR manager_id = ?",
        (address, manager_id),
    ).rowcount


def wrong_codes_since(
    conn: sqlite3.Connection, sender: str, since: datetime, code: str,
) -> int:
    """How many of ``sender``'s mails received at or after ``since`` the ledger
    shows answered with the notice ``code`` (a wrong confirmation code)."""
    rows = conn.execute(
        "SELECT sender FROM inbound WHERE kind = 'human' AND received_at >= ?"
        " AND ' ' || notices || ' ' LIKE ?",
        (time_to_db(since), f"% {code} %"),
    ).fetchall()
    return sum(1 for (written,) in rows
               if written and canonical_address(str(written).lower()) == sender)
