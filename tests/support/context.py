"""The use cases' ``Context`` over a test league: real database, a fake clock."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from bot.league.service import League
from bot.render.environment import Environments
from bot.service.context import Context, GameSettings
from bot.service.outgoing import Sender

BOT = "bot@turnited.example"
GM = "gm@turnited.example"


def make_context(
    league: League, clock: Callable[[], datetime], root: Path, *, bot_address: str = BOT,
    game_name: str = "Turnited", language: str = "de", timezone: str = "Europe/Berlin",
    environments: Environments | None = None,
    planned_deadline: Callable[[datetime], datetime | None] | None = None,
) -> Context:
    """The context a use case of ``league`` is handed (module doc)."""
    settings = GameSettings(
        game_name=game_name, game_address=bot_address, language=language,
        newsletter_language=language, timezone=timezone,
        sender=Sender(bot_address, game_name), gm_address=GM, gm_name=None,
        archive_dir=root / "state" / "archive",
    )
    return Context(league.db, league, settings, clock,
                   environments or Environments(gm_address=GM), planned_deadline)
