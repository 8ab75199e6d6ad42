"""What the use cases share: the database, the league, the game's settings,
the clock and the one render cache (``Environments``, one per process).

The composition root builds it (``bot.wiring.service_context``); the
settings type lives in ``bot.service.settings``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from bot.league.service import League
from bot.render.environment import Environments
from bot.service.settings import GameSettings
from bot.storage.db import Database


@dataclass(frozen=True, slots=True)
class Context:
    db: Database
    league: League
    settings: GameSettings
    clock: Callable[[], datetime]
    environments: Environments


__all__ = ["Context", "GameSettings"]
