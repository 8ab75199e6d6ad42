"""The worker: APScheduler 3.x jobs that drive an application facade.

Jobs (all in one ``BackgroundScheduler``, UTC, coalescing, no misfire grace
limit, so a run missed while the process was down happens once on start):

- ``mail``: a loop that reads the inbox (``app.poll_once()``) and waits for
  new mail (``app.wait_for_mail``, IMAP IDLE or polling). A single wait is
  at most ``mail_wait`` seconds and never runs past the next deadline, so
  the deadline finds the mailbox free and a stop request is honoured soon.
- ``deadline``: at the open round's deadline. It FIRST reads the inbox up
  to that moment; only if that succeeds is the round evaluated. If the
  inbox cannot be read, the evaluation waits (retried with backoff) and the
  game master is mailed once per deadline. Afterwards the next deadline and
  its reminders are planned. On start the same job runs once at once
  (``app.catch_up()``: a deadline missed while the worker was down).
- ``reminder-<H>h``: ``app.send_reminders(now, H)`` H hours before the
  deadline.
- ``outbox``: ``app.drain_outbox()`` every ``outbox_every`` seconds, and
  right after every poll that processed mail and every evaluation.
- ``watch``: re-reads the open round's deadline every ``replan_every``
  seconds and re-plans when it changed (``turnited deadline set`` from
  another process).

Concurrency: calls that use the mailbox hold ``_mailbox_lock``; calls that
change the game state hold ``_work_lock`` (one transaction at a time); the
outbox drain has its own lock, so a long, rate-limited drain never delays
reading mail. A due deadline job has precedence: while it waits for the
mailbox the mail loop steps aside, and once the job is due the loop waits
for mail only briefly (a plain lock is not fair: the loop could otherwise
take the mailbox back again and again and hold the evaluation up).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol

from apscheduler.executors.pool import ThreadPoolExecutor
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.date import DateTrigger
from apscheduler.triggers.interval import IntervalTrigger

from bot.config import Config
from bot.mail.transport import TransportError
from bot.schedule import reminder_times
from bot.worker.lock import WorkerLock
from bot.worker.logs import log_event
from bot.worker.notices import format_deadline, render_notice
from bot.worker.signals import stop_on_signals

if TYPE_CHECKING:  # the reports the use cases return (bot.service), for the protocol
    from bot.service.drain import DrainReport
    from bot.service.inbound import PollReport

log = logging.getLogger(__name__)


def utcnow() -> datetime:
    return datetime.now(UTC)


class WorkerApp(Protocol):
    """What the worker needs of the application (``bot.app.App``)."""

    def ensure_started(self) -> None: ...
    def poll_once(self) -> PollReport: ...
    def wait_for_mail(self, timeout: float) -> bool: ...
    def drain_outbox(self) -> DrainReport: ...
    def open_round_deadline(self) -> datetime | None: ...
    def evaluate_due(self, now: datetime | None = None, *, force: bool = False) -> int | None: ...
    def catch_up(self) -> list[int]: ...
    def send_reminders(self, now: datetime | None = None, hours_before: int = 0) -> int: ...
    def notify_gm(self, subject: str, text: str) -> None: ...


@dataclass(frozen=True)
class WorkerTimings:
    """How often the worker does what (seconds)."""

    #: Longest single wait for new mail; bounds how long a stop request waits.
    mail_wait: float = 10.0
    #: Longest pause after a failed poll of the mail loop (backoff 2, 4, 8, ...).
    poll_backoff_max: float = 300.0
    #: Interval of the outbox drain job.
    outbox_every: float = 30.0
    #: Interval of re-reading the open round's deadline.
    replan_every: float = 30.0
    #: First and longest delay before a deferred deadline is tried again.
    retry_first: float = 30.0
    retry_max: float = 600.0

    def retry_delay(self, attempt: int) -> float:
        return min(self.retry_first * 2 ** max(attempt - 1, 0), self.retry_max)


DEADLINE_JOB = "deadline"
MAIL_JOB = "mail"
OUTBOX_JOB = "outbox"
WATCH_JOB = "watch"


def reminder_job_id(hours: int) -> str:
    return f"reminder-{hours}h"


class Worker:
    """Runs the jobs of one state directory until stopped.

    ``clock`` gives the current time (aware UTC) for everything the worker
    decides; APScheduler itself fires on the system clock.
    """

    def __init__(
        self,
        app: WorkerApp,
        config: Config,
        *,
        clock: Callable[[], datetime] = utcnow,
        timings: WorkerTimings | None = None,
        lock: WorkerLock | None = None,
    ) -> None:
        self.app = app
        self.config = config
        self.clock = clock
        self.timings = timings or WorkerTimings()
        self.lock = lock or WorkerLock(config.state_dir)
        self._own_lock = False
        self.scheduler = BackgroundScheduler(
            timezone=UTC,
            executors={"default": ThreadPoolExecutor(max_workers=8)},
            job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": None},
        )
        #: job id -> when it is planned (date jobs only); for status and tests.
        self.planned: dict[str, datetime] = {}
        self._stopping = threading.Event()
        self._stop_reason: str | None = None
        self._mailbox_lock = threading.Lock()
        self._work_lock = threading.RLock()
        self._outbox_lock = threading.Lock()
        self._deadline_lock = threading.Lock()
        #: Set while the deadline job waits for the mailbox; the mail loop yields.
        self._deadline_wants_mailbox = threading.Event()
        self._plan_lock = threading.RLock()
        self._planned_deadline: datetime | None = None
        self._plan_valid = False
        self._retry_attempt = 0
        #: (notice code, deadline) pairs the game master was told about.
        self._notified: set[tuple[str, datetime]] = set()
        self._alarmed_for: datetime | None = None

    def __repr__(self) -> str:
        return f"Worker(state_dir={str(self.config.state_dir)!r}, planned={self.planned!r})"

    # -- life cycle --------------------------------------------------------

    @property
    def stopping(self) -> bool:
        return self._stopping.is_set()

    def start(self) -> None:
        """Take the lock, open the first round if needed, start the jobs and
        run the catch-up (the deadline job) at once."""
        if not self.lock.held:
            self.lock.acquire()
            self._own_lock = True
        try:
            with self._work_lock:
                self.app.ensure_started()
            t = self.timings
            self.scheduler.add_job(
                self.mail_loop, DateTrigger(run_date=self.clock(), timezone=UTC),
                id=MAIL_JOB, name=MAIL_JOB, replace_existing=True,
            )
            self.scheduler.add_job(
                self.drain, IntervalTrigger(seconds=t.outbox_every, timezone=UTC),
                id=OUTBOX_JOB, name=OUTBOX_JOB, replace_existing=True, max_instances=2,
            )
            self.scheduler.add_job(
                self.replan, IntervalTrigger(seconds=t.replan_every, timezone=UTC),
                id=WATCH_JOB, name=WATCH_JOB, replace_existing=True,
            )
            self.replan()
            # The catch-up: replaces the planned deadline job and runs at once.
            self._schedule_at(DEADLINE_JOB, self.clock(), self.run_deadline, startup=True)
            self.scheduler.start()
        except BaseException:
            self._shutdown_scheduler()
            self._release_lock()
            raise
        log_event(
            log, "worker_started", pid=os.getpid(), state_dir=str(self.config.state_dir),
            transport=self.config.mail.transport,
        )

    def request_stop(self, reason: str = "request") -> None:
        """Ask the worker to stop (signal-safe: only sets an event)."""
        if self._stop_reason is None:
            self._stop_reason = reason
        self._stopping.set()

    def stop(self) -> None:
        """Stop taking new jobs, let running ones finish, release the lock."""
        self._stopping.set()
        log_event(log, "worker_stopping", reason=self._stop_reason or "stop")
        self._shutdown_scheduler()
        self._release_lock()
        log_event(log, "worker_stopped")

    def run(self) -> int:
        """``start()``, then block until SIGTERM/SIGINT or ``request_stop()``,
        then ``stop()``. Returns the exit status (0). The signal handlers are
        in place from before the start until the worker has stopped."""
        with stop_on_signals(self.request_stop):
            self.start()
            try:
                while not self._stopping.wait(1.0):
                    pass
            finally:
                self.stop()
        return 0

    def _shutdown_scheduler(self) -> None:
        if self.scheduler.running:
            self.scheduler.shutdown(wait=True)

    def _release_lock(self) -> None:
        if self._own_lock:
            self.lock.release()
            self._own_lock = False

    # -- planning ------------------------------------------------------------

    def _schedule_at(
        self, job_id: str, when: datetime, func: Callable[..., Any], **kwargs: Any
    ) -> None:
        # Deadline and reminder jobs take their own locks, so a second
        # instance (a job re-planning itself while it runs) is harmless.
        self.scheduler.add_job(
            func, DateTrigger(run_date=when, timezone=UTC), id=job_id, name=job_id,
            kwargs=kwargs, replace_existing=True, max_instances=3,
        )
        self.planned[job_id] = when

    def _unschedule(self, job_id: str) -> None:
        self.planned.pop(job_id, None)
        if self.scheduler.get_job(job_id) is not None:
            self.scheduler.remove_job(job_id)

    def replan(self, *, force: bool = False, not_before: datetime | None = None) -> None:
        """Plan the deadline job and the reminders of the open round, if its
        deadline changed since the last planning (or ``force``). The deadline
        job runs at the deadline, but not before ``not_before``."""
        if self.stopping:
            return
        with self._plan_lock:
            deadline = self.app.open_round_deadline()
            if self._plan_valid and not force and deadline == self._planned_deadline:
                return
            changed = deadline != self._planned_deadline
            self._planned_deadline = deadline
            self._plan_valid = True
            if changed and not_before is None:
                self._retry_attempt = 0
            for job_id in [j for j in self.planned if j.startswith("reminder-")]:
                self._unschedule(job_id)
            if deadline is None:
                self._unschedule(DEADLINE_JOB)
                log_event(log, "no_deadline", level=logging.WARNING,
                          reason="no open round or no deadline planned")
                return
            now = self.clock()
            run_at = max(deadline, not_before) if not_before else deadline
            self._schedule_at(DEADLINE_JOB, run_at, self.run_deadline)
            past: list[int] = []
            for hours, moment in reminder_times(deadline, self.config.reminders.hours_before):
                if moment > now:
                    self._schedule_at(
                        reminder_job_id(hours), moment, self.run_reminder, hours=hours
                    )
                elif deadline > now:
                    past.append(hours)
            if past:
                # The last reminder that fell while the worker was down; the
                # application sends each (round, hours) reminder only once.
                latest = min(past)
                self._schedule_at(reminder_job_id(latest), now, self.run_reminder, hours=latest)
            log_event(
                log, "deadline_planned",
                deadline=deadline.isoformat(),
                local=format_deadline(deadline, self.config.schedule.timezone),
                reminders=",".join(
                    f"{j}@{w.isoformat()}" for j, w in sorted(self.planned.items())
                    if j.startswith("reminder-")
                ),
            )

    # -- jobs ----------------------------------------------------------------

    def run_deadline(self, *, startup: bool = False) -> None:
        """The deadline job (``startup``: the catch-up run on start)."""
        if self.stopping:
            return
        with self._deadline_lock:
            self._run_deadline(startup)

    def _run_deadline(self, startup: bool) -> None:
        now = self.clock()
        deadline = self.app.open_round_deadline()
        due = deadline is not None and deadline <= now
        if not due and not startup:
            self.replan(force=True)
            return
        self._deadline_wants_mailbox.set()
        try:
            with self._mailbox_lock, self._work_lock:
                self._deadline_wants_mailbox.clear()
                self.app.poll_once()
        except Exception as exc:
            self._defer(deadline if due else None, exc, startup, "inbox_unreadable")
            return
        finally:
            self._deadline_wants_mailbox.clear()
        try:
            with self._work_lock:
                if due and deadline is not None:
                    log_event(log, "evaluation_started", deadline=deadline.isoformat(),
                              startup=startup)
                if startup:
                    rounds = list(self.app.catch_up())
                else:
                    evaluated = self.app.evaluate_due(self.clock())
                    rounds = [evaluated] if evaluated is not None else []
        except Exception as exc:
            self._defer(deadline if due else None, exc, startup, "evaluation_failed")
            return
        if rounds or not due:
            self._retry_attempt = 0
        if rounds:
            log_event(log, "rounds_evaluated", rounds=",".join(map(str, rounds)),
                      deadline=deadline.isoformat() if deadline else None)
        if self._alarmed_for is not None:
            self._notify("inbox_recovered", deadline=self._alarmed_for, rounds=rounds)
            self._alarmed_for = None
        self._notified.clear()
        self.drain()
        not_before = None
        after = self.app.open_round_deadline()
        if due and not rounds and after is not None and after <= self.clock():
            # Due, nothing evaluated and still due: try again later rather
            # than at once (never a busy loop, never left unplanned).
            self._retry_attempt += 1
            delay = self.timings.retry_delay(self._retry_attempt)
            log_event(log, "deadline_not_evaluated", level=logging.WARNING,
                      deadline=after.isoformat(), retry_seconds=delay)
            not_before = self.clock() + timedelta(seconds=delay)
        self.replan(force=True, not_before=not_before)

    def _defer(self, deadline: datetime | None, exc: Exception, startup: bool, code: str) -> None:
        """The deadline cannot be handled now: try again later, tell the GM once."""
        self._retry_attempt += 1
        delay = self.timings.retry_delay(self._retry_attempt)
        log_event(
            log, "deadline_deferred", level=logging.WARNING, reason=code,
            error=f"{type(exc).__name__}: {exc}", retry_seconds=delay,
            deadline=deadline.isoformat() if deadline else None,
        )
        if deadline is not None:
            key = (code, deadline)
            if key not in self._notified and self._notify(
                code, deadline=deadline, error=exc, retry=int(delay)
            ):
                self._notified.add(key)
                if code == "inbox_unreadable":
                    self._alarmed_for = deadline
        self._schedule_at(
            DEADLINE_JOB, self.clock() + timedelta(seconds=delay), self.run_deadline,
            startup=startup,
        )

    def _notify(self, code: str, *, deadline: datetime, **params: Any) -> bool:
        subject, text = render_notice(
            code, self.config.game.language,
            deadline=format_deadline(deadline, self.config.schedule.timezone), **params,
        )
        try:
            with self._work_lock:
                self.app.notify_gm(subject, text)
        except Exception:
            log.exception("notify_gm_failed code=%s", code)
            return False
        log_event(log, "gm_notified", notice=code)
        self.drain()
        return True

    def run_reminder(self, *, hours: int) -> None:
        """A reminder job: remind managers without a lineup ``hours`` before."""
        if self.stopping:
            return
        try:
            with self._work_lock:
                queued = self.app.send_reminders(self.clock(), hours)
        except Exception:
            log.exception("reminders_failed hours_before=%s", hours)
            return
        finally:
            self.planned.pop(reminder_job_id(hours), None)
        log_event(log, "reminders_queued", hours_before=hours, queued=queued)
        if queued:
            self.drain()

    def drain(self) -> None:
        """Send what the outbox holds (skipped while another drain runs)."""
        if not self._outbox_lock.acquire(blocking=False):
            return
        try:
            report = self.app.drain_outbox()
        except TransportError as exc:  # a refused login, a failing token command: one line
            log_event(log, "outbox_drain_failed", level=logging.WARNING, error=str(exc))
            return
        except Exception:
            log.exception("outbox_drain_failed")
            return
        finally:
            self._outbox_lock.release()
        sent = getattr(report, "sent", 0)
        retried = getattr(report, "retried", 0)
        failed = list(getattr(report, "failed", []) or [])
        if sent or retried or failed:
            log_event(log, "outbox_drained", sent=sent, retried=retried, failed=len(failed),
                      stopped=getattr(report, "stopped", None))
        for recipient, error in failed:
            log_event(log, "mail_undeliverable", level=logging.WARNING,
                      recipient=recipient, error=error)

    def mail_loop(self) -> None:
        """Read mail until the worker stops."""
        failures = 0
        while not self.stopping:
            if self._deadline_wants_mailbox.is_set():
                self._stopping.wait(0.05)  # the deadline job reads the inbox now
                continue
            try:
                with self._mailbox_lock, self._work_lock:
                    report = self.app.poll_once()
            except Exception as exc:
                failures += 1
                pause = min(2.0**failures, self.timings.poll_backoff_max)
                log_event(log, "mail_poll_failed", level=logging.WARNING,
                          error=f"{type(exc).__name__}: {exc}", failures=failures,
                          retry_seconds=pause)
                self._stopping.wait(pause)
                continue
            if failures:
                log_event(log, "mail_poll_recovered", failures=failures)
                failures = 0
            processed = getattr(report, "processed", 0)
            if processed:
                log_event(log, "mail_processed", mails=processed,
                          replies=getattr(report, "replies", None))
                self.drain()
            if self.stopping:
                break
            timeout = self.mail_wait_timeout()
            if self._deadline_job_due():
                # Leave the mailbox free for a moment, then wait only briefly.
                self._stopping.wait(0.05)
                timeout = min(timeout, 0.2)
            if self._deadline_wants_mailbox.is_set():
                continue
            try:
                with self._mailbox_lock:
                    self.app.wait_for_mail(timeout)
            except Exception as exc:
                log_event(log, "mail_wait_failed", level=logging.WARNING,
                          error=f"{type(exc).__name__}: {exc}")
                self._stopping.wait(min(self.timings.mail_wait, 5.0))

    def _deadline_job_due(self) -> bool:
        """The deadline job's planned run (deadline, catch-up or retry) has come."""
        when = self.planned.get(DEADLINE_JOB)
        return when is not None and when <= self.clock()

    def mail_wait_timeout(self) -> float:
        """How long the next wait for mail may take: at most ``mail_wait``
        (on the embedded Maildir transport at most its polling interval,
        as each check is cheap), and not past the planned deadline."""
        limit = self.timings.mail_wait
        if self.config.mail.transport == "maildir":
            limit = min(limit, self.config.mail.maildir.poll_seconds)
        deadline = self._planned_deadline
        if deadline is not None:
            until = (deadline - self.clock()).total_seconds()
            if 0 < until < limit:
                return max(until, 0.05)
        return limit
