"""The loaded configuration as the settings of the use cases (``bot.service``):
each value is read from ``Config`` here, in one place, so the App only wires."""

from __future__ import annotations

from email.utils import parseaddr
from typing import TYPE_CHECKING

from bot.config.load import Config
from bot.service.context import GameSettings
from bot.service.outgoing import Sender

if TYPE_CHECKING:  # the inbound pipeline is imported by what ingests mail only
    from bot.service.inbound import IngestSettings


def sender_of(config: Config) -> Sender:
    """The From of the bot's mail (``mail.from``, else the game's name and address)."""
    name, address = parseaddr(config.mail.from_header)
    return Sender(address or config.mail.address, name or config.game.name)


def game_settings(config: Config) -> GameSettings:
    """What every use case is handed about the game."""
    return GameSettings(
        game_name=config.game.name, game_address=config.mail.address,
        language=config.game.language, newsletter_language=config.newsletter.language,
        timezone=config.schedule.timezone, sender=sender_of(config),
        gm_address=config.gm.address, gm_name=config.gm.name,
        archive_dir=config.state_dir / "archive",
        extra_recipients=tuple(config.newsletter.extra_recipients),
    )


def ingest_settings(config: Config) -> IngestSettings:
    """What the inbound use case needs: the bot's addresses, the spool, the limits."""
    from bot.service.inbound import IngestSettings

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
    )


__all__ = ["game_settings", "ingest_settings", "sender_of"]
