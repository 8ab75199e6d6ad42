"""The ``teams`` table: names (unique once played), owners, WP and PSZ, deletion marks."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from bot.storage.values import dec_from_db, dec_to_db, time_to_db


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


def _team(row: sqlite3.Row) -> TeamRow:
    return TeamRow(
        row["id"], row["name"], row["short_name"], row["manager_id"],
        dec_from_db(row["wp"]), dec_from_db(row["psz"]), row["registered_round"],
        row["deleted_round"], row["doomed_round"], row["doomed_by"], row["last_played_round"],
    )


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


def cancel_registration(conn: sqlite3.Connection, team_id: int) -> None:
    """Withdraw the registration of a team that never played: it never existed
    (RULES.md §7), so its moves and its row go and its name is free again. A
    team that has played is never removed (the guard on ``last_played_round``)."""
    conn.execute(
        "DELETE FROM moves WHERE team_id = ? AND team_id IN"
        " (SELECT id FROM teams WHERE last_played_round IS NULL)", (team_id,)
    )
    conn.execute("DELETE FROM teams WHERE id = ? AND last_played_round IS NULL", (team_id,))


def all_team_names(conn: sqlite3.Connection) -> list[str]:
    """The names of every stored team, deleted ones too (names that block a
    new registration, RULES.md §7), oldest first."""
    return [r[0] for r in conn.execute("SELECT name FROM teams ORDER BY id")]


def all_short_names(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """(name, short name) of every stored team, deleted ones too, oldest
    first (a new team's short name must read differently, RULES.md §7)."""
    return [(r[0], r[1]) for r in conn.execute("SELECT name, short_name FROM teams ORDER BY id")]


def deleted_in(conn: sqlite3.Connection, round_number: int) -> list[str]:
    """Names of the teams deleted at the evaluation of ``round_number``."""
    rows = conn.execute(
        "SELECT name FROM teams WHERE deleted_round = ? ORDER BY name", (round_number,)
    )
    return [r[0] for r in rows]


def mark_deleted(conn: sqlite3.Connection, team_id: int, round_number: int) -> None:
    conn.execute("UPDATE teams SET deleted_round = ? WHERE id = ?", (round_number, team_id))


def set_played(
    conn: sqlite3.Connection, team_id: int, *, wp: Decimal, psz: Decimal, round_number: int,
) -> None:
    """A team's WP and PSZ after playing ``round_number``."""
    conn.execute(
        "UPDATE teams SET wp = ?, psz = ?, last_played_round = ? WHERE id = ?",
        (dec_to_db(wp), dec_to_db(psz), round_number, team_id),
    )


def set_wp(conn: sqlite3.Connection, team_id: int, wp: Decimal) -> None:
    conn.execute("UPDATE teams SET wp = ? WHERE id = ?", (dec_to_db(wp), team_id))


def existing_by(conn: sqlite3.Connection, round_number: int) -> list[tuple[int, Decimal]]:
    """(id, WP) of every team not deleted and registered by ``round_number``
    (the teams that age at a season's end)."""
    rows = conn.execute(
        "SELECT id, wp FROM teams WHERE deleted_round IS NULL AND registered_round <= ?",
        (round_number,),
    ).fetchall()
    return [(int(r["id"]), dec_from_db(r["wp"])) for r in rows]


def restore_played(
    conn: sqlite3.Connection, team_id: int, *, wp: Decimal, psz: Decimal | None,
    last_played_round: int | None,
) -> None:
    """Undo a round's changes to a team (``psz`` None: keep the PSZ)."""
    if psz is None:
        conn.execute("UPDATE teams SET wp = ? WHERE id = ?", (dec_to_db(wp), team_id))
        return
    conn.execute(
        "UPDATE teams SET wp = ?, psz = ?, last_played_round = ? WHERE id = ?",
        (dec_to_db(wp), dec_to_db(psz), last_played_round, team_id),
    )


def undelete(conn: sqlite3.Connection, team_id: int, round_number: int) -> None:
    """A team deleted at the evaluation of ``round_number`` exists again (its
    deletion stays announced, so the next evaluation deletes it again)."""
    conn.execute("UPDATE teams SET deleted_round = NULL WHERE id = ? AND deleted_round = ?",
                 (team_id, round_number))
