"""``Fehlend`` / ``Missing`` in the game master's mail (RULES.md §13): the
open round's teams without a lineup, as ``turnited missing`` says it
(``bot.service.roster.missing``)."""

from __future__ import annotations

from dataclasses import dataclass

from bot.errors import N_
from bot.mail.vocabulary import KeywordCommand, Value
from bot.rules.requests import Request
from bot.service.commands.base import Access, Audience, Command, Session
from bot.service.roster import missing

GM_MISSING = "gm_missing"


@dataclass(frozen=True, slots=True)
class GmMissing(Request):
    pass


def gm_missing(s: Session, request: GmMissing) -> None:
    s.note(GM_MISSING, report=missing(s.ctx))


COMMANDS = (
    Command(
        GmMissing, gm_missing, Access.GM, audience=Audience.GM,
        codes={GM_MISSING: N_("The game master asked who is missing.")},
        keyword=KeywordCommand("gm_missing", {"de": ("fehlend", "fehlende"),
                                              "en": ("missing",)},
                               Value.NONE, lambda line, value: GmMissing(line)),
    ),
)
