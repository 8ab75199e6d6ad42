"""The game master's preview of the open round (``evaluate --dry-run``; the
mail command ``Vorschau``): the round evaluated on a copy of the state, its
newsletter rendered; the state itself does not change.

A fair preview (RULES.md §13): **before the deadline it never plays with the
round's committed seed** but with a fresh random one, and says so in its first
line, so nobody, the game master with a team of his own included, can try
lineups against the lots that will decide the round. After the deadline it
plays the committed seed: then it equals the evaluation (unless a late
lineup still comes). Every preview is recorded (``bot.storage.previews``)
and listed in the round's digest (``bot.render.notices.preview_lines``).
"""

from __future__ import annotations

import dataclasses
import secrets
import tempfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from bot.league.service import League
from bot.render.model import RenderedMail
from bot.render.notices import render_preview
from bot.service.context import Context
from bot.service.publish import render_round
from bot.storage import previews
from bot.storage.db import open_database
from bot.storage.previews import CONSOLE, MAIL


@dataclass(frozen=True, slots=True)
class PreviewResult:
    round: int
    #: The seed it played with: fresh (before the deadline) or the committed one.
    seed: int
    fresh: bool
    at: datetime
    #: The newsletter the evaluation would send, and the preview around it.
    newsletter: RenderedMail
    preview: RenderedMail


def preview(ctx: Context, *, via: str = CONSOLE, language: str | None = None
            ) -> PreviewResult | None:
    """Evaluate the open round now on a copy of the state (before its deadline
    with a fresh seed) and render the preview in ``language`` (default: the
    game master's); record it. None when no round is open."""
    now = ctx.clock()
    language = language or ctx.settings.language
    with ctx.db.read() as conn:
        rnd = ctx.league.open_round(conn)
    if rnd is None:
        return None
    fresh = now <= rnd.deadline
    with tempfile.TemporaryDirectory(prefix="turnited-preview-") as tmp:
        state = Path(tmp)
        ctx.db.copy_to(state)
        db = open_database(state)
        try:
            league = League(db, ctx.league.settings)
            twin = dataclasses.replace(ctx, db=db, league=league)
            result = league.evaluate_due(
                now, seed=secrets.randbits(63) if fresh else None,
                next_deadline=ctx.settings.deadline_plan.next_deadline(max(now, rnd.deadline)),
                force=True)
            if result is None:
                return None
            newsletter = render_round(twin, result.round, language)
        finally:
            db.close()
    with ctx.db.transaction() as conn:
        previews.record(conn, result.round, now, fresh=fresh, via=via)
    shown = render_preview(newsletter, round_number=result.round, fresh=fresh,
                           game_name=ctx.settings.game_name, language=language,
                           env=ctx.environments)
    return PreviewResult(result.round, result.seed, fresh, now, newsletter, shown)


__all__ = ["CONSOLE", "MAIL", "PreviewResult", "preview"]
