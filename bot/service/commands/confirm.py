"""``Bestätigen: CODE`` / ``Confirm: CODE``: the second mail of a player's
two-step request (RULES.md §12), carried out here.

The code must come from the address it was mailed to (a new address for
``Neue Adresse``, the registered one for ``Daten löschen``), as every
manager's command with his password when that address has a manager.
``bot.league.confirmations`` checks it (expiry, one use, constant-time
compare, limited attempts); a request it confirms is carried out by the
command that made it (``PURPOSES``). A code that confirms nothing is an
error of the mail that says why (no request waits for this address, wrong
with the attempts left, expired, used, replaced by a newer request,
blocked after too many wrong codes): the mail changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bot.errors import N_
from bot.league import confirmations
from bot.league.confirmations import Confirmation, Refusal
from bot.mail.vocabulary import KeywordCommand, Value
from bot.rules.requests import Request
from bot.service.commands import erase_data, new_address
from bot.service.commands.base import Access, Command, Session

#: Each purpose a player's code may confirm, and who carries it out.
PURPOSES: dict[str, Callable[[Session, Confirmation], None]] = {
    new_address.MOVE: new_address.carry_out_move,
    erase_data.ERASE: erase_data.carry_out_erasure,
}
#: Why a value is no code (the reply shows it in the reader's language).
NOT_A_CODE = N_("not a confirmation code: eight letters and digits as mailed, e.g. K7FX-2QMP")


@dataclass(frozen=True, slots=True)
class Confirm(Request):
    """Carry out the request that waits for ``code`` (letters and digits only)."""

    code: str


def read_code(value: str) -> str:
    if not confirmations.looks_like_code(value):
        raise ValueError(NOT_A_CODE)
    return confirmations.normalize(value)


def confirm(s: Session, request: Confirm) -> None:
    result = confirmations.redeem(s.conn, confirm_from=s.address, code=request.code,
                                  now=s.now, purposes=tuple(PURPOSES))
    if isinstance(result, Confirmation):
        PURPOSES[result.purpose](s, result)
        return
    s.fail(result.reason.code, line=request.line, attempts_left=result.attempts_left,
           expired_at=result.expired_at, max_wrong=confirmations.MAX_WRONG)


COMMANDS = (
    Command(
        Confirm, confirm, Access.MANAGER,
        codes={Refusal.NONE.code: N_("Confirmation code, but nothing waits for one."),
               Refusal.WRONG.code: N_("Wrong confirmation code."),
               Refusal.EXPIRED.code: N_("Expired confirmation code."),
               Refusal.USED.code: N_("Confirmation code used already."),
               Refusal.REPLACED.code: N_("Confirmation code replaced by a newer one."),
               Refusal.BLOCKED.code: N_("Confirmation blocked after too many wrong codes.")},
        keyword=KeywordCommand(
            "confirm", {"de": ("bestätigen", "bestaetigen"), "en": ("confirm",)},
            Value.REQUIRED, lambda line, value: Confirm(line, read_code(value)),
            example=N_("Confirm: K7FX-2QMP"), missing=N_("no code after the keyword"),
        ),
    ),
)
