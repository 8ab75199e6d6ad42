"""``Einsendeschluss`` / ``Deadline`` in the game master's mail (RULES.md
§13): alone, the open round's deadline and the next planned ones (``turnited
deadline show``); with a date (``20.12.2026 20:00`` or ``2026-12-20 20:00``,
in the game's time zone), the open round's deadline moved there (``turnited
deadline set``), both through ``bot.service.deadlines``."""

from __future__ import annotations

from dataclasses import dataclass

from bot.errors import N_, TurnitedError
from bot.mail.vocabulary import KeywordCommand, Value
from bot.rules.requests import Request
from bot.service.commands._gm import ERROR_CODES, moment, refused
from bot.service.commands.base import Access, Audience, Command, Session
from bot.service.deadlines import deadline_report, set_deadline

GM_DEADLINE = "gm_deadline"
GM_DEADLINE_SET = "gm_deadline_set"


@dataclass(frozen=True, slots=True)
class GmDeadline(Request):
    """The new deadline as written; None: show it."""

    when: str | None


def gm_deadline(s: Session, request: GmDeadline) -> None:
    if request.when is None:
        s.note(GM_DEADLINE, report=deadline_report(s.ctx))
        return
    try:
        result = set_deadline(s.ctx, moment(s, request.when))
    except TurnitedError as error:
        refused(s, request, error)
        return
    if result.round == s.target:
        s.deadline = result.deadline  # the reply's last line tells the new one
    s.note(GM_DEADLINE_SET, result=result)


COMMANDS = (
    Command(
        GmDeadline, gm_deadline, Access.GM, audience=Audience.GM,
        codes={GM_DEADLINE: N_("The game master asked for the deadlines."),
               GM_DEADLINE_SET: N_("The game master moved the deadline."), **ERROR_CODES},
        keyword=KeywordCommand(
            "gm_deadline", {"de": ("einsendeschluss", "einsendeschluß"), "en": ("deadline",)},
            Value.OPTIONAL, lambda line, value: GmDeadline(line, value or None)),
    ),
)
