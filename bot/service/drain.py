"""Sending the outbox: every outgoing message is queued in the database first
(``bot.service.outgoing.queue_mail`` -> ``bot.storage.outbox``) and sent later
by ``drain``, so a reply exists once its transaction commits,
whether or not the mail server is up.

States: ``queued`` -> ``sending`` -> ``sent`` | ``failed`` (or back to
``queued`` to retry). Before a message is handed to the sender its row is
committed as ``sending``; a crash between the hand-over and the ``sent``
mark leaves it ``sending``, and the next drain sends it again. So a message
may arrive twice, never zero times; it keeps its Message-ID, so mail
clients recognise the duplicate.

Failures: a 4xx reply for the message puts it back to ``queued`` with an
exponential back-off (``base_backoff * 2**attempts``, capped) and after
``max_attempts`` makes it ``failed``; a 5xx reply makes it ``failed`` at
once and is reported for the game master.

No body at rest: a message's ``raw`` bytes are dropped in the same
transaction that marks it ``sent`` or ``failed`` (``bot.storage.outbox.finish``);
the row keeps its Message-ID, recipient, kind, size and SHA-256 digest, and a
failure keeps the error the digest reports. Queued messages keep their body
until then. A server that cannot be reached
at all stops the drain with everything still queued (the message that was
in flight is not blamed: its attempts are not counted). A server that
refuses the bot's login (a wrong password, an expired OAuth2 token, a
failing token command) raises its ``TransportError`` (one line saying what
to change) with the message still queued, unblamed as well.

Order: personal mail (replies, mail to the game master) before bulk mail
(newsletters, reminders), oldest first within each. With a daily budget
(``max_per_day``, ``bot.service.sending_budget``: a rolling 24 hours) bulk
mail that does not fit stays queued for a later drain (``deferred``,
``resume_at``); personal mail may use the whole budget.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections import deque
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Protocol

from bot.mail.transport import (
    MailSender,
    PermanentSendError,
    TemporarySendError,
)
from bot.service.sending_budget import BULK_KINDS, DailyBudget
from bot.storage import outbox as rows
from bot.storage import outbox_budget
from bot.storage.outbox import OutboxState

log = logging.getLogger(__name__)

RATE_WINDOW = timedelta(minutes=1)


class TransactionalDatabase(Protocol):
    """What the drain needs of ``bot.storage.db.Database``: context managers
    yielding a ``sqlite3.Connection`` (write transaction / read snapshot)."""

    def transaction(self) -> AbstractContextManager[sqlite3.Connection]: ...

    def read(self) -> AbstractContextManager[sqlite3.Connection]: ...


@dataclass
class DrainReport:
    """What one drain did. ``failed`` lists (recipient, error) of messages that
    are now ``failed``; ``stopped`` says why the drain ended early (the mail
    server could not be reached), ``None`` if it ran
    until nothing was due; ``recovered`` counts rows a crash had left in
    ``sending``. ``deferred`` bulk messages wait for the daily budget, the
    next of them may go at ``resume_at``."""

    sent: int = 0
    retried: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)
    stopped: str | None = None
    recovered: int = 0
    deferred: int = 0
    resume_at: datetime | None = None


def backoff(attempts: int, base: timedelta, cap: timedelta) -> timedelta:
    """Wait before the next try after ``attempts`` earlier tries: base * 2**attempts, capped."""
    if attempts < 0:
        raise ValueError(f"attempts={attempts!r}: expected a whole number >= 0")
    if base >= cap or 2**attempts >= cap / base:  # compare before multiplying: no overflow
        return cap
    return base * 2**attempts


class _RateLimit:
    """At most ``per_minute`` sends in any sliding minute."""

    def __init__(
        self,
        per_minute: int | None,
        now: Callable[[], datetime],
        sleep: Callable[[float], None],
    ) -> None:
        if per_minute is not None and per_minute < 1:
            raise ValueError(f"rate_per_minute={per_minute!r}: expected a whole number >= 1")
        self.per_minute = per_minute
        self._now = now
        self._sleep = sleep
        self._sent: deque[datetime] = deque()

    def wait(self) -> None:
        if self.per_minute is None:
            return
        while True:
            current = self._now()
            while self._sent and current - self._sent[0] >= RATE_WINDOW:
                self._sent.popleft()
            if len(self._sent) < self.per_minute:
                return
            pause = (self._sent[0] + RATE_WINDOW - current).total_seconds()
            self._sleep(max(pause, 0.001))

    def record(self) -> None:
        if self.per_minute is not None:
            self._sent.append(self._now())


def drain(
    db: TransactionalDatabase,
    sender: MailSender,
    *,
    now: Callable[[], datetime],
    mail_from: str,
    rate_per_minute: int | None = None,
    max_attempts: int = 10,
    base_backoff: timedelta = timedelta(seconds=60),
    max_backoff: timedelta = timedelta(hours=6),
    sleep: Callable[[float], None] = time.sleep,
    limit: int | None = None,
    max_per_day: int | None = None,
) -> DrainReport:
    """Send due queued messages, personal mail first, oldest first, until
    none is due (or ``limit`` were tried, or the server is unreachable, or
    the daily budget is spent). A server that refuses the login raises its
    ``TransportError``. The sender's connection is closed at the end."""
    if max_attempts < 1:
        raise ValueError(f"max_attempts={max_attempts!r}: expected a whole number >= 1")
    report = DrainReport()
    rate = _RateLimit(rate_per_minute, now, sleep)
    with db.transaction() as conn:
        report.recovered = rows.recover_sending(conn)
        budget = DailyBudget.load(conn, now(), max_per_day) if max_per_day else None
    if report.recovered:
        log.warning(
            "outbox: %d message(s) were being sent when the bot stopped; "
            "sending them again (a recipient may get one twice)",
            report.recovered,
        )
    tried = 0
    try:
        while limit is None or tried < limit:
            with_bulk = budget is None or budget.allows(now(), bulk=True)
            if budget is not None and not budget.allows(now(), bulk=False):
                break
            if _next_due(db, now(), with_bulk) is None:
                break
            rate.wait()
            claimed = _claim(db, now(), with_bulk)
            if claimed is None:
                break
            row_id, recipient, raw, attempts = (
                claimed.id, claimed.recipient, claimed.raw, claimed.attempts)
            tried += 1
            try:
                try:
                    sender.send(raw, mail_from, recipient)
                finally:
                    rate.record()  # refused tries count against the provider's limit too
            except PermanentSendError as exc:
                _finish(db, row_id, OutboxState.FAILED, attempts + 1, str(exc), now())
                report.failed.append((recipient, str(exc)))
                log.error("outbox: message %d to %s failed: %s", row_id, recipient, exc)
            except TemporarySendError as exc:
                if exc.connection_failed:
                    _stop(db, report, row_id, attempts, exc)
                    break
                if attempts + 1 >= max_attempts:
                    _finish(db, row_id, OutboxState.FAILED, attempts + 1, str(exc), now())
                    report.failed.append((recipient, f"gave up after {attempts + 1} tries: {exc}"))
                    continue
                retry_at = now() + backoff(attempts, base_backoff, max_backoff)
                _requeue(db, row_id, attempts + 1, str(exc), retry_at)
                report.retried += 1
                log.info("outbox: message %d to %s retried at %s: %s", row_id, recipient,
                         retry_at, exc)
            except BaseException as exc:  # not the message's fault: keep it, let it surface
                _requeue(db, row_id, attempts, f"{type(exc).__name__}: {exc}", None)
                raise
            else:
                _finish(db, row_id, OutboxState.SENT, attempts + 1, None, now())
                report.sent += 1
                if budget is not None:
                    budget.record(now())
    finally:
        sender.close()
    if budget is not None and report.stopped is None and not budget.allows(now(), bulk=True):
        with db.read() as conn:
            report.deferred = outbox_budget.waiting(conn, now(), bulk=BULK_KINDS)[1]
        if report.deferred:
            report.resume_at = budget.frees_at(now(), bulk=True)
            log.info("outbox: %d bulk message(s) wait for the daily limit (%d); the next at %s",
                     report.deferred, max_per_day, report.resume_at.isoformat())
    return report


