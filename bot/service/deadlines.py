"""The open round's deadline: what is planned (``deadline_report``, the
console's ``deadline show``), moving it (``set_deadline``), and how long the
planned deadlines last (``deadline_outlook``: the game master hears a round
ahead that the explicit ``schedule.deadlines`` list runs out; ``status`` and
the round report read it)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from bot.errors import TurnitedError
from bot.schedule import DeadlinePlan, reminder_times
from bot.service.context import Context

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


def deadline_report(ctx: Context, count: int = 3) -> DeadlineReport:
    """The open round's deadline, its reminders and the next ``count`` planned deadlines."""
    now = ctx.clock()
    with ctx.db.read() as conn:
        rnd = ctx.league.open_round(conn)
    deadline = rnd.deadline if rnd else None
    reminders = tuple(Reminder(hours, at, at <= now)
                      for hours, at in reminder_times(deadline, ctx.reminder_hours)
                      ) if deadline else ()
    upcoming = tuple(ctx.plan.upcoming(max(now, deadline) if deadline else now, count))
    settings = ctx.plan.settings
    return DeadlineReport(now, rnd.number if rnd else None, deadline, reminders, upcoming,
                          settings.cron, settings.timezone,
                          deadline_outlook(ctx.plan, deadline or now))


class DeadlineNotInFuture(TurnitedError, ValueError):
    """A deadline can only be moved to a moment after now."""

    def __init__(self, deadline: datetime, now: datetime) -> None:
        self.deadline, self.now = deadline, now
        super().__init__(f"the deadline {deadline.isoformat()} is not after now "
                         f"({now.isoformat()}); a deadline can only be moved to a moment "
                         "after now")


@dataclass(frozen=True, slots=True)
class DeadlineSet:
    round: int
    #: The deadline before and after.
    before: datetime
    deadline: datetime
    #: Round 1 was opened for it (the league had not started yet).
    opened: bool


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
