"""A round's evaluation as stored: ``round_results`` (inputs, report, public
report as canonical JSON, and the round's summary the archive lists: winner
and field size), ``round_entries`` (one row per team that played, with its
place and the stage it reached) and ``wp_history`` (every WP change: a
round's gain, a season's ageing).

The summary columns are facts of the report kept beside it, so the archive
never parses a stored report; the migration that added them filled them in
from the stored public reports.

The storage encoding of ``round_results`` (issue 22; the JSON layouts are
``bot.rules.report``'s and the league's, untouched): each JSON text is kept
zlib-compressed (a BLOB; a TEXT value, as schema versions before 11 wrote,
is the JSON itself), and the public report is not kept twice: when it is
exactly the report without the player teams' lineups, which is what
``RoundReport.public()`` makes of it, ``public_report`` is NULL and that
text is derived again on reading, byte for byte the text that was given.
A public report of any other shape is kept as given. So every reader gets
the very texts the evaluation stored, and ``replay`` compares with them.
"""

from __future__ import annotations

import json
import sqlite3
import zlib
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from bot.storage.values import dec_from_db, dec_to_db, time_to_db


@dataclass(frozen=True, slots=True)
class EntryRow:
    """What one team played in a round and what it got (``round_entries``)."""

    round: int
    team_id: int
    move_id: int | None
    lineup: str
    played: str
    budget: int
    corrections: str  # canonical JSON list
    wp_before: Decimal
    wp_gain: Decimal
    psz_before: Decimal
    psz_after: Decimal
    won: int
    drawn: int
    lost: int
    #: 1..4 on the podium or fourth, else None; the stage reached ('final',
    #: 'third_place', 'semi_final', 'group'); the last group stage played.
    place: int | None
    reached: str
    last_stage: int


@dataclass(frozen=True, slots=True)
class RoundSummary:
    """What the archive lists of a round: its champion (None without a
    tournament), how many teams played, and how many of them were players'."""

    winner: str | None
    teams: int
    players: int


def insert_entry(conn: sqlite3.Connection, entry: EntryRow) -> None:
    conn.execute(
        "INSERT INTO round_entries (round, team_id, move_id, lineup, played, budget,"
        " corrections, wp_before, wp_gain, psz_before, psz_after, won, drawn, lost,"
        " place, reached, last_stage)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (entry.round, entry.team_id, entry.move_id, entry.lineup, entry.played, entry.budget,
         entry.corrections, dec_to_db(entry.wp_before), dec_to_db(entry.wp_gain),
         dec_to_db(entry.psz_before), dec_to_db(entry.psz_after),
         entry.won, entry.drawn, entry.lost, entry.place, entry.reached, entry.last_stage),
    )


def insert_wp_change(
    conn: sqlite3.Connection, team_id: int, round_number: int, kind: str,
    before: Decimal, after: Decimal,
) -> None:
    """One WP change (``kind`` 'gain' or 'ageing') in ``wp_history``."""
    conn.execute(
        "INSERT INTO wp_history (team_id, round, kind, wp_before, wp_after)"
        " VALUES (?, ?, ?, ?, ?)",
        (team_id, round_number, kind, dec_to_db(before), dec_to_db(after)),
    )


#: zlib's best compression: a report of 64 teams, ~115 KB of JSON, keeps ~23 KB.
LEVEL = 9


def encode(text: str) -> bytes:
    """A JSON text as stored (zlib-compressed UTF-8)."""
    return zlib.compress(text.encode("utf-8"), LEVEL)


def decode(value: str | bytes) -> str:
    """The JSON text of a stored value (a TEXT value is the text itself)."""
    if isinstance(value, str):
        return value
    return zlib.decompress(value).decode("utf-8")


def _canonical(data: Any) -> str:
    """The canonical JSON text the league stores (sorted keys, no spaces)."""
    return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def without_player_lineups(report: str) -> str:
    """The canonical text of a report's JSON without the player teams'
    ``lineup`` (GM teams keep theirs)."""
    data = json.loads(report)
    teams = data.get("teams") if isinstance(data, dict) else None
    if isinstance(teams, list):
        data["teams"] = [
            {k: v for k, v in team.items() if k != "lineup"}
            if isinstance(team, dict) and not team.get("gm") else team
            for team in teams
        ]
    return _canonical(data)


