"""The game master's view of who plays: every manager with their teams, last
mail, bounces and ban flag, and the teams without a lineup for a round.

Read-only queries for the console (``turnited managers``, ``missing``).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from decimal import Decimal

from bot.storage.values import dec_from_db

#: Columns of ``managers`` that mark a banned manager, if the schema has one.
BAN_COLUMNS = ("banned", "banned_at")


@dataclass(frozen=True, slots=True)
class RosterTeam:
    name: str
    short_name: str
    wp: Decimal
    psz: Decimal


@dataclass(frozen=True, slots=True)
class RosterManager:
    id: int
    address: str
    display_name: str | None
    language: str | None
    teams: tuple[RosterTeam, ...]
    #: ``received_at`` (ISO 8601 UTC) of the manager's latest mail, if any.
    last_mail: str | None
    bounces: int
    #: None when the schema has no ban flag (see ``ban_column``).
    banned: bool | None


@dataclass(frozen=True, slots=True)
class MissingTeam:
    team: str
    short_name: str
    manager_id: int
    address: str
    display_name: str | None
    language: str | None


def ban_column(conn: sqlite3.Connection) -> str | None:
    """The name of the managers' ban flag column, or None if there is none."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(managers)")}
    return next((c for c in BAN_COLUMNS if c in columns), None)


def roster(conn: sqlite3.Connection, *, with_retired: bool = False) -> list[RosterManager]:
    """Every manager with a team that is not deleted (with ``with_retired``
    every manager ever registered), oldest first, with their active teams."""
    ban = ban_column(conn)
    ban_sql = f", m.{ban} AS ban" if ban else ", NULL AS ban"
    where = "" if with_retired else (
        " WHERE EXISTS (SELECT 1 FROM teams t WHERE t.manager_id = m.id"
        " AND t.deleted_round IS NULL)")
    rows = conn.execute(
        "SELECT m.id, m.address, m.display_name, m.language"
        " , (SELECT MAX(i.received_at) FROM inbound i WHERE i.manager_id = m.id) AS last_mail"
        " , (SELECT COUNT(*) FROM bounces b WHERE b.manager_id = m.id) AS bounces"
        f"{ban_sql} FROM managers m{where} ORDER BY m.id"
    ).fetchall()
    teams: dict[int, list[RosterTeam]] = {}
    for t in conn.execute(
        "SELECT manager_id, name, short_name, wp, psz FROM teams"
        " WHERE deleted_round IS NULL ORDER BY id"
    ):
        teams.setdefault(t["manager_id"], []).append(RosterTeam(
            t["name"], t["short_name"], dec_from_db(t["wp"]), dec_from_db(t["psz"])))
    return [
        RosterManager(
            r["id"], r["address"], r["display_name"], r["language"],
            tuple(teams.get(r["id"], ())), r["last_mail"], int(r["bounces"]),
            None if ban is None else bool(r["ban"]),
        )
        for r in rows
    ]


def teams_without_lineup(conn: sqlite3.Connection, round_number: int) -> list[MissingTeam]:
    """Teams that can play ``round_number`` (registered by then, not deleted)
    and have no move for it: neither a lineup nor a withdrawal. By manager,
    then team."""
    rows = conn.execute(
        """
        SELECT t.name, t.short_name, m.id, m.address, m.display_name, m.language
        FROM teams t JOIN managers m ON m.id = t.manager_id
        WHERE t.deleted_round IS NULL AND t.registered_round <= :r
          AND NOT EXISTS (SELECT 1 FROM moves v WHERE v.team_id = t.id AND v.round = :r)
        ORDER BY m.id, t.id
        """,
        {"r": round_number},
    )
    return [MissingTeam(r["name"], r["short_name"], r["id"], r["address"],
                        r["display_name"], r["language"]) for r in rows]
