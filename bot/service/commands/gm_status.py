"""``Status`` in the game master's mail (RULES.md §13): where the league
stands, as ``turnited status`` says it (``bot.service.status``)."""

from __future__ import annotations

from dataclasses import dataclass

from bot.errors import N_
from bot.mail.vocabulary import KeywordCommand, Value
from bot.rules.requests import Request
from bot.service.commands.base import Access, Audience, Command, Session
from bot.service.status import status

GM_STATUS = "gm_status"


@dataclass(frozen=True, slots=True)
class GmStatus(Request):
    pass


def gm_status(s: Session, request: GmStatus) -> None:
    s.note(GM_STATUS, report=status(s.ctx))


COMMANDS = (
    Command(
        GmStatus, gm_status, Access.GM, audience=Audience.GM,
        codes={GM_STATUS: N_("The game master asked for the status.")},
        keyword=KeywordCommand("gm_status", {None: ("status",)}, Value.OPTIONAL,
                               lambda line, value: GmStatus(line)),
    ),
)
