"""The composition root's one mapping: the configuration onto each layer's
settings types.

``bot.config`` reads and checks the YAML and knows nothing of the layers
above it; the use cases (``bot.service``) never read the configuration.
Here, and only here, a ``Config`` becomes what each of them is handed: the
league's ``LeagueSettings``, the use cases' ``GameSettings`` (in their
``Context``) and ``IngestSettings``, and the bot's ``Sender``. The App
(``bot.app``) and the commands that work without one (the CLI's console
commands) build them through these functions, so each value is derived in
one place.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import datetime
from email.utils import parseaddr

from bot.config import Config
from bot.league.moves import normalize_address
from bot.league.service import League
from bot.league.settings import LeagueSettings
from bot.render.environment import Environments
from bot.schedule import DeadlinePlan
from bot.service.commands import registry
from bot.service.context import Context
from bot.service.outgoing import Sender
from bot.service.settings import GameSettings, GmAccess, IngestSettings
from bot.storage.db import Database


def sender_of(config: Config) -> Sender:
    """The From of the bot's mail: ``mail.from`` (whose default is the game's
    name and the bot's address), its address else ``mail.address``, its
    name else ``game.name``."""
    name, address = parseaddr(config.mail.from_header)
    return Sender(address or config.mail.address, name or config.game.name)


def league_settings(config: Config) -> LeagueSettings:
    """The league's rules values (``game``, ``psz``, ``analysis``, ``auth``)."""
    game = config.game
    return LeagueSettings(
        initial_wp=game.initial_wp,
        initial_psz=config.psz.initial,
        season_rounds=game.season_rounds,
        points=(game.points.win, game.points.draw, game.points.loss),
        passwords=config.auth.passwords,
        simulations=config.analysis.simulations,
        psz_bound=config.psz.bound,
    )


def game_settings(config: Config) -> GameSettings:
    """What every use case is handed about the game (``Context.settings``)."""
    return GameSettings(
        game_name=config.game.name, game_address=config.mail.address,
        language=config.game.language, newsletter_language=config.newsletter.language,
        timezone=config.schedule.timezone, sender=sender_of(config),
        gm_address=config.gm.address, gm_name=config.gm.name,
        archive_dir=config.state_dir / "archive",
        extra_recipients=tuple(config.newsletter.extra_recipients),
        deadline_plan=DeadlinePlan(config.schedule),
        reminder_hours=tuple(config.reminders.hours_before),
    )


def ingest_settings(config: Config) -> IngestSettings:
    """What the inbound use case needs: the bot's addresses, the spool, the
    game's words and ``mail.limits``/``mail.trust``."""
    sender, limits = sender_of(config), config.mail.limits
    return IngestSettings(
        bot_address=config.mail.address, spool_dir=config.state_dir / "spool",
        from_name=sender.name, own_addresses=frozenset({sender.address.lower()}),
        timezone=config.schedule.timezone, game_name=config.game.name,
        language=config.game.language, max_text_bytes=limits.max_text_bytes,
        max_command_lines=limits.max_command_lines,
        max_mails_per_hour=limits.max_mails_per_hour,
        max_mail_bytes=limits.max_mail_bytes, handling_seconds=limits.handling_seconds,
        max_attempts=limits.max_attempts, authserv_id=config.mail.trust.authserv_id,
        gm=gm_access(config),
    )


def gm_access(config: Config) -> GmAccess | None:
    """The game master by mail (RULES.md §13): ``gm.address`` in the league's
    spelling and the digest of the GM password read now from ``gm.password_env``;
    None when no usable GM password is configured."""
    password = config.gm.password()
    if password is None:
        return None
    return GmAccess(normalize_address(config.gm.address),
                    hashlib.sha256(password.encode("utf-8")).digest())


def service_context(config: Config, db: Database, *, clock: Callable[[], datetime],
                    league: League | None = None,
                    environments: Environments | None = None) -> Context:
    """The use cases' ``Context`` over an open database: the App's, or a
    command's that runs one use case without the mail transports. ``league``
    defaults to one with the configuration's rules values."""
    return Context(db, league or League(db, league_settings(config)), game_settings(config),
                   clock, environments or render_cache(config))


def render_cache(config: Config) -> Environments:
    """The renderer's cache for the game: the archive's address, and what the
    digest says of each command's notice codes and of each reason a mail is
    refused as the game master's (imported here: ``status`` loads no mail
    pipeline)."""
    from bot.service.commands.gm_access import REFUSALS

    return Environments(archive_url=config.archive.url,
                        code_sentences={**registry().digest_sentences(), **REFUSALS})


__all__ = ["game_settings", "gm_access", "ingest_settings", "league_settings", "render_cache",
           "sender_of", "service_context"]
