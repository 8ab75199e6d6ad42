"""``Passwort vergessen`` / ``Forgot password`` (RULES.md §9).

From a registered address the manager gets a new password (the old one
stops working, ``League.reset_password``) in the reply, which goes to the
registered address only, never to a Reply-To. At most once a day: a second
request within 24 hours changes nothing and says so. From an address nobody
registered: a polite answer, nothing changes. The mail is about the lost
password alone: nothing else in it is carried out.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from bot.errors import N_
from bot.mail.vocabulary import KeywordCommand, Value
from bot.rules.requests import Request
from bot.service.commands.base import Access, Command, Session
from bot.storage import ledger
from bot.storage.ledger import Outcome

#: One new password per manager and this long.
RESET_INTERVAL = timedelta(days=1)

PASSWORD_RESET = "password_reset"
PASSWORD_TOO_SOON = "password_too_soon"
FORGOT_UNKNOWN = "forgot_unknown"


@dataclass(frozen=True, slots=True)
class ForgotPassword(Request):
    pass


def forgot_password(s: Session, request: ForgotPassword) -> None:
    if s.manager is None:
        s.note(FORGOT_UNKNOWN, address=s.address)
        s.ledger = (Outcome.REJECTED,
                    "forgot password from an unregistered address; nothing changed")
        return
    manager = s.manager
    s.reply_to, s.reply_to_name = manager.address, manager.display_name
    if ledger.password_reset_since(s.conn, manager.address, since=s.now - RESET_INTERVAL,
                                   other_than=s.inbound_id or 0):
        s.note(PASSWORD_TOO_SOON)
        s.ledger = (Outcome.REJECTED, "forgot password again within a day; nothing changed")
        return
    manager, password = s.ctx.league.reset_password(s.conn, manager.address)
    s.note(PASSWORD_RESET, password=password)
    s.ledger = (Outcome.PASSWORD_RESET, f"a new password was mailed to {manager.address}")


COMMANDS = (
    Command(
        ForgotPassword, forgot_password, Access.ANYONE, alone=True,
        codes={PASSWORD_RESET: N_("New password mailed."),
               PASSWORD_TOO_SOON: N_("Asked for a new password again within a day."),
               FORGOT_UNKNOWN: N_("Asked for a new password, but is no manager.")},
        keyword=KeywordCommand(
            "forgot",
            {"de": ("passwort vergessen", "kennwort vergessen"),
             "en": ("forgot password", "forgot my password", "forgotten password",
                    "password forgotten", "lost password", "lost my password")},
            Value.OPTIONAL, lambda line, value: ForgotPassword(line),
        ),
    ),
)