def _stop(db: TransactionalDatabase, report: DrainReport, row_id: int, attempts: int,
          exc: TemporarySendError) -> None:
    """The server cannot be used now: the message in flight goes back,
    unblamed (its attempts not counted), and the drain stops."""
    _requeue(db, row_id, attempts, str(exc), None)
    report.retried += 1
    report.stopped = str(exc)
    log.warning("outbox: mail server unusable, drain stopped: %s", exc)


def _next_due(db: TransactionalDatabase, at: datetime, with_bulk: bool) -> int | None:
    with db.read() as conn:
        return outbox_budget.next_due(conn, at, bulk=BULK_KINDS, with_bulk=with_bulk)


def _claim(db: TransactionalDatabase, at: datetime, with_bulk: bool) -> rows.Claimed | None:
    """Mark the message to send next ``sending`` and commit before it is sent."""
    with db.transaction() as conn:
        return outbox_budget.claim(conn, at, bulk=BULK_KINDS, with_bulk=with_bulk)


def _finish(
    db: TransactionalDatabase,
    row_id: int,
    state: OutboxState,
    attempts: int,
    error: str | None,
    at: datetime,
) -> None:
    with db.transaction() as conn:
        rows.finish(conn, row_id, state, attempts, error, at)


def _requeue(
    db: TransactionalDatabase,
    row_id: int,
    attempts: int,
    error: str,
    retry_at: datetime | None,
) -> None:
    with db.transaction() as conn:
        rows.requeue(conn, row_id, attempts, error, retry_at)
