"""What the use cases share: the database, the league, the game's settings
(with the deadline plan: the game master's use cases reopen, move and list
deadlines), the clock and the one render cache (``Environments``, one per
process).

The composition root builds it (``bot.wiring.service_context``); the
settings type lives in ``bot.service.settings``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from bot.service.settings import GameSettings

if TYPE_CHECKING:  # types only: a use case's module imports what it calls
    from bot.league.service import League
    from bot.render.environment import Environments
    from bot.storage.db import Database


@dataclass(frozen=True, slots=True)
class Context:
    db: Database
    league: League
    settings: GameSettings
    clock: Callable[[], datetime]
    environments: Environments


__all__ = ["Context", "GameSettings"]
