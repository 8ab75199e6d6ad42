"""``Zurückziehen: NAME`` / ``Withdraw: NAME``: a team sits out the open round
(RULES.md §7); a registration that never played is undone."""

from __future__ import annotations

from dataclasses import dataclass

from bot.errors import N_
from bot.league import moves
from bot.mail.vocabulary import KeywordCommand, Value
from bot.rules.requests import Request
from bot.service.commands.base import Access, Command, Session


@dataclass(frozen=True, slots=True)
class Withdraw(Request):
    """Take ``team`` out of the open round."""

    team: str


def withdraw(s: Session, request: Withdraw) -> None:
    moves.withdraw(s, request.team, request.line)


COMMANDS = (
    Command(
        Withdraw, withdraw, Access.MANAGER, registers=True,
        keyword=KeywordCommand(
            "withdraw", {"de": ("zurückziehen", "zurueckziehen"), "en": ("withdraw",)},
            Value.REQUIRED, lambda line, value: Withdraw(line, value),
            example=N_("Withdraw: Red Devils"),
            missing=N_("no team name after the keyword"),
        ),
    ),
)
