"""The ``previews`` table: every preview the game master ran of an open
round (``evaluate --dry-run``, the mail command ``Vorschau``), so that the
round's digest lists them (RULES.md §13)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime

from bot.storage.values import time_from_db, time_to_db

#: Where a preview was asked for (``via``).
CONSOLE, MAIL = "console", "mail"


@dataclass(frozen=True, slots=True)
class PreviewRow:
    round: int
    at: datetime
    #: Played with a fresh random seed (before the deadline), not the committed one.
    fresh: bool
    #: Where it was asked for: ``console`` or ``mail``.
    via: str


def record(conn: sqlite3.Connection, round_number: int, at: datetime, *, fresh: bool,
           via: str) -> None:
    conn.execute("INSERT INTO previews (round, at, fresh, via) VALUES (?, ?, ?, ?)",
                 (round_number, time_to_db(at), int(fresh), via))


def of_round(conn: sqlite3.Connection, round_number: int) -> list[PreviewRow]:
    """The previews of round ``round_number``, oldest first."""
    found = []
    for number, at, fresh, via in conn.execute(
            "SELECT round, at, fresh, via FROM previews WHERE round = ? ORDER BY id",
            (round_number,)):
        moment = time_from_db(at)
        assert moment is not None  # the column is NOT NULL
        found.append(PreviewRow(int(number), moment, bool(fresh), str(via)))
    return found
