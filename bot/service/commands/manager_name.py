"""``Manager: NAME``: the manager's display name (greetings, tables)."""

from __future__ import annotations

from dataclasses import dataclass

from bot.errors import N_
from bot.league import moves
from bot.mail.vocabulary import KeywordCommand, Value
from bot.rules.requests import Request
from bot.service.commands.base import Access, Command, Session


@dataclass(frozen=True, slots=True)
class SetManagerName(Request):
    name: str


def set_manager_name(s: Session, request: SetManagerName) -> None:
    moves.set_manager_name(s, request.name)


COMMANDS = (
    Command(
        SetManagerName, set_manager_name, Access.MANAGER, registers=True,
        keyword=KeywordCommand(
            "manager", {None: ("manager",)}, Value.REQUIRED,
            lambda line, value: SetManagerName(line, value),
            example=N_("Manager: John Smith"), missing=N_("no manager name after the keyword"),
        ),
    ),
)
