"""``Hilfe`` / ``Help`` in the game master's mail (RULES.md §13): his
commands (``templates/shared/commands.j2``, ``gm_commands``). A mail of his
without any command, or with a line he could not write, gets it too
(``gm_access``)."""

from __future__ import annotations

from dataclasses import dataclass

from bot.errors import N_
from bot.mail.vocabulary import KeywordCommand, Value
from bot.rules.requests import Request
from bot.service.commands.base import Access, Audience, Command, Session

GM_HELP = "gm_help"


@dataclass(frozen=True, slots=True)
class GmHelp(Request):
    pass


def gm_help(s: Session, request: GmHelp) -> None:
    s.note(GM_HELP)


COMMANDS = (
    Command(
        GmHelp, gm_help, Access.GM, audience=Audience.GM,
        codes={GM_HELP: N_("The game master asked for his help.")},
        keyword=KeywordCommand("gm_help", {"de": ("hilfe",), "en": ("help",)}, Value.OPTIONAL,
                               lambda line, value: GmHelp(line)),
    ),
)
