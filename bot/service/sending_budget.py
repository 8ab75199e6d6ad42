"""The daily sending budget (``mail.smtp.max_per_day``): how many messages
the provider still takes, what goes first, and when waiting mail goes out.

**The day is a rolling 24 hours**, not the calendar day: providers count
that way (Gmail: "in a rolling 24-hour period"), and a budget kept in any 24
hours also holds for every calendar day, in any time zone, while a
calendar-day budget could send twice the limit within a few hours around
midnight and get the account blocked.

**Replies first.** Personal mail (replies to players, mail to the game
master, notices) always goes before bulk mail (newsletters, reminders) and
may use the whole budget; bulk mail leaves a fifth of it (``reserve``)
for the replies of the next 24 hours. Bulk mail that does not fit waits in
the outbox, still queued, and goes out as the oldest sends of the window age
out: spread over the following hours the way the earlier mail was, and the
rest the next day. Nothing is dropped or sent twice: it is the same outbox
row, claimed once.
"""

from __future__ import annotations

import sqlite3
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.mail.compose import MailKind
from bot.storage import outbox_budget
from bot.storage.db import Database

#: The budget's window.
DAY = timedelta(hours=24)
#: The kinds of mail that wait for personal mail (sent to many players at once).
BULK_KINDS: tuple[str, ...] = tuple(str(kind) for kind in MailKind if kind.bulk)


def reserve(max_per_day: int) -> int:
    """How many of a day's sends bulk mail leaves for personal mail: a
    fifth, rounded up, but never all (bulk mail must always get through)."""
    return min(max_per_day - 1, -(-max_per_day // 5))


class DailyBudget:
    """The sends of the last 24 hours against ``max_per_day``."""

    def __init__(self, max_per_day: int, sent: Iterable[datetime]) -> None:
        if max_per_day < 1:
            raise ValueError(f"max_per_day={max_per_day!r}: expected a whole number >= 1")
        self.max_per_day = max_per_day
        self._sent: deque[datetime] = deque(sorted(sent))

    @classmethod
    def load(cls, conn: sqlite3.Connection, now: datetime, max_per_day: int) -> DailyBudget:
        """The budget with the sends of the 24 hours before ``now``."""
        return cls(max_per_day, outbox_budget.sent_since(conn, now - DAY))

    def limit(self, *, bulk: bool) -> int:
        return self.max_per_day - reserve(self.max_per_day) if bulk else self.max_per_day

    def used(self, now: datetime) -> int:
        """Sends within the 24 hours before ``now``."""
        while self._sent and self._sent[0] <= now - DAY:
            self._sent.popleft()
        return len(self._sent)

    def allows(self, now: datetime, *, bulk: bool) -> bool:
        return self.used(now) < self.limit(bulk=bulk)

    def record(self, at: datetime) -> None:
        self._sent.append(at)

    def frees_at(self, now: datetime, *, bulk: bool) -> datetime:
        """When the next message of that kind may go (``now`` if it may)."""
        over = self.used(now) - self.limit(bulk=bulk)
        return now if over < 0 else self._sent[over] + DAY


@dataclass(frozen=True, slots=True)
class Deferral:
    """Bulk mail that waits for the daily budget: ``count`` messages, the
    last expected at ``last_at`` (the per-minute rate aside)."""

    count: int
    max_per_day: int
    last_at: datetime

    def as_digest(self) -> dict[str, object]:
        """The digest's ``deferred_mail`` entry (``bot.render.digest``)."""
        return {"count": self.count, "max_per_day": self.max_per_day, "last_at": self.last_at}


def schedule(budget: DailyBudget, now: datetime, personal: int, bulk: int) -> list[datetime]:
    """When each waiting bulk message goes out if nothing else comes in:
    the personal ones first, each message as soon as the window lets it.
    ``budget`` is used up by the calculation (pass a copy)."""
    times: list[datetime] = []
    at = now
    for n in range(personal + bulk):
        is_bulk = n >= personal
        at = max(at, budget.frees_at(at, bulk=is_bulk))
        budget.record(at)
        if is_bulk:
            times.append(at)
    return times


def outlook(db: Database, now: datetime, max_per_day: int | None, *,
            also_personal: int = 0) -> Deferral | None:
    """The bulk mail the budget holds back at ``now``, None when all of it
    can go out now (or there is no daily limit). ``also_personal`` counts
    personal mail about to be queued (the digest that will say this)."""
    if max_per_day is None:
        return None
    with db.read() as conn:
        personal, bulk = outbox_budget.waiting(conn, now, bulk=BULK_KINDS)
        sent = outbox_budget.sent_since(conn, now - DAY)
    times = schedule(DailyBudget(max_per_day, sent), now, personal + also_personal, bulk)
    late = [t for t in times if t > now]
    return Deferral(len(late), max_per_day, late[-1]) if late else None
