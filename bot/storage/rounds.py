"""The ``rounds`` table: one row per round, at most one open."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime

from bot.storage.values import time_from_db, time_to_db


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


def _round(row: sqlite3.Row) -> RoundRow:
    return RoundRow(
        row["number"], row["season"], row["round_in_season"],
        time_from_db(row["deadline"]), row["state"], row["seed"],  # type: ignore[arg-type]
        time_from_db(row["evaluated_at"]),
    )


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


def set_deadline(conn: sqlite3.Connection, number: int, deadline: datetime) -> None:
    conn.execute("UPDATE rounds SET deadline = ? WHERE number = ?",
                 (time_to_db(deadline), number))


def close_round(conn: sqlite3.Connection, number: int, *, seed: int, now: datetime) -> None:
    """Mark the open round ``number`` evaluated with its seed."""
    conn.execute(
        "UPDATE rounds SET state = 'evaluated', seed = ?, evaluated_at = ?"
        " WHERE number = ? AND state = 'open'",
        (seed, time_to_db(now), number),
    )


def count_evaluated(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT COUNT(*) FROM rounds WHERE state = 'evaluated'").fetchone()[0])


def evaluated_at(conn: sqlite3.Connection, numbers: tuple[int, ...]) -> dict[int, str | None]:
    """Round number -> stored ``evaluated_at`` text, for those of ``numbers`` that exist."""
    marks = ", ".join("?" * len(numbers))
    rows = conn.execute(
        f"SELECT number, evaluated_at FROM rounds WHERE number IN ({marks})", numbers
    ).fetchall()
    return {int(n): at for n, at in rows}
