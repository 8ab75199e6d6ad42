"""The settings types of the use cases: what they are told about the game.

They are filled by the composition root (``bot.wiring``) from the
configuration; the use cases never read the configuration themselves (an
import contract in ``pyproject.toml``). A value the configuration gives has
no default here: its default is written once, in ``bot.config``. Only what
no configuration key sets (``max_transaction_seconds``) has its default here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from bot.schedule import DeadlinePlan


@dataclass(frozen=True, slots=True)
class Sender:
    """The From of the bot's mail."""

    address: str
    name: str


@dataclass(frozen=True, slots=True)
class GameSettings:
    """What every use case reads about the game (``Context.settings``)."""

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
    #: The planned deadlines (the archive's calendar lists the next ones; the
    #: game master's use cases reopen, move and list deadlines by it).
    deadline_plan: DeadlinePlan
    #: The reminders' hours before a deadline (``reminders.hours_before``).
    reminder_hours: tuple[int, ...]
    extra_recipients: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class GmAccess:
    """Who is the game master by mail (RULES.md §13; ``bot.service.commands.gm_access``):
    his address in the league's spelling, and the SHA-256 of his GM password
    (compared in constant time; the password itself is kept nowhere)."""

    address: str
    secret: bytes = field(repr=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class IngestSettings:
    """What the inbound use case (``bot.service.inbound.Ingestor``) needs: the
    bot's addresses, the spool, the game's words and the limits on a mail
    (``mail.limits``: RULES.md §9, the rate limit counts only mails without a
    valid password)."""

    bot_address: str
    spool_dir: Path
    #: The display name of the bot's From.
    from_name: str
    #: The bot's other addresses (its From); its mail is never answered.
    own_addresses: frozenset[str]
    timezone: str
    game_name: str
    language: str
    max_text_bytes: int
    max_command_lines: int
    max_mails_per_hour: int
    #: A larger mail is read header only and answered "too large".
    max_mail_bytes: int
    #: Reading one mail may take this long (enforced in a child process).
    handling_seconds: float
    #: Failed attempts before a mail is quarantined.
    max_attempts: int
    #: The receiving server's authserv-id (sender trust), None: off.
    authserv_id: str | None
    #: The game master by mail (``gm.address`` and ``gm.password_env``); None:
    #: no GM password is configured, so no mail is a game master's.
    gm: GmAccess | None
    #: A batch's transaction is committed (and a new one begun) once it has
    #: held the write lock this long, so other writers never wait for minutes.
    max_transaction_seconds: float = 5.0

    @property
    def all_own_addresses(self) -> frozenset[str]:
        return frozenset({self.bot_address.lower(), *(a.lower() for a in self.own_addresses)})


__all__ = ["GameSettings", "GmAccess", "IngestSettings"]
