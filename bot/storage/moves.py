"""The ``moves`` table: every lineup or withdrawal a manager sent, newest last."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime

from bot.rules.lineup import Lineup
from bot.storage.values import time_from_db, time_to_db


@dataclass(frozen=True, slots=True)
class MoveRow:
    id: int
    round: int
    team_id: int
    line: str
    lineup: Lineup | None
    withdrawn: bool
    received_at: datetime


def _move(row: sqlite3.Row) -> MoveRow:
    lineup = Lineup.parse(row["lineup"]) if row["lineup"] is not None else None
    return MoveRow(
        row["id"], row["round"], row["team_id"], row["line"], lineup,
        bool(row["withdrawn"]), time_from_db(row["received_at"]),  # type: ignore[arg-type]
    )


def current_move(conn: sqlite3.Connection, round_number: int, team_id: int) -> MoveRow | None:
    """The latest move of a team for a round (a lineup or a withdrawal)."""
    row = conn.execute(
        "SELECT * FROM moves WHERE round = ? AND team_id = ? ORDER BY id DESC LIMIT 1",
        (round_number, team_id),
    ).fetchone()
    return _move(row) if row else None


def current_moves(conn: sqlite3.Connection, round_number: int) -> dict[int, MoveRow]:
    """Team id -> latest move for the round."""
    rows = conn.execute(
        "SELECT m.* FROM moves m WHERE m.round = ? AND m.id = ("
        " SELECT MAX(id) FROM moves WHERE round = m.round AND team_id = m.team_id)",
        (round_number,),
    )
    return {r["team_id"]: _move(r) for r in rows}


def insert_move(
    conn: sqlite3.Connection, *, round_number: int, team_id: int, line: str,
    lineup: Lineup | None, now: datetime, inbound_id: int | None, message_id: str | None,
) -> int:
    cur = conn.execute(
        "INSERT INTO moves (round, team_id, line, lineup, withdrawn, inbound_id, message_id,"
        " received_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (round_number, team_id, line, str(lineup) if lineup else None,
         0 if lineup else 1, inbound_id, message_id, time_to_db(now)),
    )
    return int(cur.lastrowid)  # type: ignore[arg-type]


def count_received(conn: sqlite3.Connection, after: str, until: str) -> int:
    """Moves received in the window (``after``, ``until``] of stored times (a
    lineup sent for several rounds once: ``bot.storage.ahead``)."""
    return int(conn.execute(
        "SELECT COUNT(*) FROM moves WHERE received_at > ? AND received_at <= ?"
        " AND (ahead_from IS NULL OR round = ahead_from)", (after, until),
    ).fetchone()[0])
