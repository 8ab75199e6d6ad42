"""The game master's use cases about one manager (RULES.md §9, §13): ban,
unban, and a new password mailed to that address only.

The league does the state change (``League.ban``, ``unban``,
``reset_password``); this module adds the mail (through ``queue_mail``, in
the same transaction) and returns what happened as a typed value that the
console prints and a mail reply can say.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.mail.compose import MailKind
from bot.render.environment import Environments
from bot.render.formatting import LANGUAGES
from bot.render.model import RenderedMail
from bot.render.password import render_password_mail
from bot.service.context import Context
from bot.service.outgoing import queue_mail

if TYPE_CHECKING:
    from bot.render.words import Words


@dataclass(frozen=True, slots=True)
class BanResult:
    #: The manager's stored address.
    address: str
    #: Banned after the command; whether it changed anything.
    banned: bool
    changed: bool

    def lines(self, w: Words) -> list[str]:
        if self.banned and self.changed:
            return [w._("%(address)s is banned: his mails get no reply and change nothing, his "
                        "teams sit out, he gets no newsletter and no reminder; his WP stay.",
                        address=self.address)]
        if self.banned:
            return [w._("%(address)s was banned already; nothing changed.",
                        address=self.address)]
        if self.changed:
            return [w._("The ban of %(address)s is lifted: his mails are handled again, his "
                        "teams play again.", address=self.address)]
        return [w._("%(address)s was not banned; nothing changed.", address=self.address)]


@dataclass(frozen=True, slots=True)
class PasswordReset:
    address: str
    #: The outbox row of the mail that carries the new password.
    outbox_row: int

    def lines(self, w: Words) -> list[str]:
        return [w._("New password for %(address)s made; the old one no longer works. The "
                    "mail with the password waits in the outbox (no. %(row)s) and goes to "
                    "%(address)s only.", address=self.address, row=self.outbox_row)]


def ban(ctx: Context, address: str) -> BanResult:
    """Ban the manager at ``address``: his mails get no reply and change
    nothing, his teams sit out, he gets no newsletter and no reminder; his WP
    stay. Banning a banned manager changes nothing."""
    manager, before = ctx.league.ban(address, ctx.clock())
    return BanResult(manager.address, True, not before)


def unban(ctx: Context, address: str) -> BanResult:
    """Lift the ban of the manager at ``address`` (nothing changes if there is none)."""
    manager, before = ctx.league.unban(address)
    return BanResult(manager.address, False, before)


def password_mail(
    password: str, *, language: str, name: str | None, game_name: str, game_address: str,
    environments: Environments | None = None,
) -> RenderedMail:
    """The mail that carries a new password the game master gave (German or
    English; another language falls back to German)."""
    return render_password_mail(
        "given", language=language if language in LANGUAGES else "de", name=name,
        password=password, game_name=game_name, game_address=game_address, env=environments)


def reset_password(ctx: Context, address: str) -> PasswordReset:
    """Give the manager at ``address`` a new password (the old one stops
    working) and queue the mail that tells it, to that address only, in one
    transaction."""
    s = ctx.settings
    now = ctx.clock()
    with ctx.db.transaction() as conn:
        manager, password = ctx.league.reset_password(conn, address)
        rendered = password_mail(
            password, language=manager.language or s.newsletter_language,
            name=manager.display_name, game_name=s.game_name, game_address=s.game_address,
            environments=ctx.environments,
        )
        # One key per new hash: every reset is its own mail.
        row = queue_mail(
            conn, sender=s.sender, kind=MailKind.NOTICE, to=manager.address,
            to_name=manager.display_name, rendered=rendered,
            key=f"password/{manager.id}/{now.isoformat()}", now=now,
        )
    return PasswordReset(manager.address, row)


__all__ = ["BanResult", "PasswordReset", "ban", "password_mail", "reset_password", "unban"]
