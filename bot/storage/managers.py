"""The ``managers`` table: who plays (address, display name, password hash,
language and whether he chose it, banned since, unsubscribed since, erased when)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime

from bot.storage.values import time_from_db, time_to_db


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
    #: Since when the game master has banned this manager (None: not banned).
    banned_at: datetime | None = None
    #: Since when the manager gets no newsletters and reminders (``Abmelden``).
    unsubscribed_at: datetime | None = None
    #: Since when ``language`` is the one he chose (``Sprache:``), not his mails'.
    language_chosen_at: datetime | None = None
    #: When his address, name and password were erased (``Daten löschen``).
    erased_at: datetime | None = None

    @property
    def banned(self) -> bool:
        return self.banned_at is not None

    @property
    def unsubscribed(self) -> bool:
        return self.unsubscribed_at is not None

    @property
    def language_chosen(self) -> bool:
        return self.language_chosen_at is not None


def _manager(row: sqlite3.Row) -> ManagerRow:
    return ManagerRow(
        row["id"], row["address"], row["display_name"], row["password_hash"],
        time_from_db(row["created_at"]), row["created_round"],  # type: ignore[arg-type]
        row["language"], time_from_db(row["banned_at"]), time_from_db(row["unsubscribed_at"]),
        time_from_db(row["language_chosen_at"]), time_from_db(row["erased_at"]),
    )


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


def set_banned(conn: sqlite3.Connection, manager_id: int, at: datetime | None) -> None:
    """Ban the manager since ``at`` (None: lift the ban)."""
    conn.execute("UPDATE managers SET banned_at = ? WHERE id = ?",
                 (time_to_db(at) if at else None, manager_id))


def set_unsubscribed(conn: sqlite3.Connection, manager_id: int, at: datetime | None) -> None:
    """The manager gets no newsletters and reminders since ``at`` (None: he
    gets them again)."""
    conn.execute("UPDATE managers SET unsubscribed_at = ? WHERE id = ?",
                 (time_to_db(at) if at else None, manager_id))


def set_address(conn: sqlite3.Connection, manager_id: int, address: str) -> None:
    """The manager is known by ``address`` from now on (his teams, WP, PSZ and
    password are his row's: they move with it)."""
    conn.execute("UPDATE managers SET address = ? WHERE id = ?", (address, manager_id))


def choose_language(conn: sqlite3.Connection, manager_id: int, language: str,
                    at: datetime) -> None:
    """The manager's language is ``language`` from ``at`` on, whatever his mails
    are written in (``Sprache: Englisch``)."""
    conn.execute("UPDATE managers SET language = ?, language_chosen_at = ? WHERE id = ?",
                 (language, time_to_db(at), manager_id))


def unsubscribed_ids(conn: sqlite3.Connection) -> frozenset[int]:
    """Ids of the managers who get no newsletters and reminders now."""
    rows = conn.execute("SELECT id FROM managers WHERE unsubscribed_at IS NOT NULL")
    return frozenset(int(r[0]) for r in rows)


def banned_ids(conn: sqlite3.Connection) -> frozenset[int]:
    """Ids of the managers banned now."""
    rows = conn.execute("SELECT id FROM managers WHERE banned_at IS NOT NULL")
    return frozenset(int(r[0]) for r in rows)


def is_banned(conn: sqlite3.Connection, address: str) -> bool:
    row = conn.execute(
        "SELECT 1 FROM managers WHERE address = ? AND banned_at IS NOT NULL", (address,)
    ).fetchone()
    return row is not None


def count_managers(conn: sqlite3.Connection, *, with_active_teams: bool = True) -> int:
    if not with_active_teams:
        return int(conn.execute("SELECT COUNT(*) FROM managers").fetchone()[0])
    return int(conn.execute(
        "SELECT COUNT(DISTINCT manager_id) FROM teams WHERE deleted_round IS NULL"
    ).fetchone()[0])


def active_recipients(conn: sqlite3.Connection) -> list[ManagerRow]:
    """Every manager with at least one team that is not deleted, oldest first."""
    rows = conn.execute(
        "SELECT * FROM managers m WHERE EXISTS ("
        " SELECT 1 FROM teams t WHERE t.manager_id = m.id AND t.deleted_round IS NULL)"
        " ORDER BY id"
    )
    return [_manager(r) for r in rows]


def manager_id_of(conn: sqlite3.Connection, address: str) -> int | None:
    row = conn.execute("SELECT id FROM managers WHERE address = ?", (address,)).fetchone()
    return int(row[0]) if row else None
