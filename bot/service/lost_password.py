"""A lost password by mail (RULES.md §9): ``Passwort vergessen`` / ``Forgot password``.

From a registered address the league gives the manager a new password (the
old one stops working, ``League.reset_password``) and the answer carries it
— to the registered address only, never to a Reply-To. At most once a day:
a second request within 24 hours changes nothing and says so. From an
address nobody registered: a polite answer, nothing changes.

The answers are rendered by ``bot.render.password`` (one template, German
and English); each starts with the bot's reply marker, like every reply, so
the bot knows its own text when it comes back.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.league.moves import normalize_address
from bot.league.service import League
from bot.render.formatting import LANGUAGES
from bot.render.model import RenderedMail
from bot.render.password import PasswordMail, render_password_mail
from bot.storage import ledger, managers
from bot.storage.ledger import Outcome

#: One new password per manager and this long.
RESET_INTERVAL = timedelta(days=1)

@dataclass(frozen=True, slots=True)
class ForgotAnswer:
    """What to answer: the mail, the one address it goes to, the ledger's
    code and line."""

    rendered: RenderedMail
    to: str
    to_name: str | None
    code: Outcome
    summary: str


def forgot_password(
    conn: sqlite3.Connection,
    league: League,
    *,
    sender: str,
    subject: str,
    language: str | None,
    default_language: str,
    game_name: str,
    game_address: str,
    now: datetime,
    inbound_id: int,
) -> ForgotAnswer:
    """Answer one ``Passwort vergessen`` mail inside ``conn``'s transaction, in
    the mail's ``language`` (None: it did not show one), else the manager's,
    else ``default_language``."""
    address = normalize_address(sender)
    manager = managers.manager_by_address(conn, address)
    fields = {"game": game_name, "address": game_address, "sender": sender}
    known = manager.language if manager is not None else None
    language = language or known or default_language
    language = language if language in LANGUAGES else "de"
    if manager is None:
        return ForgotAnswer(
            _mail("unknown", language, subject, fields), sender, None, Outcome.REJECTED,
            f"{Outcome.REJECTED}: forgot password from an unregistered address; "
            "nothing changed",
        )
    fields["name"] = manager.display_name or ""
    if ledger.password_reset_since(conn, manager.address, since=now - RESET_INTERVAL,
                                   other_than=inbound_id):
        return ForgotAnswer(
            _mail("too_soon", language, subject, fields), manager.address,
            manager.display_name, Outcome.REJECTED,
            f"{Outcome.REJECTED}: forgot password again within a day; nothing changed",
        )
    manager, password = league.reset_password(conn, manager.address)
    fields["password"] = password
    return ForgotAnswer(
        _mail("reset", language, subject, fields), manager.address, manager.display_name,
        Outcome.PASSWORD_RESET,
        f"{Outcome.PASSWORD_RESET}: a new password was mailed to {manager.address}",
    )


def _mail(kind: PasswordMail, language: str, subject: str, fields: dict[str, str]) -> RenderedMail:
    return render_password_mail(
        kind, language=language, game_name=fields["game"], game_address=fields["address"],
        name=fields.get("name"), password=fields.get("password"), sender=fields["sender"],
        subject=subject)


__all__ = ["RESET_INTERVAL", "ForgotAnswer", "forgot_password"]
