"""The one league fixture: a real SQLite file with round 1 open."""

from __future__ import annotations

import random
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bot.league.outcome import MoveOutcome
from bot.league.service import League, LeagueSettings
from bot.rules.requests import ParsedMoves
from bot.service.commands.runner import carry_out
from bot.storage import open_database

#: When round 1 opens, and its deadline, unless a suite asks for others.
START = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)
FIRST_DEADLINE = START + timedelta(days=7)
#: Cheap password hashes and no Monte Carlo unless a test asks for them.
FAST = LeagueSettings(password_cost=2, simulations=0)


def make_league(
    tmp_path: Path,
    settings: LeagueSettings = FAST,
    seed: int = 0,
    *,
    start: datetime = START,
    deadline: datetime = FIRST_DEADLINE,
    durable: bool = True,
) -> League:
    """A fresh league in ``tmp_path/state``: round 1 opened at ``start`` with
    ``deadline``; ``seed`` seeds the lots."""
    db = open_database(tmp_path / "state", durable=durable)
    league = League(db, settings, lot=random.Random(seed))
    league.ensure_first_round(start, deadline)
    return league


def submit(
    league: League, conn: sqlite3.Connection, *, sender: str, sender_name: str | None,
    moves: ParsedMoves, now: datetime, **extra: Any,
) -> MoveOutcome:
    """One mail's requests carried out by the command runner, as the ingest
    does (without the service context: for the lineup language's requests)."""
    return carry_out(conn, league.settings, sender=sender, sender_name=sender_name,
                     moves=moves, now=now, lot=league.lot, **extra)
