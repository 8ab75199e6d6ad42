"""What the use cases share: the database, the league, the game's settings,
the clock, the one render cache (``Environments``, one per process) and the
deadline plan (the game master's use cases reopen, move and list deadlines)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # types only: a use case's module imports what it calls
    from bot.league.service import League
    from bot.render.environment import Environments
    from bot.schedule import DeadlinePlan
    from bot.service.outgoing import Sender
    from bot.storage.db import Database


@dataclass(frozen=True, slots=True)
class GameSettings:
    """The configuration the use cases read (built by ``bot.app``)."""

    game_name: str
    #: The bot's address as players write to it (shown in mails).
    game_address: str
    #: Language of the GM's mail (digest, notices) and of problem replies.
    language: str
    #: Language of the archived newsletter and of recipients whose is unknown.
    newsletter_language: str
    timezone: str
    sender: Sender
    gm_address: str
    gm_name: str | None
    archive_dir: Path
    extra_recipients: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Context:
    db: Database
    league: League
    settings: GameSettings
    clock: Callable[[], datetime]
    environments: Environments
    #: The planned deadlines (``schedule``) and the reminders' hours before one.
    plan: DeadlinePlan
    reminder_hours: tuple[int, ...] = ()
