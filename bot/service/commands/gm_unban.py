"""``Entsperren: ADDRESS`` / ``Unban: ADDRESS`` in the game master's mail
(RULES.md §13): the ban of that manager is lifted, as ``turnited manager
unban`` lifts it (``bot.service.console.unban``). (Banning takes two mails:
``gm_ban``.)"""

from __future__ import annotations

from dataclasses import dataclass

from bot.errors import N_
from bot.mail.vocabulary import KeywordCommand, Value
from bot.rules.requests import Request
from bot.service.commands._gm import ERROR_CODES, answer
from bot.service.commands.base import Access, Audience, Command, Session
from bot.service.commands.new_address import parse_address
from bot.service.console import unban

GM_UNBAN = "gm_unban"


@dataclass(frozen=True, slots=True)
class GmUnban(Request):
    address: str


def gm_unban(s: Session, request: GmUnban) -> None:
    answer(s, request, GM_UNBAN, lambda: unban(s.ctx, request.address))


COMMANDS = (
    Command(
        GmUnban, gm_unban, Access.GM, audience=Audience.GM,
        codes={GM_UNBAN: N_("The game master lifted a ban."), **ERROR_CODES},
        keyword=KeywordCommand(
            "gm_unban", {"de": ("entsperren",), "en": ("unban",)}, Value.REQUIRED,
            lambda line, value: GmUnban(line, parse_address(value)),
            example=N_("Unban: anna@example.org"), missing=N_("no address after the keyword")),
    ),
)
