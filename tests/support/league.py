"""The one league fixture: a real SQLite file with round 1 open."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.league.service import League, LeagueSettings
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
