"""A lost password by mail (RULES.md §9): ``Passwort vergessen`` / ``Forgot password``.

From a registered address the league gives the manager a new password (the
old one stops working, ``League.reset_password``) and the answer carries it
— to the registered address only, never to a Reply-To. At most once a day:
a second request within 24 hours changes nothing and says so. From an
address nobody registered: a polite answer, nothing changes.

The texts are here in German and English; each starts with the bot's reply
marker, like every reply, so the bot knows its own text when it comes back.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.league.moves import normalize_address
from bot.league.service import League
from bot.mail.quotes import BOT_REPLY_MARKER
from bot.render.model import RenderedMail
from bot.render.reply import reply_subject
from bot.storage import ledger, managers
from bot.storage.ledger import Outcome

#: One new password per manager and this long.
RESET_INTERVAL = timedelta(days=1)

_TEXTS = {
    "de": {
        "reset": (
            "Hallo {name},\n\n"
            "du hast ein neues Passwort erbeten. Dein altes Passwort gilt nicht mehr.\n"
            "Schreibe ab jetzt in jede Mail an {address} die Zeile\n\n"
            "    Passwort: {password}\n\n"
            "Wenn du kein neues Passwort erbeten hast, antworte der Spielleitung.\n"
        ),
        "too_soon": (
            "Hallo {name},\n\n"
            "dir wurde heute schon ein neues Passwort geschickt; schau bitte in deinem\n"
            "Postfach (auch im Spam-Ordner) nach der Mail. Ein weiteres neues Passwort\n"
            "gibt es frühestens morgen. Es wurde nichts geändert.\n"
        ),
        "unknown": (
            "Hallo,\n\n"
            "unter der Adresse {sender} ist kein Manager eingetragen, daher gibt es\n"
            "kein Passwort, das vergessen werden könnte. Ein neues Passwort wird nur an\n"
            "die Adresse geschickt, mit der ein Team angemeldet ist. Es wurde nichts\n"
            "geändert.\n"
        ),
        "signature": "\n-- \n{game} – die Spielleitung (automatische Antwort)\n",
    },
    "en": {
        "reset": (
            "Hello {name},\n\n"
            "you asked for a new password. Your old password no longer works.\n"
            "From now on, put this line into every mail to {address}:\n\n"
            "    Password: {password}\n\n"
            "If you did not ask for a new password, tell the game master.\n"
        ),
        "too_soon": (
            "Hello {name},\n\n"
            "a new password was mailed to you today already; please look for that mail\n"
            "in your mailbox (and the spam folder). The next new password can be had\n"
            "tomorrow at the earliest. Nothing was changed.\n"
        ),
        "unknown": (
            "Hello,\n\n"
            "no manager is registered with the address {sender}, so there is no password\n"
            "to forget. A new password is only mailed to the address a team was\n"
            "registered with. Nothing was changed.\n"
        ),
        "signature": "\n-- \n{game} - the game master (automatic reply)\n",
    },
}


@dataclass(frozen=True, slots=True)
class ForgotAnswer:
    """What to answer: the mail, the one address it goes to, the ledger line."""

    rendered: RenderedMail
    to: str
    to_name: str | None
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
    language = language if language in _TEXTS else "de"
    if manager is None:
        return ForgotAnswer(
            _mail("unknown", language, subject, fields), sender, None,
            f"{Outcome.REJECTED}: forgot password from an unregistered address; "
            "nothing changed",
        )
    fields["name"] = manager.display_name or ("Manager" if language == "de" else "manager")
    recent = ledger.recent_human_outcomes(
        conn, manager.address, since=now - RESET_INTERVAL, other_than=inbound_id
    )
    if any(outcome.startswith(Outcome.PASSWORD_RESET) for outcome in recent):
        return ForgotAnswer(
            _mail("too_soon", language, subject, fields), manager.address,
            manager.display_name,
            f"{Outcome.REJECTED}: forgot password again within a day; nothing changed",
        )
    manager, password = league.reset_password(conn, manager.address)
    fields["password"] = password
    return ForgotAnswer(
        _mail("reset", language, subject, fields), manager.address, manager.display_name,
        f"{Outcome.PASSWORD_RESET}: a new password was mailed to {manager.address}",
    )


def _mail(kind: str, language: str, subject: str, fields: dict[str, str]) -> RenderedMail:
    texts = _TEXTS[language]
    body = texts[kind].format(**fields) + texts["signature"].format(**fields)
    return RenderedMail(reply_subject(subject, language), f"{BOT_REPLY_MARKER}\n\n{body}", None,
                        language)


__all__ = ["RESET_INTERVAL", "ForgotAnswer", "forgot_password"]
