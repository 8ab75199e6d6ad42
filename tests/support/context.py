"""The use cases' ``Context`` over a test league: real database, a fake clock,
the settings mapped from a configuration by the composition root."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from bot.config import Config
from bot.league.service import League
from bot.render.environment import Environments
from bot.service.context import Context
from bot.wiring import render_cache, service_context

BOT = "bot@turnited.example"
GM = "gm@turnited.example"


def make_context(
    league: League, clock: Callable[[], datetime], root: Path, *, bot_address: str = BOT,
    game_name: str = "Turnited", language: str = "de", timezone: str = "Europe/Berlin",
    environments: Environments | None = None, cron: str | None = None,
    deadlines: list[str] | None = None,
) -> Context:
    """The context a use case of ``league`` is handed: a game at ``root``
    with the bot at ``bot_address``, the game master at ``GM`` and the
    deadlines of ``cron`` or the list ``deadlines`` (the configuration's
    default when neither is given)."""
    schedule: dict[str, object] = {"timezone": timezone}
    if cron is not None:
        schedule["deadlines"] = {"cron": cron}
    elif deadlines is not None:
        schedule["deadlines"] = deadlines
    config = Config.from_mapping({
        "game": {"name": game_name, "language": language},
        "newsletter": {"language": language},
        "mail": {"address": bot_address, "from": f"{game_name} <{bot_address}>"},
        "gm": {"address": GM},
        "schedule": schedule,
    }, root)
    return service_context(config, league.db, clock=clock, league=league,
                           environments=environments or render_cache(config))
