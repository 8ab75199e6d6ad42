"""``Erinnern`` / ``Remind`` in the game master's mail (RULES.md §13): a
reminder now to every manager whose team has no lineup for the open round,
as ``turnited remind --missing`` sends it (``bot.service.remind``)."""

from __future__ import annotations

from dataclasses import dataclass

from bot.errors import N_
from bot.mail.vocabulary import KeywordCommand, Value
from bot.rules.requests import Request
from bot.service.commands.base import Access, Audience, Command, Session
from bot.service.remind import remind_missing

GM_REMIND = "gm_remind"


@dataclass(frozen=True, slots=True)
class GmRemind(Request):
    pass


def gm_remind(s: Session, request: GmRemind) -> None:
    s.note(GM_REMIND, report=remind_missing(s.ctx))


COMMANDS = (
    Command(
        GmRemind, gm_remind, Access.GM, audience=Audience.GM,
        codes={GM_REMIND: N_("The game master reminded those missing.")},
        keyword=KeywordCommand("gm_remind", {"de": ("erinnern",), "en": ("remind",)},
                               Value.NONE, lambda line, value: GmRemind(line)),
    ),
)
