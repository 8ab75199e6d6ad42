"""``Bestätigen: CODE`` / ``Confirm: CODE`` in the game master's mail (RULES.md
§13): the second mail of his destructive commands (``_gm.two_step``).

The code must come back from ``gm.address`` in a mail that passed his
checks; ``bot.league.confirmations`` checks it as a player's (expiry, one
use, constant-time compare, limited attempts) among the game master's
purposes only (a player's code confirms nothing here, his nothing in a
player's mail). A code that confirms nothing is an error of the mail that
says why, with the players' notices (``code_wrong``, ...): nothing changes.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.errors import N_
from bot.league import confirmations
from bot.league.confirmations import Confirmation
from bot.mail.vocabulary import KeywordCommand, Value
from bot.rules.requests import Request
from bot.service.commands import confirm
from bot.service.commands._gm import CONFIRMED
from bot.service.commands.base import Access, Audience, Command, Session


@dataclass(frozen=True, slots=True)
class GmConfirm(Request):
    """Carry out the game master's request that waits for ``code``."""

    code: str


def gm_confirm(s: Session, request: GmConfirm) -> None:
    result = confirmations.redeem(s.conn, confirm_from=s.address, code=request.code,
                                  now=s.now, purposes=tuple(sorted(CONFIRMED)))
    if isinstance(result, Confirmation):
        CONFIRMED[result.purpose](s, result, request)
        return
    s.fail(result.reason.code, line=request.line, attempts_left=result.attempts_left,
           expired_at=result.expired_at, max_wrong=confirmations.MAX_WRONG)


COMMANDS = (
    Command(
        GmConfirm, gm_confirm, Access.GM, audience=Audience.GM,
        codes=confirm.COMMANDS[0].codes,  # the players' refusals, said alike
        keyword=KeywordCommand(
            "gm_confirm", {"de": ("bestätigen", "bestaetigen"), "en": ("confirm",)},
            Value.REQUIRED, lambda line, value: GmConfirm(line, confirm.read_code(value)),
            example=N_("Confirm: K7FX-2QMP"), missing=N_("no code after the keyword")),
    ),
)
