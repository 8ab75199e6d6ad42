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

This package module only re-exports, lazily (each name is imported when it
is first used); the modules of ``bot.render`` import each other directly,
never through it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

#: Where each re-exported name lives. They are imported when first used, so
#: that importing one module of the package (``bot.render.words`` for the
#: console, say) does not load Jinja, numpy and every renderer.
_HOMES = {
    "PszRow": "bot.league.tables", "WpRow": "bot.league.tables",
    "write_archive": "bot.render.archive", "write_index": "bot.render.archive",
    "render_digest": "bot.render.digest",
    "Environments": "bot.render.environment", "make_environment": "bot.render.environment",
    "InvalidReportError": "bot.render.errors", "InvalidTimeError": "bot.render.errors",
    "LineupLeakError": "bot.render.errors", "RenderError": "bot.render.errors",
    "UnknownLanguageError": "bot.render.errors",
    "ReminderTeam": "bot.render.model", "RenderedMail": "bot.render.model",
    "RoundInfo": "bot.render.model",
    "render_newsletter": "bot.render.newsletter",
    "ensure_public": "bot.render.public", "public_round": "bot.render.public",
    "render_reminder": "bot.render.reminder",
    "render_problem": "bot.render.reply", "render_reply": "bot.render.reply",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'bot.render' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value

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
