"""``Neues Passwort: ADDRESS`` / ``Reset password: ADDRESS`` in the game
master's mail (RULES.md §9, §13): that manager gets a new password, mailed
to his address only (the old one stops working), as ``turnited manager
reset-password`` gives it (``bot.service.console.reset_password``). The
game master's reply does not carry the password."""

from __future__ import annotations

from dataclasses import dataclass

from bot.errors import N_
from bot.mail.vocabulary import KeywordCommand, Value
from bot.rules.requests import Request
from bot.service.commands._gm import ERROR_CODES, answer
from bot.service.commands.base import Access, Audience, Command, Session
from bot.service.commands.new_address import parse_address
from bot.service.console import reset_password

GM_PASSWORD_RESET = "gm_password_reset"


@dataclass(frozen=True, slots=True)
class GmResetPassword(Request):
    address: str


def gm_reset_password(s: Session, request: GmResetPassword) -> None:
    answer(s, request, GM_PASSWORD_RESET, lambda: reset_password(s.ctx, request.address))


COMMANDS = (
    Command(
        GmResetPassword, gm_reset_password, Access.GM, audience=Audience.GM,
        codes={GM_PASSWORD_RESET: N_("The game master gave a manager a new password."),
               **ERROR_CODES},
        keyword=KeywordCommand(
            "gm_reset_password", {"de": ("neues passwort", "passwort zurücksetzen"),
                                  "en": ("reset password", "new password")},
            Value.REQUIRED, lambda line, value: GmResetPassword(line, parse_address(value)),
            example=N_("Reset password: anna@example.org"),
            missing=N_("no address after the keyword")),
    ),
)
