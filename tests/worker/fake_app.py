"""A small in-memory application for the worker's scheduling tests.

It implements the ``WorkerApp`` interface with rounds, deadlines and a
mailbox that can be made unreadable, and records every call in order, so
tests can check *what the worker did when*. Used only for the scheduling
logic; the real application has its own tests.

Run as a script it is a worker process for the subprocess tests::

    python fake_app.py STATE_DIR EVENTS_FILE [--deadline-in S] [--slow-evaluate S]
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.mail.transport import TransportError


@dataclass
class FakePoll:
    processed: int = 0
    replies: int = 0


@dataclass
class FakeDrain:
    sent: int = 0
    retried: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)


class FakeApp:
    """Rounds with deadlines ``round_length`` apart; ``poll_failures`` polls
    fail with ``TransportError`` before polling works again."""

    def __init__(
        self,
        deadline: datetime | None,
        *,
        clock: Callable[[], datetime],
        round_length: timedelta = timedelta(days=7),
        poll_failures: int = 0,
        evaluate_seconds: float = 0.0,
        events_file: Path | None = None,
    ) -> None:
        self.deadline = deadline
        self.clock = clock
        self.round = 1
        self.round_length = round_length
        self.poll_failures = poll_failures
        self.evaluate_seconds = evaluate_seconds
        self.events_file = events_file
        self.calls: list[tuple] = []
        #: time.monotonic() of each call in ``calls``.
        self.times: list[float] = []
        self.notices: list[tuple[str, str]] = []
        self.reminders: list[tuple[int, int]] = []
        self.outbox = 0
        self._lock = threading.Lock()

    def _record(self, *call: object) -> None:
        with self._lock:
            self.calls.append(call)
            self.times.append(time.monotonic())
            if self.events_file is not None:
                with open(self.events_file, "a", encoding="utf-8") as handle:
                    handle.write(json.dumps([str(c) for c in call]) + "\n")

    def names(self) -> list[str]:
        """The names of the calls so far, in order."""
        with self._lock:
            return [c[0] for c in self.calls]

    # -- the WorkerApp interface ----------------------------------------------

    def ensure_started(self) -> None:
        self._record("ensure_started")

    def poll_once(self) -> FakePoll:
        if self.poll_failures > 0:
            self.poll_failures -= 1
            self._record("poll_failed")
            raise TransportError("imap.example.org:993: connection refused",
                                 endpoint="imap.example.org:993")
        self._record("poll")
        return FakePoll()

    def wait_for_mail(self, timeout: float) -> bool:
        self._record("wait", round(timeout, 3))
        time.sleep(timeout)
        return False

    def drain_outbox(self) -> FakeDrain:
        self._record("drain")
        sent, self.outbox = self.outbox, 0
        return FakeDrain(sent=sent)

    def open_round_deadline(self) -> datetime | None:
        return self.deadline

    def evaluate_due(self, now: datetime | None = None, *, force: bool = False) -> int | None:
        now = now or self.clock()
        if self.deadline is None or (self.deadline > now and not force):
            self._record("evaluate_not_due")
            return None
        self._record("evaluate_start", self.round)
        time.sleep(self.evaluate_seconds)
        done = self.round
        self.round += 1
        self.deadline = self.deadline + self.round_length
        while self.deadline <= now:
            self.deadline += self.round_length
        self.outbox += 3
        self._record("evaluate_done", done)
        return done

    def catch_up(self) -> list[int]:
        self._record("catch_up")
        done = self.evaluate_due(self.clock())
        return [done] if done is not None else []

    def send_reminders(self, now: datetime | None = None, hours_before: int = 0) -> int:
        self._record("remind", hours_before)
        self.reminders.append((self.round, hours_before))
        return 1

    def notify_gm(self, subject: str, text: str) -> None:
        self._record("notify_gm", subject)
        self.notices.append((subject, text))
        self.outbox += 1

    def set_deadline(self, deadline: datetime) -> None:
        self.deadline = deadline


def _main(argv: list[str]) -> int:
    """A worker process on a fake app (for signal and lock tests)."""
    import argparse

    from bot.config import Config
    from bot.worker.logs import configure_logging
    from bot.worker.scheduler import Worker, WorkerTimings

    parser = argparse.ArgumentParser()
    parser.add_argument("state_dir", type=Path)
    parser.add_argument("events", type=Path)
    parser.add_argument("--deadline-in", type=float, default=3600.0)
    parser.add_argument("--slow-evaluate", type=float, default=0.0)
    args = parser.parse_args(argv)

    def now() -> datetime:
        return datetime.now(UTC)

    config = Config.from_mapping({"state_dir": str(args.state_dir)}, Path.cwd(), environ={})
    app = FakeApp(now() + timedelta(seconds=args.deadline_in), clock=now,
                  evaluate_seconds=args.slow_evaluate, events_file=args.events)
    configure_logging(level="INFO")
    worker = Worker(app, config, timings=WorkerTimings(mail_wait=0.2, outbox_every=1,
                                                        replan_every=1))
    status = worker.run()
    app._record("exited", status)
    return status


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
