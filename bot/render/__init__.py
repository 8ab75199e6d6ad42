"""Rendering of everything the bot publishes or mails: the results newsletter,
reminders, the game master's digest and the public archive.

Each mail has one template in ``templates/mail/`` for German (the default)
and English, the layout it shares in ``templates/shared/``; the words are in
the message catalogs (``bot.render.i18n``, docs/i18n.md). ``Environments`` is
the render cache (one Jinja
environment per language; the use-case layer holds one and passes it as
``env=``). Public renderers accept only the public report
(``RoundReport.public()``, no player lineup). The WP and PSZ rows are the
league's (``bot.league.tables``).

This package module only re-exports; the modules of ``bot.render`` import
each other directly, never through it.
"""

from bot.league.tables import PszRow, WpRow
from bot.render.archive import write_archive, write_index
from bot.render.digest import render_digest
from bot.render.environment import Environments, make_environment
from bot.render.errors import (
    InvalidReportError,
    InvalidTimeError,
    LineupLeakError,
    RenderError,
    UnknownLanguageError,
)
from bot.render.model import ReminderTeam, RenderedMail, RoundInfo
from bot.render.newsletter import render_newsletter
from bot.render.public import ensure_public, public_round
from bot.render.reminder import render_reminder
from bot.render.reply import render_problem, render_reply

__all__ = [
    "Environments",
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
    "public_round",
    "render_digest",
    "render_newsletter",
    "render_problem",
    "render_reminder",
    "render_reply",
    "write_archive",
    "write_index",
]
