"""Lineups sent for several rounds (RULES.md §12): one ``moves`` row per round.

A lineup for N rounds is stored as N ordinary move rows, one for each round
from the one its mail counts for, each marked with its first and last round
(``ahead_from``, ``ahead_until``; NULL on every other move). So the
evaluation, the reminders and the game master's lists read it as they read
any lineup: the round's latest move, corrected against the WP the team has
when that round is evaluated.

A newer move of the team (a lineup, or a withdrawal) for round R ends every
lineup ahead that began at or before R: its rows for the rounds after R are
deleted (no round after R is evaluated yet, so nothing refers to them) and
its last round becomes R (``cut``).
"""

from __future__ import annotations

import sqlite3
from datetime import datetime

from bot.rules.lineup import Lineup
from bot.storage.values import time_to_db

AHEAD_V18 = """
ALTER TABLE moves ADD COLUMN ahead_from INTEGER;    -- a lineup for several rounds: its first
ALTER TABLE moves ADD COLUMN ahead_until INTEGER;   -- and its last round (NULL: one round)
"""


def insert_ahead(
    conn: sqlite3.Connection, *, team_id: int, first: int, last: int, line: str,
    lineup: Lineup, now: datetime, inbound_id: int | None, message_id: str | None,
) -> list[int]:
    """The rows of a lineup for the rounds ``first``..``last``; their ids."""
    if last < first:
        raise ValueError(f"a lineup ahead needs last >= first, got rounds {first}..{last}")
    ids = []
    for number in range(first, last + 1):
        cur = conn.execute(
            "INSERT INTO moves (round, team_id, line, lineup, withdrawn, inbound_id, message_id,"
            " received_at, ahead_from, ahead_until) VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?, ?)",
            (number, team_id, line, str(lineup), inbound_id, message_id, time_to_db(now),
             first, last),
        )
        ids.append(int(cur.lastrowid))  # type: ignore[arg-type]
    return ids


def cut(conn: sqlite3.Connection, team_id: int, round_number: int) -> int | None:
    """End the team's lineups ahead that began at or before ``round_number``
    with that round (module doc); returns the last round the latest of them
    stood for, None when none stood beyond ``round_number``."""
    row = conn.execute(
        "SELECT MAX(ahead_until) FROM moves WHERE team_id = ? AND ahead_from <= ?"
        " AND ahead_until > ?",
        (team_id, round_number, round_number),
    ).fetchone()
    if row[0] is None:
        return None
    conn.execute(
        "DELETE FROM moves WHERE team_id = ? AND round > ? AND ahead_from <= ?",
        (team_id, round_number, round_number),
    )
    conn.execute(
        "UPDATE moves SET ahead_until = ? WHERE team_id = ? AND ahead_from <= ?"
        " AND ahead_until > ?",
        (round_number, team_id, round_number, round_number),
    )
    return int(row[0])


def standing(conn: sqlite3.Connection, team_id: int, round_number: int) -> tuple[int, int] | None:
    """(first, last round) of the lineup ahead that is the team's move for
    ``round_number``; None when its move there is no lineup ahead."""
    row = conn.execute(
        "SELECT ahead_from, ahead_until FROM moves WHERE round = ? AND team_id = ?"
        " ORDER BY id DESC LIMIT 1",
        (round_number, team_id),
    ).fetchone()
    if row is None or row["ahead_from"] is None:
        return None
    return int(row["ahead_from"]), int(row["ahead_until"])


def standing_of_manager(
    conn: sqlite3.Connection, manager_id: int, round_number: int
) -> list[tuple[str, int, int]]:
    """(team, first, last round) of each of the manager's teams whose move for
    ``round_number`` is a lineup ahead, oldest team first."""
    rows = conn.execute(
        """
        SELECT t.name, m.ahead_from, m.ahead_until
        FROM teams t JOIN moves m ON m.team_id = t.id AND m.round = :r
        WHERE t.manager_id = :manager AND t.deleted_round IS NULL
          AND m.ahead_from IS NOT NULL
          AND m.id = (SELECT MAX(id) FROM moves WHERE round = :r AND team_id = t.id)
        ORDER BY t.id
        """,
        {"r": round_number, "manager": manager_id},
    )
    return [(r["name"], int(r["ahead_from"]), int(r["ahead_until"])) for r in rows]
