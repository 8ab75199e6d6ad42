"""The worker's view of the schedule (the code lives in ``bot.schedule``).

Kept so ``from bot.worker.schedule import DeadlinePlan, reminder_times``
goes on working; new code imports from ``bot.schedule``.
"""

from bot.schedule import DeadlinePlan, ScheduleSettings, reminder_times

__all__ = ["DeadlinePlan", "ScheduleSettings", "reminder_times"]
