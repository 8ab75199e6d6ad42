"""How long the planned deadlines last: the game master hears a round ahead
that the explicit ``schedule.deadlines`` list runs out (``status`` and the
round report read ``deadline_outlook``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from bot.schedule import DeadlinePlan

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
