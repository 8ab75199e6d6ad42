"""The one fake clock of the tests.

The bot never reads the wall clock itself: every layer takes a ``clock``
callable returning an aware ``datetime``. This one returns ``now`` until a
test moves it, by assignment, by :meth:`advance`, or by :meth:`sleep` (which
also records the pause, for code that is handed a ``sleep`` function).
"""

from __future__ import annotations

from datetime import datetime, timedelta


class FakeClock:
    """A clock standing at ``now`` until the test moves it."""

    def __init__(self, now: datetime) -> None:
        if now.tzinfo is None:
            raise ValueError(f"the fake clock needs an aware time, got {now.isoformat()!r}")
        self.now = now
        #: Every pause asked of :meth:`sleep`, in seconds, in order.
        self.slept: list[float] = []

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        """Move forward by ``timedelta(**delta)``, e.g. ``advance(hours=2)``."""
        self.now += timedelta(**delta)

    def sleep(self, seconds: float) -> None:
        """Pretend to sleep: record the pause and move the time forward by it."""
        self.slept.append(seconds)
        self.now += timedelta(seconds=seconds)
