"""Rows of the league tables as typed records, and the small queries on them.

Only data access lives here (no rules): managers, teams, rounds and moves
read into frozen dataclasses with exact numbers and aware times, and the
inserts/updates the league service needs. Every function takes the
connection of the caller's transaction.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from bot.rules.lineup import Lineup
from bot.storage.values import dec_from_db, dec_to_db, time_from_db, time_to_db


@dataclass(frozen=True, slots=True)
class ManagerRow:
    id: int
    address: str
    display_name: str | None
    password_hash: str | None
    created_at: datetime
    created_round: int | None
    #: Language of the latest mail that showed one ('de'/'en'), None if unknown.
    language: str | None = None


@dataclass(frozen=True, slots=True)
class TeamRow:
    id: int
    name: str
    short_name: str
    manager_id: int
    wp: Decimal
    psz: Decimal
    registered_round: int
    deleted_round: int | None
    doomed_round: int | None
    doomed_by: int | None
    last_played_round: int | None

    @property
    def active(self) -> bool:
        return self.deleted_round is None


@dataclass(frozen=True, slots=True)
class RoundRow:
    number: int
    season: int
    round_in_season: int
    deadline: datetime
    state: str
    seed: int | None
    evaluated_at: datetime | None

    @property
    def is_open(self) -> bool:
        return self.state == "open"


@dataclass(frozen=True, slots=True)
class MoveRow:
    id: int
    round: int
    team_id: int
    line: str
    lineup: Lineup | None
    withdrawn: bool
    received_at: datetime


def _manager(row: sqlite3.Row) -> ManagerRow:
    return ManagerRow(
        row["id"], row["address"], row["display_name"], row["password_hash"],
        time_from_db(row["created_at"]), row["created_round"],  # type: ignore[arg-type]
        row["language"],
    )


def _team(row: sqlite3.Row) -> TeamRow:
    return TeamRow(
        row["id"], row["name"], row["short_name"], row["manager_id"],
        dec_from_db(row["wp"]), dec_from_db(row["psz"]), row["registered_round"],
        row["deleted_round"], row["doomed_round"], row["doomed_by"], row["last_played_round"],
    )


def _round(row: sqlite3.Row) -> RoundRow:
    return RoundRow(
        row["number"], row["season"], row["round_in_season"],
        time_from_db(row["deadline"]), row["state"], row["seed"],  # type: ignore[arg-type]
        time_from_db(row["evaluated_at"]),
    )


def _move(row: sqlite3.Row) -> MoveRow:
    lineup = Lineup.parse(row["lineup"]) if row["lineup"] is not None else None
    return MoveRow(
        row["id"], row["round"], row["team_id"], row["line"], lineup,
        bool(row["withdrawn"]), time_from_db(row["received_at"]),  # type: ignore[arg-type]
    )


# -- managers -----------------------------------------------------------------


def manager_by_address(conn: sqlite3.Connection, address: str) -> ManagerRow | None:
    row = conn.execute("SELECT * FROM managers WHERE address = ?", (address,)).fetchone()
    return _manager(row) if row else None


def manager_by_id(conn: sqlite3.Connection, manager_id: int) -> ManagerRow:
    row = conn.execute("SELECT * FROM managers WHERE id = ?", (manager_id,)).fetchone()
    if row is None:
        raise LookupError(f"no manager with id {manager_id}")
    return _manager(row)


def insert_manager(
    conn: sqlite3.Connection, address: str, display_name: str | None,
    password_hash: str | None, now: datetime, round_number: int,
) -> int:
    cur = conn.execute(
        "INSERT INTO managers (address, display_name, password_hash, created_at, created_round)"
        " VALUES (?, ?, ?, ?, ?)",
        (address, display_name, password_hash, time_to_db(now), round_number),
    )
    return int(cur.lastrowid)  # type: ignore[arg-type]


def update_manager(conn: sqlite3.Connection, manager_id: int, **fields: object) -> None:
    allowed = {"display_name", "password_hash", "language"}
    if not fields or set(fields) - allowed:
        raise ValueError(f"can update only {sorted(allowed)}, got {sorted(fields)}")
    sets = ", ".join(f"{k} = ?" for k in fields)
    conn.execute(f"UPDATE managers SET {sets} WHERE id = ?", (*fields.values(), manager_id))


def count_managers(conn: sqlite3.Connection, *, with_active_teams: bool = True) -> int:
    if not with_active_teams:
        return int(conn.execute("SELECT COUNT(*) FROM managers").fetchone()[0])
    return int(conn.execute(
        "SELECT COUNT(DISTINCT manager_id) FROM teams WHERE deleted_round IS NULL"
    ).fetchone()[0])


# -- teams --------------------------------------------------------------------


def team_by_key(conn: sqlite3.Connection, name_key: str) -> TeamRow | None:
    row = conn.execute("SELECT * FROM teams WHERE name_key = ?", (name_key,)).fetchone()
    return _team(row) if row else None


def team_by_id(conn: sqlite3.Connection, team_id: int) -> TeamRow:
    row = conn.execute("SELECT * FROM teams WHERE id = ?", (team_id,)).fetchone()
    if row is None:
        raise LookupError(f"no team with id {team_id}")
    return _team(row)


def teams_of_manager(conn: sqlite3.Connection, manager_id: int) -> list[TeamRow]:
    """The manager's teams that are not deleted, oldest first."""
    rows = conn.execute(
        "SELECT * FROM teams WHERE manager_id = ? AND deleted_round IS NULL ORDER BY id",
        (manager_id,),
    )
    return [_team(r) for r in rows]


