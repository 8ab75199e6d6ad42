"""Rendering of everything the bot publishes or mails: the results newsletter,
reminders, the game master's digest and the public archive.

Templates live in ``templates/<language>/`` (German default, English) and
``templates/shared/``; ``make_environment`` builds a Jinja environment per
language. Public renderers accept only the public report (no player lineup).
"""

from bot.render.archive import write_archive, write_index
from bot.render.digest import render_digest
from bot.render.environment import make_environment
from bot.render.errors import (
    InvalidReportError,
    InvalidTimeError,
    LineupLeakError,
    RenderError,
    UnknownLanguageError,
)
from bot.render.model import PszRow, ReminderTeam, RenderedMail, RoundInfo, WpRow
from bot.render.newsletter import render_newsletter
from bot.render.public import ensure_public
from bot.render.reminder import render_reminder

__all__ = [
    "InvalidReportError",
    "InvalidTimeError",
    "LineupLeakError",
    "PszRow",
    "ReminderTeam",
    "RenderError",
    "RenderedMail",
    "RoundInfo",
    "UnknownLanguageError",
    "WpRow",
    "ensure_public",
    "make_environment",
    "render_digest",
    "render_newsletter",
    "render_reminder",
    "write_archive",
    "write_index",
]
