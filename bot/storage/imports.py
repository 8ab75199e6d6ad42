"""The tables of a league taken over from another program (RULES.md §14):
``league_import`` (the one import: season and round it continued at, the
file, when) and ``imported_teams`` (each imported team's WP and PSZ as
imported and the round it last played there).

The standings read the imported values as the team's state *after the round
before the first one played here* (``first_round - 1``): a team that has
not played here yet is listed by its ``last_round`` (the 3-round rule,
RULES.md §8) and shows its imported WP and PSZ, exactly as if the bot had
played all along.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from bot.storage.values import dec_from_db, dec_to_db, time_from_db, time_to_db


@dataclass(frozen=True, slots=True)
class LeagueImport:
    """Where a taken-over league's history here begins."""

    season: int
    round_in_season: int
    #: The overall number of the first round played by this bot.
    first_round: int
    teams: int
    managers: int
    source: str
    sha256: str
    imported_at: datetime


@dataclass(frozen=True, slots=True)
class ImportedTeam:
    team_id: int
    wp: Decimal
    psz: Decimal
    #: The overall round the team last played (``first_round - 1`` when unknown).
    last_round: int
    last_round_known: bool


def is_empty(conn: sqlite3.Connection) -> bool:
    """True when the league has no manager, no team, no move and no
    evaluated round (an open round nobody has sent anything for may exist)."""
    row = conn.execute(
        "SELECT (SELECT COUNT(*) FROM managers) + (SELECT COUNT(*) FROM teams)"
        " + (SELECT COUNT(*) FROM moves)"
        " + (SELECT COUNT(*) FROM rounds WHERE state = 'evaluated')"
    ).fetchone()
    return int(row[0]) == 0


def remove_empty_open_round(conn: sqlite3.Connection) -> int | None:
    """Remove the open round of an empty league (no moves can exist for it);
    its committed seed stays, as every commitment does. Returns its number."""
    row = conn.execute("SELECT number FROM rounds WHERE state = 'open'").fetchone()
    if row is None:
        return None
    conn.execute("DELETE FROM rounds WHERE number = ? AND state = 'open'", (row[0],))
    return int(row[0])


def insert_import(conn: sqlite3.Connection, record: LeagueImport) -> None:
    conn.execute(
        "INSERT INTO league_import (id, season, round_in_season, first_round, teams, managers,"
        " source, sha256, imported_at) VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?)",
        (record.season, record.round_in_season, record.first_round, record.teams,
         record.managers, record.source, record.sha256, time_to_db(record.imported_at)),
    )


def league_import(conn: sqlite3.Connection) -> LeagueImport | None:
    """The league's import, None for a league that started here."""
    row = conn.execute("SELECT * FROM league_import WHERE id = 1").fetchone()
    if row is None:
        return None
    return LeagueImport(
        row["season"], row["round_in_season"], row["first_round"], row["teams"],
        row["managers"], row["source"], row["sha256"],
        time_from_db(row["imported_at"]),  # type: ignore[arg-type]
    )


def insert_imported_team(conn: sqlite3.Connection, team: ImportedTeam) -> None:
    conn.execute(
        "INSERT INTO imported_teams (team_id, wp, psz, last_round, last_round_known)"
        " VALUES (?, ?, ?, ?, ?)",
        (team.team_id, dec_to_db(team.wp), dec_to_db(team.psz), team.last_round,
         int(team.last_round_known)),
    )


def imported_teams(conn: sqlite3.Connection) -> dict[int, ImportedTeam]:
    """Team id -> its imported state."""
    rows = conn.execute("SELECT * FROM imported_teams ORDER BY team_id")
    return {r["team_id"]: ImportedTeam(r["team_id"], dec_from_db(r["wp"]), dec_from_db(r["psz"]),
                                       r["last_round"], bool(r["last_round_known"]))
            for r in rows}


def imported_value(
    conn: sqlite3.Connection, team_id: int, round_number: int, column: str
) -> Decimal | None:
    """A team's imported ``wp`` or ``psz`` as its value after ``round_number``
    (None: not imported, or ``round_number`` lies before the import's history)."""
    if column not in ("wp", "psz"):
        raise ValueError(f"imported value {column!r}: expected 'wp' or 'psz'")
    row = conn.execute(
        f"SELECT i.{column} FROM imported_teams i JOIN league_import l ON l.id = 1"
        " WHERE i.team_id = ? AND l.first_round - 1 <= ?",
        (team_id, round_number),
    ).fetchone()
    return dec_from_db(row[0]) if row else None
