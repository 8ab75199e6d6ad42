"""Deadline computation: when rounds end and when reminders go out.

A ``DeadlinePlan`` answers "what is the first deadline strictly after this
moment?" for the configured schedule: a crontab line evaluated in the
configured time zone (so "Sunday 20:00" stays 20:00 local time across the
changes to and from summer time), or an explicit list of moments. All
results are aware UTC datetimes.

Summer time: a wall-clock time that happens twice (clocks go back) is a
deadline once, at its first occurrence; one that does not exist (clocks go
forward) falls one hour later in local time, right after the skipped hour.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from bot.config import Config, ScheduleSettings

if TYPE_CHECKING:
    from apscheduler.triggers.cron import CronTrigger

_TICK = timedelta(microseconds=1)


def _require_aware(moment: datetime, name: str) -> None:
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"{name} must be an aware datetime (UTC), got naive {moment!r}")


class DeadlinePlan:
    """The deadlines of a ``ScheduleSettings``."""

    def __init__(self, settings: ScheduleSettings) -> None:
        self.settings = settings
        self._trigger: CronTrigger | None = (
            settings.cron_trigger() if settings.cron is not None else None
        )

    @classmethod
    def from_config(cls, config: Config) -> DeadlinePlan:
        return cls(config.schedule)

    def __repr__(self) -> str:
        if self.settings.cron is not None:
            return f"DeadlinePlan(cron={self.settings.cron!r}, timezone={self.settings.timezone!r})"
        return f"DeadlinePlan({len(self.settings.deadlines)} explicit deadlines)"

    def next_deadline(self, after: datetime) -> datetime | None:
        """The first deadline strictly after ``after`` (aware UTC), or None
        when the explicit list has no later entry."""
        _require_aware(after, "after")
        if self._trigger is None:
            return next((d for d in self.settings.deadlines if d > after), None)
        zone = self.settings.zone
        start = (after.astimezone(UTC) + _TICK).astimezone(zone)
        while True:
            fire = self._trigger.get_next_fire_time(None, start)
            if fire is None:
                return None
            if fire.fold == 1 and fire.replace(fold=0).utcoffset() != fire.utcoffset():
                # Second occurrence of a repeated wall-clock time: the deadline
                # already was at the first one. (Step in UTC: wall-clock
                # arithmetic would drop the fold and find this one again.)
                start = (fire.astimezone(UTC) + timedelta(seconds=1)).astimezone(zone)
                continue
            return fire.astimezone(UTC)

    def upcoming(self, after: datetime, count: int) -> list[datetime]:
        """The next ``count`` deadlines after ``after`` (fewer if the list ends)."""
        found: list[datetime] = []
        moment = after
        while len(found) < count:
            nxt = self.next_deadline(moment)
            if nxt is None:
                break
            found.append(nxt)
            moment = nxt
        return found

    def local(self, moment: datetime) -> datetime:
        """``moment`` in the configured time zone (for display)."""
        return moment.astimezone(self.settings.zone)


def reminder_times(deadline: datetime, hours_before: Iterable[int]) -> list[tuple[int, datetime]]:
    """``(hours, moment)`` for each reminder of ``deadline``, earliest first.

    Hours are elapsed hours, so across a change of summer time "48 hours
    before Sunday 20:00" is Friday 19:00 or 21:00 local time.
    """
    _require_aware(deadline, "deadline")
    pairs = {int(h): deadline.astimezone(UTC) - timedelta(hours=int(h)) for h in hours_before}
    for hours in pairs:
        if hours <= 0:
            raise ValueError(f"reminder hours must be > 0, got {hours!r}")
    return sorted(pairs.items(), key=lambda pair: pair[1])
