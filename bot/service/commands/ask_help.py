"""``Hilfe`` / ``Help`` (and ``?``): the reply carries the help; no password
is needed (RULES.md §11)."""

from __future__ import annotations

from dataclasses import dataclass

from bot.league.outcome import Code
from bot.mail.vocabulary import KeywordCommand, Value
from bot.rules.requests import Request
from bot.service.commands.base import Access, Command, Session


@dataclass(frozen=True, slots=True)
class AskHelp(Request):
    pass


def ask_help(s: Session, request: AskHelp) -> None:
    s.note(Code.HELP)


COMMANDS = (
    Command(
        AskHelp, ask_help, Access.ANYONE,
        keyword=KeywordCommand("help", {"de": ("hilfe",), "en": ("help",), None: ("?",)},
                               Value.OPTIONAL,
                               lambda line, value: AskHelp(line)),
    ),
)
