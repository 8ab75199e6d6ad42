"""The ``bounces`` table: mail that came back undelivered, linked to its manager."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime

from bot.storage.values import time_to_db


@dataclass(frozen=True, slots=True)
class BouncedManager:
    address: str
    count: int
    last_at: str | None
    last_reason: str | None


def insert_bounce(
    conn: sqlite3.Connection, *, manager_id: int | None, inbound_id: int | None,
    recipient: str, reason: str, now: datetime | None,
) -> int:
    cur = conn.execute(
        "INSERT INTO bounces (manager_id, inbound_id, recipient, reason, at)"
        " VALUES (?, ?, ?, ?, ?)",
        (manager_id, inbound_id, recipient, reason, time_to_db(now) if now else None),
    )
    return int(cur.lastrowid)  # type: ignore[arg-type]


def bounced_managers(conn: sqlite3.Connection) -> list[BouncedManager]:
    """Managers whose mail bounced, the latest bounce first."""
    rows = conn.execute(
        "SELECT m.address, COUNT(*), MAX(b.at), MAX(b.reason) FROM bounces b"
        " JOIN managers m ON m.id = b.manager_id GROUP BY m.id ORDER BY MAX(b.id) DESC"
    ).fetchall()
    return [BouncedManager(r[0], int(r[1]), r[2], r[3]) for r in rows]
