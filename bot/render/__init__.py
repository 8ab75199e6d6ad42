"""Rendering of everything the bot publishes or mails: the results newsletter,
reminders, the game master's digest and the public archive.

Templates live in ``templates/<language>/`` (German default, English) and
``templates/shared/``; ``make_environment`` builds a Jinja environment per
language. Public renderers accept only the public report (no player lineup).
"""

from bot.render.environment import make_environment
from bot.render.errors import (
    InvalidReportError,
    InvalidTimeError,
    LineupLeakError,
    RenderError,
    UnknownLanguageError,
)
from bot.render.model import PszRow, RenderedMail, RoundInfo, WpRow
from bot.render.newsletter import render_newsletter
from bot.render.public import ensure_public

__all__ = [
    "InvalidReportError",
    "InvalidTimeError",
    "LineupLeakError",
    "PszRow",
    "RenderError",
    "RenderedMail",
    "RoundInfo",
    "UnknownLanguageError",
    "WpRow",
    "ensure_public",
    "make_environment",
    "render_newsletter",
]
