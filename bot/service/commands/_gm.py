"""What the game master's commands share (RULES.md §13): the notice of a
command its use case refused, reading a date as the console does, and the
two steps of a destructive command.

Each game master's command calls the very use case of ``bot.service`` the
console calls, and notes its typed result; the reply says it in the game
master's language (the result's ``lines``, through the templates' ``said``
filter). A use case that refuses (a ``TurnitedError`` with its ``words``) is
an error of the command's line: the mail changes nothing.

**Two steps** (``Sperren``, ``Zurücknehmen``, ``Daten löschen: ADDRESS``):
the first mail only ``ask``s: a code of ``bot.league.confirmations`` (the one
mechanism of the players' ``Neue Adresse`` and ``Daten löschen``) that a mail
from ``gm.address`` must bring back, in the reply to ``gm.address`` with what
would be done; nothing changes. A command declares what its code carries out
with ``@two_step(PURPOSE)``; ``gm_confirm`` (``Bestätigen: CODE`` in his
mail) redeems the code and calls it. A wrong, expired, used or replaced code
changes nothing. **Decision**: the game master's codes hold ``VALID_FOR``
(a day, not a player's seven): what a rollback would do goes stale fast.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from bot.errors import N_, TurnitedError
from bot.league import confirmations
from bot.league.confirmations import Confirmation
from bot.league.service import UnknownManager
from bot.rules.requests import Request
from bot.schedule import parse_local_datetime
from bot.service.commands.base import Session
from bot.storage import managers as manager_rows
from bot.storage.managers import ManagerRow

#: A game master's command its use case refused: params line, error.
GM_ERROR = "gm_error"
#: The digest's sentence of it, for every command that may note it.
ERROR_CODES = {GM_ERROR: N_("A game master's command could not be carried out.")}


def refused(s: Session, request: Request, error: TurnitedError) -> None:
    """``request`` is an error of its line, saying ``error``'s words."""
    s.fail(GM_ERROR, line=request.line, error=error)


def registered(s: Session, request: Request, address: str) -> ManagerRow | None:
    """The manager registered under ``address``; None, and an error of
    ``request``'s line, when nobody is."""
    manager = manager_rows.manager_by_address(s.conn, address)
    if manager is None:
        refused(s, request, UnknownManager(address))
    return manager


def answer(s: Session, request: Request, code: str, use_case: Callable[[], object]) -> None:
    """Run the console's ``use_case`` for ``request``: its result as the notice
    ``code`` (param ``result``), or its refusal as an error of the line."""
    try:
        result = use_case()
    except TurnitedError as error:
        refused(s, request, error)
        return
    s.note(code, result=result)


def moment(s: Session, text: str) -> datetime:
    """A date and time as the game master writes it (``20.12.2026 20:00`` or
    ``2026-12-20 20:00``) in the game's time zone; ``DateTimeError`` if not."""
    return parse_local_datetime(text, ZoneInfo(s.ctx.settings.timezone))


#: How long a game master's confirmation code holds (module doc).
VALID_FOR = timedelta(days=1)

#: What a confirmed code carries out, by purpose: the confirming mail's
#: session, the confirmation (its ``payload``), and the ``Bestätigen`` request.
CarryOut = Callable[[Session, Confirmation, Request], None]
CONFIRMED: dict[str, CarryOut] = {}


def two_step(purpose: str) -> Callable[[CarryOut], CarryOut]:
    """Declare ``purpose``'s carrying out (the decorated function) for ``gm_confirm``."""
    def declare(carry_out: CarryOut) -> CarryOut:
        if purpose in CONFIRMED and CONFIRMED[purpose] is not carry_out:
            raise ValueError(f"two carry-outs for the confirmation purpose {purpose!r}")
        CONFIRMED[purpose] = carry_out
        return carry_out
    return declare


def ask(s: Session, purpose: str, notice: str, *, manager_id: int | None = None,
        payload: dict[str, Any] | None = None, **params: object) -> None:
    """The first step: a code for ``purpose`` that a mail from this (the game
    master's) address confirms; the reply's ``notice`` says it (params
    ``confirmation``, ``until`` and ``params``). An earlier waiting request
    of the same purpose (and manager) is replaced."""
    issued = confirmations.issue(s.conn, purpose=purpose, confirm_from=s.address,
                                 manager_id=manager_id, now=s.now, payload=payload,
                                 valid_for=VALID_FOR)
    s.note(notice, confirmation=confirmations.shown(issued.code), until=issued.expires_at,
           **params)
