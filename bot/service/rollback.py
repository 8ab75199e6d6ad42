"""The game master's rollback of the last evaluation (RULES.md §9, §13).

``rollback_plan`` says what a rollback would do and changes nothing (the
console asks the game master with it; a mail would carry it with its
confirmation code). ``rollback`` does it, in one transaction: the league
takes the evaluation back (WP, PSZ, deleted teams, ageing, results; unsent
newsletters cancelled) and opens the round again **with a deadline that is
not in the past** (the one given, else the next planned one), so a running
worker cannot evaluate it again at its next tick; and every manager of the
round gets a notice, in his language, through the outbox, that its results
are withdrawn and when the new deadline is. Then the round's page leaves
the archive and the archive site is written again without it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from bot.errors import N_, TurnitedError
from bot.league.service import RolledBack
from bot.mail.compose import MailKind
from bot.render.archive import round_stem
from bot.render.notices import render_rollback
from bot.render.site import write_site
from bot.service.context import Context
from bot.service.deadlines import DeadlineNotInFuture
from bot.service.outgoing import queue_mail
from bot.service.publish import site_data

if TYPE_CHECKING:
    from bot.render.words import Words


class NoDeadlinePlanned(TurnitedError, ValueError):
    """No deadline is planned after now, and none was given."""

    def __init__(self) -> None:
        message = N_("no deadline is planned after now for the reopened round; give one "
                     "(--deadline '17.01.2027 20:00'), or add later date-times to "
                     "schedule.deadlines")
        self.words = (message, {})
        super().__init__(message)


@dataclass(frozen=True, slots=True)
class RollbackPlan:
    """What a rollback would do: take back ``round`` (evaluated at
    ``evaluated_at``), open it until ``deadline``, tell ``managers`` managers."""

    round: int
    evaluated_at: datetime | None
    deadline: datetime
    #: The deadline was given (else the next planned one).
    given: bool
    managers: int

    def lines(self, w: Words) -> list[str]:
        if self.given:
            line = w.ngettext(
                "Rollback of round %(round)s: its results are withdrawn, the round is open "
                "again until %(when)s (the deadline given), and %(num)s manager is told so by "
                "mail.",
                "Rollback of round %(round)s: its results are withdrawn, the round is open "
                "again until %(when)s (the deadline given), and %(num)s managers are told so "
                "by mail.", self.managers, round=self.round, when=self.deadline)
        else:
            line = w.ngettext(
                "Rollback of round %(round)s: its results are withdrawn, the round is open "
                "again until %(when)s (the next planned deadline), and %(num)s manager is "
                "told so by mail.",
                "Rollback of round %(round)s: its results are withdrawn, the round is open "
                "again until %(when)s (the next planned deadline), and %(num)s managers are "
                "told so by mail.", self.managers, round=self.round, when=self.deadline)
        return [line]


@dataclass(frozen=True, slots=True)
class RollbackReport:
    undone: RolledBack
    #: The archive files removed (the round's page, text and JSON).
    removed: tuple[Path, ...]
    #: Managers told (a notice queued for each).
    notified: int

    def lines(self, w: Words) -> list[str]:
        u = self.undone
        out = [w.ngettext("The evaluation of round %(round)s is taken back: %(num)s team has "
                          "its WP and PSZ of before again.",
                          "The evaluation of round %(round)s is taken back: %(num)s teams have "
                          "their WP and PSZ of before again.", u.teams, round=u.round)]
        if u.aged:
            out.append(w._("The ageing at the end of the season is taken back too."))
        out.append(w._("Round %(round)s is open again until %(when)s, with its lineups and its "
                       "committed seed; its next evaluation corrects the earlier one "
                       "(correction no. %(corrects)s).", round=u.round, when=u.deadline,
                       corrects=u.corrects))
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
        out.append(w.ngettext("%(num)s manager is told by mail that the results are withdrawn "
                              "(in the outbox; the running bot sends it, or: turnited send).",
                              "%(num)s managers are told by mail that the results are withdrawn "
                              "(in the outbox; the running bot sends them, or: turnited send).",
                              self.notified))
        if self.removed:
            out.append(w._("Removed from the archive: %(files)s",
                           files=", ".join(p.name for p in self.removed)))
        return out


def rollback_plan(ctx: Context, round_number: int | None = None,
                  deadline: datetime | None = None) -> RollbackPlan:
    """What ``rollback`` would do (raises what it would raise); changes nothing."""
    now = ctx.clock()
    if deadline is not None and deadline <= now:
        raise DeadlineNotInFuture(deadline, now)
    with ctx.db.read() as conn:
        target = ctx.league.rollback_target(conn, round_number)
        managers = len(ctx.league.recipients(conn))
    chosen = deadline or ctx.settings.deadline_plan.next_deadline(now)
    if chosen is None:
        raise NoDeadlinePlanned()
    return RollbackPlan(target.number, target.evaluated_at, chosen, deadline is not None,
                        managers)


def rollback(ctx: Context, round_number: int | None = None,
             deadline: datetime | None = None) -> RollbackReport:
    """Roll back the last evaluation (``round_number``, if given, must be it),
    reopen its round until ``deadline`` (default: the next planned one), tell
    every manager of the round, and take its page out of the archive."""
    s = ctx.settings
    plan = rollback_plan(ctx, round_number, deadline)
    now = ctx.clock()
    with ctx.db.transaction() as conn:
        undone = ctx.league.rollback_in(conn, now, plan.round, deadline=plan.deadline)
        told = 0
        for manager in ctx.league.recipients(conn):
            rendered = render_rollback(
                name=manager.display_name, round_number=undone.round,
                deadline=undone.deadline, timezone=s.timezone, game_name=s.game_name,
                game_address=s.game_address,
                language=manager.language or s.newsletter_language, env=ctx.environments)
            queue_mail(conn, sender=s.sender, kind=MailKind.NOTICE, to=manager.address,
                       to_name=manager.display_name, rendered=rendered,
                       key=f"rollback/round-{undone.round}/correction-{undone.corrects}",
                       now=now)
            told += 1
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
    return RollbackReport(undone, tuple(removed), told)


__all__ = ["NoDeadlinePlanned", "RollbackPlan", "RollbackReport", "rollback", "rollback_plan"]