def public_encoding(report: str, public_report: str) -> bytes | None:
    """How ``public_report`` is stored beside ``report``: None when it is the
    report without the player lineups (derived on reading), else encoded."""
    return None if public_report == without_player_lineups(report) else encode(public_report)


def insert_result(
    conn: sqlite3.Connection, round_number: int, *, inputs: str, report: str,
    public_report: str, now: datetime, summary: RoundSummary,
) -> None:
    """Store a round's inputs, report and public report (canonical JSON texts;
    the module docstring says how) and its summary."""
    conn.execute(
        "INSERT INTO round_results (round, inputs, report, public_report, created_at,"
        " winner, teams, players) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (round_number, encode(inputs), encode(report), public_encoding(report, public_report),
         time_to_db(now), summary.winner, summary.teams, summary.players),
    )


def round_summary(conn: sqlite3.Connection, round_number: int) -> RoundSummary | None:
    """The stored summary of an evaluated round (None: not evaluated)."""
    row = conn.execute(
        "SELECT winner, teams, players FROM round_results WHERE round = ?", (round_number,)
    ).fetchone()
    return RoundSummary(row["winner"], row["teams"], row["players"]) if row else None


def stored_inputs_and_report(conn: sqlite3.Connection, round_number: int) -> tuple[str, str] | None:
    """The stored inputs and full report (JSON texts) of an evaluated round."""
    row = conn.execute(
        "SELECT inputs, report FROM round_results WHERE round = ?", (round_number,)
    ).fetchone()
    return (decode(row[0]), decode(row[1])) if row else None


def stored_report(conn: sqlite3.Connection, round_number: int, *, public: bool) -> str | None:
    """The stored public (or full) report of an evaluated round, as JSON text."""
    row = conn.execute(
        "SELECT report, public_report FROM round_results WHERE round = ?", (round_number,)
    ).fetchone()
    if row is None:
        return None
    report, public_report = row
    if not public:
        return decode(report)
    if public_report is not None:
        return decode(public_report)
    return without_player_lineups(decode(report))


def evaluated_rounds(conn: sqlite3.Connection) -> list[int]:
    """Numbers of the rounds with a stored result, ascending."""
    return [int(r[0]) for r in conn.execute("SELECT round FROM round_results ORDER BY round")]


@dataclass(frozen=True, slots=True)
class UndoRow:
    """What a round's evaluation changed for one team, to undo it."""

    team_id: int
    #: WP before the round's gain (or before its ageing, for a team that did not play).
    wp_before: Decimal
    #: PSZ before the round (None: the team did not play in it).
    psz_before: Decimal | None
    #: The round the team played before this one (None: never).
    played_before: int | None


def undo_rows(conn: sqlite3.Connection, round_number: int) -> list[UndoRow]:
    """Every team whose WP or PSZ the evaluation of ``round_number`` changed."""
    rows = conn.execute(
        """
        SELECT h.team_id,
               (SELECT wp_before FROM wp_history f WHERE f.team_id = h.team_id
                  AND f.round = :r ORDER BY f.kind = 'ageing' LIMIT 1) AS wp_before,
               e.psz_before,
               (SELECT MAX(p.round) FROM round_entries p
                 WHERE p.team_id = h.team_id AND p.round < :r) AS played_before
        FROM (SELECT DISTINCT team_id FROM wp_history WHERE round = :r) h
        LEFT JOIN round_entries e ON e.team_id = h.team_id AND e.round = :r
        ORDER BY h.team_id
        """,
        {"r": round_number},
    )
    return [UndoRow(int(r["team_id"]), dec_from_db(r["wp_before"]),
                    dec_from_db(r["psz_before"]) if r["psz_before"] is not None else None,
                    r["played_before"]) for r in rows]


def delete_evaluation(conn: sqlite3.Connection, round_number: int) -> None:
    """Remove the stored result, entries and WP history of ``round_number``."""
    for table, column in (("wp_history", "round"), ("round_entries", "round"),
                          ("round_results", "round")):
        conn.execute(f"DELETE FROM {table} WHERE {column} = ?", (round_number,))


def has_ageing(conn: sqlite3.Connection, round_number: int) -> bool:
    """Whether the teams aged at the evaluation of ``round_number``."""
    return conn.execute(
        "SELECT 1 FROM wp_history WHERE round = ? AND kind = 'ageing' LIMIT 1", (round_number,)
    ).fetchone() is not None