def active_teams(conn: sqlite3.Connection) -> list[TeamRow]:
    rows = conn.execute("SELECT * FROM teams WHERE deleted_round IS NULL ORDER BY id")
    return [_team(r) for r in rows]


def insert_team(
    conn: sqlite3.Connection, *, name: str, name_key: str, short_name: str, manager_id: int,
    wp: Decimal, psz: Decimal, registered_round: int, now: datetime,
) -> int:
    cur = conn.execute(
        "INSERT INTO teams (name, name_key, short_name, manager_id, wp, psz, registered_round,"
        " created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (name, name_key, short_name, manager_id, dec_to_db(wp), dec_to_db(psz),
         registered_round, time_to_db(now)),
    )
    return int(cur.lastrowid)  # type: ignore[arg-type]


def doom_team(conn: sqlite3.Connection, team_id: int, round_number: int, by: int) -> None:
    conn.execute(
        "UPDATE teams SET doomed_round = ?, doomed_by = ? WHERE id = ?",
        (round_number, by, team_id),
    )


def pardon_teams_doomed_by(conn: sqlite3.Connection, team_id: int) -> list[int]:
    rows = conn.execute("SELECT id FROM teams WHERE doomed_by = ?", (team_id,)).fetchall()
    conn.execute(
        "UPDATE teams SET doomed_round = NULL, doomed_by = NULL WHERE doomed_by = ?", (team_id,)
    )
    return [r[0] for r in rows]


def cancel_registration(conn: sqlite3.Connection, team_id: int, round_number: int) -> None:
    """Withdraw the registration of a team that never played: its moves go, the
    team is marked deleted in ``round_number``, and its name stays taken
    (RULES.md §7: names are unique across all teams ever registered)."""
    conn.execute("DELETE FROM moves WHERE team_id = ?", (team_id,))
    conn.execute(
        "UPDATE teams SET deleted_round = ? WHERE id = ? AND last_played_round IS NULL",
        (round_number, team_id),
    )


# -- rounds -------------------------------------------------------------------


def open_round(conn: sqlite3.Connection) -> RoundRow | None:
    row = conn.execute("SELECT * FROM rounds WHERE state = 'open'").fetchone()
    return _round(row) if row else None


def round_by_number(conn: sqlite3.Connection, number: int) -> RoundRow | None:
    row = conn.execute("SELECT * FROM rounds WHERE number = ?", (number,)).fetchone()
    return _round(row) if row else None


def insert_round(
    conn: sqlite3.Connection, *, number: int, season: int, round_in_season: int,
    deadline: datetime, now: datetime,
) -> None:
    conn.execute(
        "INSERT INTO rounds (number, season, round_in_season, deadline, state, opened_at)"
        " VALUES (?, ?, ?, ?, 'open', ?)",
        (number, season, round_in_season, time_to_db(deadline), time_to_db(now)),
    )


# -- moves --------------------------------------------------------------------


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
