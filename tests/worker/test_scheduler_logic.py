"""The worker's decisions, driven directly with a controllable clock (the
APScheduler wiring itself is tested with real time in test_scheduler_live)."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.config import Config
from bot.worker.scheduler import DEADLINE_JOB, Worker, WorkerTimings
from tests.support.clock import FakeClock

from .fake_app import FakeApp

DEADLINE = datetime(2026, 12, 6, 19, 0, tzinfo=UTC)  # Sunday 20:00 in Berlin


def make(tmp_path: Path, now: datetime, *, language: str = "de", **app_kwargs) -> tuple:
    clock = FakeClock(now)
    config = Config.from_mapping(
        {"state_dir": str(tmp_path), "game": {"language": language}}, tmp_path, environ={}
    )
    app = FakeApp(DEADLINE, clock=clock, **app_kwargs)
    worker = Worker(app, config, clock=clock, timings=WorkerTimings())
    return worker, app, clock


def seconds_until(worker: Worker, job: str, clock: FakeClock) -> float:
    return (worker.planned[job] - clock()).total_seconds()


# -- planning -------------------------------------------------------------------


def test_plan_has_the_deadline_and_the_future_reminders(tmp_path):
    worker, _app, _clock = make(tmp_path, datetime(2026, 12, 1, 12, tzinfo=UTC))
    worker.replan()
    assert worker.planned == {
        "deadline": DEADLINE,
        "reminder-48h": DEADLINE - timedelta(hours=48),
        "reminder-6h": DEADLINE - timedelta(hours=6),
    }


def test_the_last_reminder_missed_while_down_is_sent_at_once_earlier_ones_not(tmp_path):
    now = DEADLINE - timedelta(hours=20)  # the 48 h reminder has passed
    worker, _app, _clock = make(tmp_path, now)
    worker.replan()
    assert worker.planned["reminder-48h"] == now
    assert worker.planned["reminder-6h"] == DEADLINE - timedelta(hours=6)

    now = DEADLINE - timedelta(hours=2)  # both have passed: only the 6 h one
    worker, _app, _clock = make(tmp_path, now)
    worker.replan()
    assert worker.planned == {"deadline": DEADLINE, "reminder-6h": now}


def test_replan_is_a_no_op_until_the_deadline_changes(tmp_path):
    worker, app, clock = make(tmp_path, datetime(2026, 12, 1, 12, tzinfo=UTC))
    worker.replan()
    before = dict(worker.planned)
    clock.advance(days=3, hours=8)  # past the 48 h reminder: a re-plan would drop it
    worker.replan()
    assert worker.planned == before
    # `turnited deadline set` in another process moves the open round's deadline.
    moved = DEADLINE + timedelta(days=1)
    app.set_deadline(moved)
    worker.replan()
    assert worker.planned == {
        "deadline": moved,
        "reminder-48h": moved - timedelta(hours=48),
        "reminder-6h": moved - timedelta(hours=6),
    }


def test_no_open_round_means_no_deadline_job(tmp_path):
    worker, app, _clock = make(tmp_path, datetime(2026, 12, 1, tzinfo=UTC))
    app.deadline = None
    worker.replan()
    assert worker.planned == {}


# -- the deadline job ------------------------------------------------------------


def test_deadline_job_reads_the_inbox_first_then_evaluates_then_sends(tmp_path):
    worker, app, _clock = make(tmp_path, DEADLINE + timedelta(seconds=1))
    worker.replan()
    worker.run_deadline()
    assert app.names() == ["poll", "evaluate_start", "evaluate_done", "drain"]
    next_deadline = DEADLINE + timedelta(days=7)
    assert worker.planned == {
        "deadline": next_deadline,
        "reminder-48h": next_deadline - timedelta(hours=48),
        "reminder-6h": next_deadline - timedelta(hours=6),
    }
    assert app.notices == []


def test_deadline_job_before_the_deadline_does_nothing_but_replan(tmp_path):
    worker, app, _clock = make(tmp_path, DEADLINE - timedelta(minutes=1))
    worker.replan()
    worker.run_deadline()
    assert app.names() == []
    assert worker.planned["deadline"] == DEADLINE


def test_unreadable_inbox_defers_the_evaluation_and_tells_the_gm_once(tmp_path):
    worker, app, clock = make(tmp_path, DEADLINE + timedelta(seconds=1), poll_failures=3)
    worker.replan()
    delays = []
    for _ in range(3):
        worker.run_deadline()
        delays.append(seconds_until(worker, DEADLINE_JOB, clock))
        clock.advance(seconds=delays[-1])
    assert "evaluate_start" not in app.names()
    assert app.names().count("poll_failed") == 3
    assert delays == [30, 60, 120]  # backoff
    assert app.names().count("notify_gm") == 1
    subject, text = app.notices[0]
    assert "Posteingang nicht lesbar" in subject
    assert "2026-12-06 20:00 Europe/Berlin" in text
    assert "connection refused" in text

    worker.run_deadline()  # the inbox is readable again
    names = app.names()
    assert names[names.index("evaluate_start") - 1] == "poll"
    assert names.count("evaluate_done") == 1
    assert len(app.notices) == 2
    assert "wieder lesbar" in app.notices[1][0]
    assert "1" in app.notices[1][1]  # the round evaluated
    assert worker.planned["deadline"] == DEADLINE + timedelta(days=7)


def test_gm_notices_follow_the_game_language(tmp_path):
    worker, app, _clock = make(tmp_path, DEADLINE + timedelta(seconds=1), language="en",
                              poll_failures=1)
    worker.run_deadline()
    assert app.notices[0][0] == "Inbox unreadable – evaluation waits"
    assert "The deadline 2026-12-06 20:00 Europe/Berlin (2026-12-06 19:00 UTC)" \
        in app.notices[0][1]


class FailingEvaluation(FakeApp):
    def __init__(self, *args, failures: int = 1, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.failures = failures

    def evaluate_due(self, now=None, *, force=False):
        if self.failures:
            self.failures -= 1
            self._record("evaluate_failed")
            raise RuntimeError("database is locked")
        return super().evaluate_due(now, force=force)


def test_failed_evaluation_is_retried_and_reported_once(tmp_path):
    clock = FakeClock(DEADLINE + timedelta(seconds=5))
    config = Config.from_mapping({"state_dir": str(tmp_path)}, tmp_path, environ={})
    app = FailingEvaluation(DEADLINE, clock=clock, failures=2)
    worker = Worker(app, config, clock=clock)
    worker.run_deadline()
    worker.run_deadline()
    assert app.names().count("evaluate_failed") == 2
    assert [s for s, _ in app.notices] == ["Auswertung fehlgeschlagen"]
    assert "database is locked" in app.notices[0][1]
    assert seconds_until(worker, DEADLINE_JOB, clock) == 60
    worker.run_deadline()
    assert app.names().count("evaluate_done") == 1


def test_missed_deadline_is_evaluated_once_on_start_after_a_poll(tmp_path):
    worker, app, _clock = make(tmp_path, DEADLINE + timedelta(days=2))
    worker.replan()
    worker.run_deadline(startup=True)
    assert app.names() == ["poll", "catch_up", "evaluate_start", "evaluate_done", "drain"]
    worker.run_deadline(startup=True)  # a second start: nothing is due any more
    assert app.names().count("evaluate_done") == 1
    assert worker.planned["deadline"] == DEADLINE + timedelta(days=7)


def test_start_with_unreadable_inbox_and_nothing_due_bothers_nobody(tmp_path):
    worker, app, clock = make(tmp_path, DEADLINE - timedelta(days=1), poll_failures=1)
    worker.run_deadline(startup=True)
    assert app.notices == []
    assert seconds_until(worker, DEADLINE_JOB, clock) == 30
    worker.run_deadline(startup=True)  # the retry keeps the catch-up
    assert "catch_up" in app.names()


class NeverEvaluates(FakeApp):
    def evaluate_due(self, now=None, *, force=False):
        self._record("evaluate_not_due")
        return None


def test_a_due_round_that_is_not_evaluated_is_retried_later_not_at_once(tmp_path):
    clock = FakeClock(DEADLINE + timedelta(seconds=1))
    config = Config.from_mapping({"state_dir": str(tmp_path)}, tmp_path, environ={})
    app = NeverEvaluates(DEADLINE, clock=clock)
    worker = Worker(app, config, clock=clock)
    worker.run_deadline()
    assert seconds_until(worker, DEADLINE_JOB, clock) == 30
    worker.run_deadline()
    assert seconds_until(worker, DEADLINE_JOB, clock) == 60


# -- reminders, mail ----------------------------------------------------------------


def test_reminder_job_reminds_and_sends(tmp_path):
    worker, app, _clock = make(tmp_path, DEADLINE - timedelta(hours=6))
    worker.replan()
    worker.run_reminder(hours=6)
    assert app.names() == ["remind", "drain"]
    assert app.reminders == [(1, 6)]
    assert "reminder-6h" not in worker.planned


def test_mail_wait_never_runs_past_the_deadline(tmp_path):
    worker, _app, clock = make(tmp_path, DEADLINE - timedelta(seconds=1.5))
    worker.replan()
    assert worker.mail_wait_timeout() == pytest.approx(1.5)
    # Far from the deadline: the Maildir polling interval (2 s) bounds each wait.
    clock.advance(seconds=-60)
    assert worker.config.mail.maildir.poll_seconds == 2.0
    assert worker.mail_wait_timeout() == 2.0
    clock.advance(seconds=120)  # past the deadline: the deadline job handles it
    assert worker.mail_wait_timeout() == 2.0


def test_mail_wait_on_imap_is_the_configured_slice(tmp_path):
    clock = FakeClock(DEADLINE - timedelta(hours=1))
    config = Config.from_mapping({
        "state_dir": str(tmp_path),
        "mail": {"transport": "imap", "address": "bot@example.org",
                 "imap": {"host": "imap.example.org", "password": "x"},
                 "smtp": {"host": "smtp.example.org"}},
        "gm": {"address": "gm@example.org"},
    }, tmp_path, environ={})
    worker = Worker(FakeApp(DEADLINE, clock=clock), config, clock=clock,
                    timings=WorkerTimings(mail_wait=25))
    worker.replan()
    assert worker.mail_wait_timeout() == 25


def test_mail_loop_backs_off_after_failures_and_stops_on_request(tmp_path):
    config = Config.from_mapping({"state_dir": str(tmp_path)}, tmp_path, environ={})
    app = FakeApp(DEADLINE, clock=lambda: datetime.now(UTC), poll_failures=2)
    worker = Worker(app, config, timings=WorkerTimings(mail_wait=0.05, poll_backoff_max=0.05))
    thread = threading.Thread(target=worker.mail_loop)
    thread.start()
    deadline = time.monotonic() + 5
    while app.names().count("wait") < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    worker.request_stop()
    thread.join(timeout=2)
    assert not thread.is_alive()
    names = app.names()
    assert names[:3] == ["poll_failed", "poll_failed", "poll"]
    assert names.count("wait") >= 3
    assert all(call[1] <= 0.05 for call in app.calls if call[0] == "wait")
