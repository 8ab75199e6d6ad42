"""The open round's deadline: what is planned (``deadline_report``, the
console's ``deadline show``), moving it (``set_deadline``), and how long the
planned deadlines last (``deadline_outlook``: the game master hears a round
ahead that the explicit ``schedule.deadlines`` list runs out; ``status`` and
the round report read it)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from bot.errors import N_, TurnitedError
from bot.schedule import DeadlinePlan, reminder_times
from bot.service.context import Context

if TYPE_CHECKING:
    from bot.render.words import Words

#: Warn while at most this many planned deadlines follow the open round's.
WARN_AT = 1


@dataclass(frozen=True, slots=True)
class DeadlineOutlook:
    #: Planned deadlines after the open round's (None: endless, a cron line).
    left: int | None
    #: The last planned deadline (None with a cron line or when none is left).
    last: datetime | None

    @property
    def running_out(self) -> bool:
        """At most ``WARN_AT`` rounds can still open after the open one."""
        return self.left is not None and self.left <= WARN_AT

    def as_dict(self) -> dict[str, object]:
        return {"left": self.left, "last": self.last.isoformat() if self.last else None,
                "running_out": self.running_out}

    def lines(self, w: Words, open_round: int | None) -> list[str]:
        """The warning that the planned deadlines run out (none while enough are planned)."""
        if not self.running_out:
            return []
        if self.left == 0:
            if open_round is None:
                return [w._("The planned deadlines run out: none is planned after the first "
                            "round's, so no round opens after its evaluation. Add later "
                            "date-times to schedule.deadlines or use a cron line.")]
            return [w._("The planned deadlines run out: none is planned after the one of round "
                        "%(round)s, so no round opens after its evaluation. Add later "
                        "date-times to schedule.deadlines or use a cron line.",
                        round=open_round)]
        return [w.ngettext(
            "The planned deadlines run out: only %(num)s is planned after the open round's "
            "(the last: %(last)s). Add later date-times to schedule.deadlines or use a cron "
            "line.",
            "The planned deadlines run out: only %(num)s are planned after the open round's "
            "(the last: %(last)s). Add later date-times to schedule.deadlines or use a cron "
            "line.",
            self.left or 0, last=w.when(self.last) if self.last else "?")]


def deadline_outlook(plan: DeadlinePlan, after: datetime) -> DeadlineOutlook:
    """The planned deadlines after ``after`` (the open round's deadline, or
    now in a league without a round)."""
    if plan.settings.cron:
        return DeadlineOutlook(None, None)
    later = [d for d in plan.settings.deadlines if d > after]
    return DeadlineOutlook(len(later), later[-1] if later else None)


@dataclass(frozen=True, slots=True)
class Reminder:
    hours: int
    at: datetime
    #: Its moment has come (the worker sends it, or has sent it).
    due: bool


@dataclass(frozen=True, slots=True)
class DeadlineReport:
    """The open round's deadline and what follows it."""

    now: datetime
    #: The open round (None before round 1 opens) and its deadline.
    round: int | None
    deadline: datetime | None
    reminders: tuple[Reminder, ...]
    #: The next planned deadlines after the open round's (or after now).
    upcoming: tuple[datetime, ...]
    #: The crontab line of the plan (None: the explicit list) and its zone.
    cron: str | None
    timezone: str
    outlook: DeadlineOutlook

    @property
    def passed(self) -> bool:
        return self.deadline is not None and self.deadline <= self.now

    def lines(self, w: Words) -> list[str]:
        out = []
        if self.deadline is None:
            out.append(w._("No round is open yet: round 1 opens when the bot starts."))
        else:
            if self.passed:
                out.append(w._("Deadline of round %(round)s: %(when)s (passed: the round waits "
                               "for its evaluation)", round=self.round, when=self.deadline))
            else:
                out.append(w._("Deadline of round %(round)s: %(when)s (open)", round=self.round,
                               when=self.deadline))
            for r in self.reminders:
                if r.due:
                    line = w.ngettext("Reminder %(num)s hour before: %(when)s (due)",
                                      "Reminder %(num)s hours before: %(when)s (due)",
                                      r.hours, when=r.at)
                else:
                    line = w.ngettext("Reminder %(num)s hour before: %(when)s (planned)",
                                      "Reminder %(num)s hours before: %(when)s (planned)",
                                      r.hours, when=r.at)
                out.append("  " + line)
        if self.cron:
            out.append(w._("The next deadlines (crontab line %(cron)s in %(zone)s):",
                           cron=repr(self.cron), zone=self.timezone))
        else:
            out.append(w._("The next deadlines (the list of schedule.deadlines, %(zone)s):",
                           zone=self.timezone))
        if not self.upcoming:
            out.append("  " + w._("none: the list has no later deadline"))
        out += ["  " + w.when(moment) for moment in self.upcoming]
        return out + self.outlook.lines(w, self.round)


def deadline_report(ctx: Context, count: int = 3) -> DeadlineReport:
    """The open round's deadline, its reminders and the next ``count`` planned deadlines."""
    now = ctx.clock()
    with ctx.db.read() as conn:
        rnd = ctx.league.open_round(conn)
    deadline = rnd.deadline if rnd else None
    reminders = tuple(Reminder(hours, at, at <= now)
                      for hours, at in reminder_times(deadline, ctx.settings.reminder_hours)
                      ) if deadline else ()
    plan = ctx.settings.deadline_plan
    upcoming = tuple(plan.upcoming(max(now, deadline) if deadline else now, count))
    settings = plan.settings
    return DeadlineReport(now, rnd.number if rnd else None, deadline, reminders, upcoming,
                          settings.cron, settings.timezone,
                          deadline_outlook(ctx.settings.deadline_plan, deadline or now))


class DeadlineNotInFuture(TurnitedError, ValueError):
    """A deadline can only be moved to a moment after now."""

    def __init__(self, deadline: datetime, now: datetime) -> None:
        self.deadline, self.now = deadline, now
        message = N_("%(when)s is not in the future; a deadline can only be moved to a "
                     "moment after now")
        self.words = (message, {"when": deadline})
        super().__init__(message % {"when": deadline.isoformat()})


@dataclass(frozen=True, slots=True)
class DeadlineSet:
    round: int
    #: The deadline before and after.
    before: datetime
    deadline: datetime
    #: Round 1 was opened for it (the league had not started yet).
    opened: bool

    def lines(self, w: Words) -> list[str]:
        return [w._("The deadline of round %(round)s is now %(when)s.", round=self.round,
                    when=w.when(self.deadline)),
                w._("A running bot plans the deadline and its reminders anew within a minute.")]


def set_deadline(ctx: Context, deadline: datetime) -> DeadlineSet:
    """Move the open round's deadline to ``deadline`` (after now); a league not
    started yet opens round 1 with it. A running worker re-plans within a minute."""
    now = ctx.clock()
    if deadline <= now:
        raise DeadlineNotInFuture(deadline, now)
    with ctx.db.read() as conn:
        rnd = ctx.league.open_round(conn)
    if rnd is None:
        opened = ctx.league.ensure_first_round(now, deadline)
        return DeadlineSet(opened.number, opened.deadline, deadline, True)
    ctx.league.set_deadline(rnd.number, deadline)
    return DeadlineSet(rnd.number, rnd.deadline, deadline, False)


__all__ = ["DeadlineNotInFuture", "DeadlineOutlook", "DeadlineReport", "DeadlineSet",
           "Reminder", "deadline_outlook", "deadline_report", "set_deadline"]
