"""The game master's rollback of the last evaluation (RULES.md §9, §13).

``League.rollback`` takes the evaluation back in the state (WP, PSZ,
deleted teams, ageing, results; unsent newsletters cancelled) and opens the
round again; this use case also takes the round's page out of the archive
and writes the archive site again without it. It returns what was undone
as a typed ``RollbackReport``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from bot.league.service import RolledBack
from bot.render.archive import round_stem
from bot.render.site import write_site
from bot.service.context import Context
from bot.service.publish import site_data

if TYPE_CHECKING:
    from bot.render.words import Words


@dataclass(frozen=True, slots=True)
class RollbackReport:
    undone: RolledBack
    #: The archive files removed (the round's page, text and JSON).
    removed: tuple[Path, ...]
    now: datetime

    def lines(self, w: Words) -> list[str]:
        u = self.undone
        out = [w.ngettext("The evaluation of round %(round)s is taken back: %(num)s team has "
                          "its WP and PSZ of before again.",
                          "The evaluation of round %(round)s is taken back: %(num)s teams have "
                          "their WP and PSZ of before again.", u.teams, round=u.round)]
        if u.aged:
            out.append(w._("The ageing at the end of the season is taken back too."))
        out.append(w._("Round %(round)s is open again with its lineups and its committed seed; "
                       "its next evaluation corrects the earlier one (correction no. "
                       "%(corrects)s).", round=u.round, corrects=u.corrects))
        if u.restored:
            out.append(w._("Back again (their deletion stays announced): %(names)s",
                           names=", ".join(u.restored)))
        out.append(w.ngettext("Round %(removed)s is removed; %(num)s lineup for it stays stored.",
                              "Round %(removed)s is removed; %(num)s lineups for it stay stored.",
                              u.kept_moves, removed=u.removed_round))
        out.append(w.ngettext("%(num)s unsent mail of the round (newsletters, round report) "
                              "cancelled; sent ones stay sent.",
                              "%(num)s unsent mails of the round (newsletters, round report) "
                              "cancelled; sent ones stay sent.", u.cancelled_mails))
        if self.removed:
            out.append(w._("Removed from the archive: %(files)s",
                           files=", ".join(p.name for p in self.removed)))
        if u.deadline <= self.now:
            out.append(w._("The deadline %(when)s has passed: the round is evaluated again at "
                           "the next run (turnited evaluate), or move it with turnited "
                           "deadline set.", when=u.deadline))
        return out


def rollback(ctx: Context, round_number: int | None = None) -> RollbackReport:
    """Roll back the last evaluation (``round_number``, if given, must be it)
    and remove its archive page; the archive site (index, hall of fame, team
    pages) is written again without it."""
    s = ctx.settings
    now = ctx.clock()
    undone = ctx.league.rollback(now, round_number)
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
    return RollbackReport(undone, tuple(removed), now)


__all__ = ["RollbackReport", "rollback"]
