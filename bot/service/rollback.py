"""The game master's rollback of the last evaluation (RULES.md §9, §13).

``League.rollback`` takes the evaluation back in the state (WP, PSZ,
deleted teams, ageing, results; unsent newsletters cancelled) and opens the
round again; this use case also takes the round's page out of the archive
and writes the archive site again without it. It returns what was undone
as a typed ``RollbackReport``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bot.league.service import RolledBack
from bot.render.archive import round_stem
from bot.render.site import write_site
from bot.service.context import Context
from bot.service.publish import site_data


@dataclass(frozen=True, slots=True)
class RollbackReport:
    undone: RolledBack
    #: The archive files removed (the round's page, text and JSON).
    removed: tuple[Path, ...]


def rollback(ctx: Context, round_number: int | None = None) -> RollbackReport:
    """Roll back the last evaluation (``round_number``, if given, must be it)
    and remove its archive page; the archive site (index, hall of fame, team
    pages) is written again without it."""
    s = ctx.settings
    undone = ctx.league.rollback(ctx.clock(), round_number)
    removed: list[Path] = []
    archive_dir = s.archive_dir
    if archive_dir.is_dir():
        stem = round_stem(undone.round)
        for suffix in (".html", ".txt", ".json"):
            path = archive_dir / f"{stem}{suffix}"
            if path.exists():
                path.unlink()
                removed.append(path)
        if removed:
            with ctx.db.read() as conn:
                data = site_data(conn)
            write_site(archive_dir, data, game_name=s.game_name,
                       language=s.newsletter_language, timezone=s.timezone,
                       env=ctx.environments)
    return RollbackReport(undone, tuple(removed))


__all__ = ["RollbackReport", "rollback"]
