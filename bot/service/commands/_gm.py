"""What the game master's commands share (RULES.md §13): the notice of a
command its use case refused, and reading a date as the console does.

Each game master's command calls the very use case of ``bot.service`` the
console calls, and notes its typed result; the reply says it in the game
master's language (the result's ``lines``, through the templates' ``said``
filter). A use case that refuses (a ``TurnitedError`` with its ``words``) is
an error of the command's line: the mail changes nothing.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from bot.errors import N_, TurnitedError
from bot.rules.requests import Request
from bot.schedule import parse_local_datetime
from bot.service.commands.base import Session

#: A game master's command its use case refused: params line, error.
GM_ERROR = "gm_error"
#: The digest's sentence of it, for every command that may note it.
ERROR_CODES = {GM_ERROR: N_("A game master's command could not be carried out.")}


def refused(s: Session, request: Request, error: TurnitedError) -> None:
    """``request`` is an error of its line, saying ``error``'s words."""
    s.fail(GM_ERROR, line=request.line, error=error)


def moment(s: Session, text: str) -> datetime:
    """A date and time as the game master writes it (``20.12.2026 20:00`` or
    ``2026-12-20 20:00``) in the game's time zone; ``DateTimeError`` if not."""
    return parse_local_datetime(text, ZoneInfo(s.ctx.settings.timezone))
