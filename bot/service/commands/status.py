"""``Status``: where the manager's teams stand for the round his mail counts for."""

from __future__ import annotations

from dataclasses import dataclass

from bot.league.outcome import Code
from bot.mail.vocabulary import KeywordCommand, Value
from bot.rules.requests import Request
from bot.service.commands.base import Access, Command, Session


@dataclass(frozen=True, slots=True)
class AskStatus(Request):
    pass


def ask_status(s: Session, request: AskStatus) -> None:
    """The round and its deadline (the reply lists the teams' states); a
    stranger learns how to register."""
    if s.manager is None:
        s.note(Code.NOT_REGISTERED, address=s.address)
        return
    s.note(Code.STATUS, season=s.season, round=s.target, round_in_season=s.round_in_season,
           deadline=s.deadline)


COMMANDS = (
    Command(
        AskStatus, ask_status, Access.MANAGER,
        keyword=KeywordCommand("status", {None: ("status",)}, Value.OPTIONAL,
                               lambda line, value: AskStatus(line)),
    ),
)
