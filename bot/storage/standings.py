"""The reads behind the WP and PSZ tables (``bot.league.tables``): which teams
are listed after a round, and their historical WP, gain and PSZ."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from decimal import Decimal

from bot.storage.imports import imported_value
from bot.storage.values import dec_from_db


@dataclass(frozen=True, slots=True)
class ListedTeamRow:
    team_id: int
    name: str
    short_name: str
    name_key: str
    display_name: str | None
    address: str


def listed_teams(conn: sqlite3.Connection, round_number: int, first: int) -> list[ListedTeamRow]:
    """Teams registered by ``round_number``, not deleted at or before it (a
    team retired with its erased manager stays), that played in a round of
    ``first``..``round_number`` (here, or before a takeover:
    ``imported_teams.last_round``); oldest first."""
    rows = conn.execute(
        """
        SELECT t.id, t.name, t.short_name, t.name_key, m.display_name, m.address
        FROM teams t JOIN managers m ON m.id = t.manager_id
        WHERE t.registered_round <= :r
          AND (t.deleted_round IS NULL OR t.deleted_round > :r OR t.retired = 1)
          AND (EXISTS (SELECT 1 FROM round_entries e
                       WHERE e.team_id = t.id AND e.round BETWEEN :first AND :r)
               OR EXISTS (SELECT 1 FROM imported_teams i
                          WHERE i.team_id = t.id AND i.last_round BETWEEN :first AND :r))
        ORDER BY t.id
        """,
        {"r": round_number, "first": first},
    )
    return [ListedTeamRow(r["id"], r["name"], r["short_name"], r["name_key"],
                          r["display_name"], r["address"]) for r in rows]


def wp_after(conn: sqlite3.Connection, team_id: int, round_number: int) -> Decimal | None:
    """A team's WP right after round ``round_number`` (its imported WP if it
    never changed here; None if it never changed)."""
    row = conn.execute(
        "SELECT wp_after FROM wp_history WHERE team_id = ? AND round <= ?"
        " ORDER BY round DESC, kind = 'ageing' DESC LIMIT 1",
        (team_id, round_number),
    ).fetchone()
    return dec_from_db(row[0]) if row else imported_value(conn, team_id, round_number, "wp")


def psz_after(conn: sqlite3.Connection, team_id: int, round_number: int) -> Decimal | None:
    row = conn.execute(
        "SELECT psz_after FROM round_entries WHERE team_id = ? AND round <= ?"
        " ORDER BY round DESC LIMIT 1",
        (team_id, round_number),
    ).fetchone()
    return dec_from_db(row[0]) if row else imported_value(conn, team_id, round_number, "psz")


def wp_gain(conn: sqlite3.Connection, team_id: int, round_number: int) -> Decimal | None:
    """The team's WP gain in ``round_number`` (None: it did not play)."""
    row = conn.execute(
        "SELECT wp_gain FROM round_entries WHERE round = ? AND team_id = ?",
        (round_number, team_id),
    ).fetchone()
    return dec_from_db(row[0]) if row else None
