"""The ``rounds`` table: one row per round, at most one open; and
``round_seeds``, the seed committed for each round when it opened
(RULES.md §4, auditable lots)."""

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
    #: The seed: committed when the round opened (None for a round of old
    #: state opened without one, until its evaluation draws it).
    seed: int | None
    evaluated_at: datetime | None
    #: How often this round's evaluation was rolled back (the next one corrects it).
    corrects: int = 0

    @property
    def is_open(self) -> bool:
        return self.state == "open"


def _round(row: sqlite3.Row) -> RoundRow:
    return RoundRow(
        row["number"], row["season"], row["round_in_season"],
        time_from_db(row["deadline"]), row["state"], row["seed"],  # type: ignore[arg-type]
        time_from_db(row["evaluated_at"]), int(row["corrects"] or 0),
    )


def open_round(conn: sqlite3.Connection) -> RoundRow | None:
    row = conn.execute("SELECT * FROM rounds WHERE state = 'open'").fetchone()
    return _round(row) if row else None


def round_by_number(conn: sqlite3.Connection, number: int) -> RoundRow | None:
    row = conn.execute("SELECT * FROM rounds WHERE number = ?", (number,)).fetchone()
    return _round(row) if row else None


def insert_round(
    conn: sqlite3.Connection, *, number: int, season: int, round_in_season: int,
    deadline: datetime, now: datetime, seed: int | None = None,
) -> None:
    """Open round ``number`` (with its committed ``seed``, see ``commit_seed``)."""
    conn.execute(
        "INSERT INTO rounds (number, season, round_in_season, deadline, state, opened_at, seed)"
        " VALUES (?, ?, ?, ?, 'open', ?, ?)",
        (number, season, round_in_season, time_to_db(deadline), time_to_db(now), seed),
    )


def commit_seed(conn: sqlite3.Connection, number: int, seed: int, now: datetime) -> int:
    """The seed committed for round ``number``: the one stored already (a round
    opened again after a rollback keeps its published commitment), else ``seed``,
    stored now."""
    conn.execute(
        "INSERT OR IGNORE INTO round_seeds (round, seed, committed_at) VALUES (?, ?, ?)",
        (number, seed, time_to_db(now)),
    )
    return int(conn.execute(
        "SELECT seed FROM round_seeds WHERE round = ?", (number,)
    ).fetchone()[0])


def committed_seed(conn: sqlite3.Connection, number: int) -> int | None:
    """The seed committed for round ``number`` before any lineup could arrive
    (None: the round was opened by a version without commitments)."""
    row = conn.execute("SELECT seed FROM round_seeds WHERE round = ?", (number,)).fetchone()
    return int(row[0]) if row else None


def reopen_round(conn: sqlite3.Connection, number: int) -> None:
    """Open the evaluated round ``number`` again (its seed stays), counting the
    correction its next evaluation makes."""
    conn.execute(
        "UPDATE rounds SET state = 'open', evaluated_at = NULL, corrects = corrects + 1"
        " WHERE number = ? AND state = 'evaluated'",
        (number,),
    )


def delete_open_round(conn: sqlite3.Connection, number: int) -> None:
    """Remove the open round ``number`` (its moves and committed seed stay)."""
    conn.execute("DELETE FROM rounds WHERE number = ? AND state = 'open'", (number,))


def last_evaluated(conn: sqlite3.Connection) -> RoundRow | None:
    row = conn.execute(
        "SELECT * FROM rounds WHERE state = 'evaluated' ORDER BY number DESC LIMIT 1"
    ).fetchone()
    return _round(row) if row else None


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
