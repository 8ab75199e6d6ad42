"""What the use cases share: the database, the league, the game's settings,
the clock and the one render cache (``Environments``, one per process)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from bot.league.service import League
from bot.render.environment import Environments
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
    #: The schedule's first deadline after a moment (``DeadlinePlan.next_deadline``),
    #: for a round not opened yet (a late mail's reply names it); None: unknown.
    planned_deadline: Callable[[datetime], datetime | None] | None = None

    def deadline_after(self, moment: datetime) -> datetime | None:
        """The planned deadline after ``moment``, None when the plan has none."""
        return self.planned_deadline(moment) if self.planned_deadline is not None else None
