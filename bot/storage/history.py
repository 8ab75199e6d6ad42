"""Read-only history for the personal newsletter block and the archive site:
each team's rounds (WP, PSZ, record, place and stage reached), the
season-end ageing, who owns which team, and the evaluated rounds with their
dates, seeds, winners and field sizes. No player lineup and no stored
report is ever read here: what the archive lists of a round are columns
(``bot.storage.results``)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from bot.storage.imports import imported_value
from bot.storage.values import dec_from_db, time_from_db


@dataclass(frozen=True, slots=True)
class TeamRound:
    """What one team did in one round it played (``round_entries``), with
    the WP it had after the round's gain (before any ageing)."""

    round: int
    team_id: int
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

    @property
    def wp_after_gain(self) -> Decimal:
        return self.wp_before + self.wp_gain


@dataclass(frozen=True, slots=True)
class Ageing:
    """A team's season-end ageing (``wp_history`` kind ``ageing``)."""

    team_id: int
    round: int
    before: Decimal
    after: Decimal


@dataclass(frozen=True, slots=True)
class TeamInfo:
    """A team as the archive names it (never its lineups)."""

    team_id: int
    name: str
    short_name: str
    manager_id: int
    registered_round: int
    deleted_round: int | None


@dataclass(frozen=True, slots=True)
class EvaluatedRound:
    number: int
    season: int
    round_in_season: int
    deadline: datetime
    evaluated_at: datetime | None
    seed: int | None
    #: The champion (None without a tournament or a stored result), the
    #: number of teams that played and of the players' teams among them.
    winner: str | None
    teams: int
    players: int


_ENTRY = ("round, team_id, wp_before, wp_gain, psz_before, psz_after, won, drawn, lost,"
          " place, reached, last_stage")


def entries_of_round(conn: sqlite3.Connection, round_number: int) -> dict[int, TeamRound]:
    """Team id -> what it did in ``round_number`` (teams that played)."""
    rows = conn.execute(
        f"SELECT {_ENTRY} FROM round_entries WHERE round = ? ORDER BY team_id",
        (round_number,),
    )
    return {r["team_id"]: _entry(r) for r in rows}


def all_entries(conn: sqlite3.Connection) -> list[TeamRound]:
    """Every team's every round, by team then round."""
    rows = conn.execute(
        f"SELECT {_ENTRY} FROM round_entries ORDER BY team_id, round"
    )
    return [_entry(r) for r in rows]


def _entry(r: sqlite3.Row) -> TeamRound:
    return TeamRound(
        r["round"], r["team_id"], dec_from_db(r["wp_before"]), dec_from_db(r["wp_gain"]),
        dec_from_db(r["psz_before"]), dec_from_db(r["psz_after"]),
        r["won"], r["drawn"], r["lost"], r["place"], r["reached"], r["last_stage"],
    )


def ageing_of_round(conn: sqlite3.Connection, round_number: int) -> dict[int, Ageing]:
    """Team id -> its ageing at the end of ``round_number`` (empty unless the
    round closed a season)."""
    return {a.team_id: a for a in _ageing(conn, "WHERE round = ?", (round_number,))}


def ageing_by_name(conn: sqlite3.Connection, round_number: int) -> dict[str, Decimal]:
    """Team name -> its WP before the ageing at the end of ``round_number``."""
    rows = conn.execute(
        "SELECT t.name, h.wp_before FROM wp_history h JOIN teams t ON t.id = h.team_id"
        " WHERE h.round = ? AND h.kind = 'ageing' ORDER BY t.id",
        (round_number,),
    )
    return {r["name"]: dec_from_db(r["wp_before"]) for r in rows}


def all_ageing(conn: sqlite3.Connection) -> list[Ageing]:
    return _ageing(conn, "", ())


def _ageing(conn: sqlite3.Connection, where: str, args: tuple) -> list[Ageing]:
    rows = conn.execute(
        "SELECT team_id, round, wp_before, wp_after FROM wp_history"
        f" {where}{' AND' if where else 'WHERE'} kind = 'ageing' ORDER BY team_id, round",
        args,
    )
    return [Ageing(r["team_id"], r["round"], dec_from_db(r["wp_before"]),
                   dec_from_db(r["wp_after"])) for r in rows]


def wp_just_before(conn: sqlite3.Connection, team_id: int, round_number: int) -> Decimal | None:
    """A team's WP when ``round_number`` started (after the previous rounds'
    gains and ageing; else its imported WP); None if it had no WP change before."""
    row = conn.execute(
        "SELECT wp_after FROM wp_history WHERE team_id = ? AND round < ?"
        " ORDER BY round DESC, kind = 'ageing' DESC LIMIT 1",
        (team_id, round_number),
    ).fetchone()
    return dec_from_db(row[0]) if row else imported_value(conn, team_id, round_number - 1, "wp")


def psz_just_before(conn: sqlite3.Connection, team_id: int, round_number: int) -> Decimal | None:
    row = conn.execute(
        "SELECT psz_after FROM round_entries WHERE team_id = ? AND round < ?"
        " ORDER BY round DESC LIMIT 1",
        (team_id, round_number),
    ).fetchone()
    return (dec_from_db(row[0]) if row
            else imported_value(conn, team_id, round_number - 1, "psz"))


def teams(conn: sqlite3.Connection) -> list[TeamInfo]:
    """Every team ever registered that played at least once, oldest first."""
    rows = conn.execute(
        "SELECT id, name, short_name, manager_id, registered_round, deleted_round FROM teams t"
        " WHERE EXISTS (SELECT 1 FROM round_entries e WHERE e.team_id = t.id) ORDER BY id"
    )
    return [TeamInfo(r["id"], r["name"], r["short_name"], r["manager_id"],
                     r["registered_round"], r["deleted_round"]) for r in rows]


def teams_of_managers(conn: sqlite3.Connection, round_number: int) -> dict[int, list[TeamInfo]]:
    """Manager id -> the teams they owned at ``round_number`` (registered by
    it, not deleted before it), oldest first."""
    rows = conn.execute(
        "SELECT id, name, short_name, manager_id, registered_round, deleted_round FROM teams"
        " WHERE registered_round <= :r AND (deleted_round IS NULL OR deleted_round >= :r)"
        " ORDER BY manager_id, id",
        {"r": round_number},
    )
    out: dict[int, list[TeamInfo]] = {}
    for r in rows:
        out.setdefault(r["manager_id"], []).append(
            TeamInfo(r["id"], r["name"], r["short_name"], r["manager_id"],
                     r["registered_round"], r["deleted_round"]))
    return out


def evaluated_rounds(conn: sqlite3.Connection) -> list[EvaluatedRound]:
    """Every evaluated round, oldest first."""
    rows = conn.execute(
        "SELECT number, season, round_in_season, deadline, evaluated_at, seed,"
        " s.winner, s.teams, s.players FROM rounds LEFT JOIN round_results s ON s.round = number"
        " WHERE state = 'evaluated' ORDER BY number"
    )
    return [EvaluatedRound(r["number"], r["season"], r["round_in_season"],
                           time_from_db(r["deadline"]),  # type: ignore[arg-type]
                           time_from_db(r["evaluated_at"]), r["seed"],
                           r["winner"], r["teams"] or 0, r["players"] or 0) for r in rows]


def last_round_of_season(conn: sqlite3.Connection, round_number: int) -> bool:
    """Whether ``round_number`` closed its season (an ageing was recorded at it)."""
    row = conn.execute(
        "SELECT 1 FROM wp_history WHERE round = ? AND kind = 'ageing' LIMIT 1", (round_number,)
    ).fetchone()
    return row is not None
