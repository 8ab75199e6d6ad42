"""``Zurücknehmen: Runde N`` / ``Rollback: round N`` in the game master's mail
(RULES.md §9, §13), in two steps (``_gm.ask``): the first mail gets what the
rollback would do (``bot.service.rollback.rollback_plan``) and a code; only
a second one with ``Bestätigen: CODE`` takes the evaluation of round N back,
as ``turnited rollback`` does (``bot.service.rollback.rollback``): the round
is open again until a deadline that is not in the past (``... bis 20.12.2026
20:00`` / ``... until 2026-12-20 20:00``, else the next planned one), and
every manager of the round is told that its results are withdrawn. N must
be the last evaluated round, when the code comes back too."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from bot.errors import N_, TurnitedError
from bot.league.confirmations import Confirmation
from bot.mail.vocabulary import KeywordCommand, Value
from bot.rules.requests import Request
from bot.service.commands._gm import ERROR_CODES, ask, moment, refused, two_step
from bot.service.commands.base import Access, Audience, Command, Session

#: The purpose of a waiting rollback (``confirmations``).
ROLLBACK = "gm_rollback"
GM_ROLLBACK_CODE = "gm_rollback_code"
GM_ROLLBACK = "gm_rollback"

#: ``Runde 12``, ``round 12 until 2026-12-20 20:00``, ``12 bis 20.12.2026 20:00``.
VALUE = re.compile(r"(?:runde|round)?\s*(?P<round>\d{1,6})\s*"
                   r"(?:(?:bis|until|to|,|;)\s*(?P<when>\S.*))?", re.IGNORECASE)
WHICH = N_("name the round to take back, e.g. 'Rollback: round 12', with a new deadline "
           "'Rollback: round 12 until 2026-12-20 20:00'")


@dataclass(frozen=True, slots=True)
class GmRollback(Request):
    round: int
    #: The reopened round's deadline as written; None: the next planned one.
    when: str | None = None


def read(line: str, value: str) -> GmRollback:
    found = VALUE.fullmatch(value.strip().rstrip("."))
    if found is None:
        raise ValueError(WHICH)
    return GmRollback(line, int(found.group("round")), found.group("when"))


def gm_rollback(s: Session, request: GmRollback) -> None:
    from bot.service.rollback import rollback_plan  # the archive's site: only when asked

    try:
        deadline = moment(s, request.when) if request.when else None
        plan = rollback_plan(s.ctx, request.round, deadline)
    except TurnitedError as error:
        refused(s, request, error)
        return
    ask(s, ROLLBACK, GM_ROLLBACK_CODE, plan=plan,
        payload={"round": plan.round, "deadline": deadline.isoformat() if deadline else None})


@two_step(ROLLBACK)
def carry_out_rollback(s: Session, confirmed: Confirmation, request: Request) -> None:
    from bot.service.rollback import rollback

    given = confirmed.payload.get("deadline")
    try:
        report = rollback(s.ctx, int(confirmed.payload["round"]),
                          datetime.fromisoformat(given) if given else None)
    except TurnitedError as error:  # another round evaluated, the deadline passed since
        refused(s, request, error)
        return
    s.target, s.deadline = report.undone.round, report.undone.deadline  # the reply's last line
    s.note(GM_ROLLBACK, report=report)


COMMANDS = (
    Command(
        GmRollback, gm_rollback, Access.GM, audience=Audience.GM,
        codes={GM_ROLLBACK_CODE: N_("The game master asked to roll back a round; code mailed "
                                    "to him."),
               GM_ROLLBACK: N_("The game master rolled back a round."), **ERROR_CODES},
        keyword=KeywordCommand(
            "gm_rollback", {"de": ("zurücknehmen", "zuruecknehmen"), "en": ("rollback",)},
            Value.REQUIRED, read, example=N_("Rollback: round 12"),
            missing=N_("no round after the keyword")),
    ),
)
