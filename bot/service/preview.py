"""The game master's preview (``evaluate --dry-run``): the open round
evaluated on a copy of the state and its newsletter rendered; the state
itself does not change."""

from __future__ import annotations

import dataclasses
import tempfile
from dataclasses import dataclass
from pathlib import Path

from bot.league.service import League
from bot.render.model import RenderedMail
from bot.service.context import Context
from bot.service.publish import render_round
from bot.storage.db import open_database


@dataclass(frozen=True, slots=True)
class PreviewResult:
    round: int
    seed: int
    #: The newsletter the evaluation would send (in the newsletter's language).
    newsletter: RenderedMail


def preview(ctx: Context) -> PreviewResult | None:
    """Evaluate the open round now on a copy of the state and render its
    newsletter; None when no round is open."""
    now = ctx.clock()
    with tempfile.TemporaryDirectory(prefix="turnited-preview-") as tmp:
        state = Path(tmp)
        ctx.db.copy_to(state)
        db = open_database(state)
        try:
            league = League(db, ctx.league.settings)
            twin = dataclasses.replace(ctx, db=db, league=league)
            with db.read() as conn:
                rnd = league.open_round(conn)
            if rnd is None:
                return None
            after = max(now, rnd.deadline)
            result = league.evaluate_due(now, next_deadline=ctx.plan.next_deadline(after),
                                         force=True)
            if result is None:
                return None
            rendered = render_round(twin, result.round)
        finally:
            db.close()
    return PreviewResult(result.round, result.seed, rendered)


__all__ = ["PreviewResult", "preview"]
