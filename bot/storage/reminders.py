"""Reminders: who still lacks a lineup, and ``reminders_sent`` (once per round,
offset and manager)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime

from bot.storage.values import time_to_db


@dataclass(frozen=True, slots=True)
class MissingLineupRow:
    manager_id: int
    address: str
    display_name: str | None
    language: str | None
    team: str


def teams_without_move(
    conn: sqlite3.Connection, round_number: int, *, first: int, last: int,
) -> list[MissingLineupRow]:
    """Teams (not deleted, not announced for deletion) that played in a round of
    ``first``..``last`` (here, or before a takeover) but have no move for
    ``round_number``; by manager, team."""
    rows = conn.execute(
        """
        SELECT m.id, m.address, m.display_name, m.language, t.name
        FROM teams t JOIN managers m ON m.id = t.manager_id
        WHERE t.deleted_round IS NULL AND t.doomed_round IS NULL
          AND (EXISTS (SELECT 1 FROM round_entries e WHERE e.team_id = t.id
                       AND e.round BETWEEN :first AND :last)
               OR EXISTS (SELECT 1 FROM imported_teams i WHERE i.team_id = t.id
                          AND i.last_round BETWEEN :first AND :last))
          AND NOT EXISTS (SELECT 1 FROM moves v WHERE v.team_id = t.id AND v.round = :r)
        ORDER BY m.id, t.id
        """,
        {"r": round_number, "first": first, "last": last},
    )
    return [MissingLineupRow(r["id"], r["address"], r["display_name"], r["language"],
                             r["name"]) for r in rows]


def mark_reminded(
    conn: sqlite3.Connection, round_number: int, hours_before: int, manager_id: int,
    now: datetime,
) -> bool:
    """Record a reminder; False if this manager was reminded for this round and
    offset already (then nothing is stored)."""
    cur = conn.execute(
        "INSERT OR IGNORE INTO reminders_sent (round, hours_before, manager_id, sent_at)"
        " VALUES (?, ?, ?, ?)",
        (round_number, hours_before, manager_id, time_to_db(now)),
    )
    return cur.rowcount != 0
