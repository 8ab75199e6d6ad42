"""The worker on a real APScheduler with real time (short intervals), and
as a real process that is stopped with SIGTERM."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.config import Config
from bot.worker.lock import WorkerLock
from bot.worker.scheduler import Worker, WorkerTimings

from .fake_app import FakeApp

FAST = WorkerTimings(mail_wait=0.2, outbox_every=0.5, replan_every=0.3,
                     retry_first=0.1, retry_max=0.2, poll_backoff_max=0.2)
FAKE_APP_SCRIPT = Path(__file__).with_name("fake_app.py")


def now() -> datetime:
    return datetime.now(UTC)


def wait_for(condition: Callable[[], bool], timeout: float = 10.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


@pytest.fixture
def running(tmp_path):
    """Start a worker on a FakeApp; stopped (and checked) at the end."""
    workers: list[Worker] = []

    def start(app: FakeApp) -> Worker:
        config = Config.from_mapping({"state_dir": str(tmp_path)}, tmp_path, environ={})
        worker = Worker(app, config, timings=FAST)
        worker.start()
        workers.append(worker)
        return worker

    yield start
    for worker in workers:
        worker.stop()
        assert not worker.scheduler.running
        # the lock is released: another worker could start now
        with WorkerLock(tmp_path):
            pass


def test_deadline_fires_on_time_and_reads_the_inbox_before_evaluating(running):
    deadline = now() + timedelta(seconds=1.0)
    t_deadline = time.monotonic() + 1.0
    app = FakeApp(deadline, clock=now)
    running(app)
    assert wait_for(lambda: "evaluate_done" in app.names())
    names, times = app.names(), list(app.times)
    start = names.index("evaluate_start")
    assert times[start] >= t_deadline - 0.05
    assert times[start] - t_deadline < 3.0
    # a poll after the deadline and before the evaluation
    assert any(n == "poll" and t_deadline - 0.05 <= t <= times[start]
               for n, t in zip(names[:start], times[:start], strict=True))
    assert names.count("catch_up") == 1  # the start-up run found nothing due
    assert names.index("catch_up") < start
    assert names.count("evaluate_done") == 1
    assert wait_for(lambda: "drain" in app.names()[start:])


def test_missed_deadline_is_evaluated_exactly_once_on_start(running):
    deadline = now() - timedelta(hours=1)
    app = FakeApp(deadline, clock=now)
    worker = running(app)
    assert wait_for(lambda: "evaluate_done" in app.names())
    time.sleep(0.8)  # several watch and outbox intervals
    names = app.names()
    assert names.count("evaluate_done") == 1
    assert names.index("poll") < names.index("evaluate_start")
    assert worker.planned["deadline"] == deadline + timedelta(days=7)


def test_unreadable_inbox_at_a_missed_deadline_waits_and_alarms_once(running):
    app = FakeApp(now() - timedelta(minutes=5), clock=now, poll_failures=10_000)
    running(app)
    assert wait_for(lambda: app.names().count("poll_failed") >= 6)
    assert "evaluate_start" not in app.names()
    assert app.names().count("notify_gm") == 1
    app.poll_failures = 0  # the IMAP server is back
    assert wait_for(lambda: "evaluate_done" in app.names())
    assert app.names().count("evaluate_done") == 1
    assert wait_for(lambda: app.names().count("notify_gm") == 2)  # "readable again"


def test_a_moved_deadline_is_picked_up_by_the_running_worker(running):
    app = FakeApp(now() + timedelta(hours=1), clock=now)
    running(app)
    assert wait_for(lambda: "catch_up" in app.names())
    app.set_deadline(now() + timedelta(seconds=0.5))  # `turnited deadline set` elsewhere
    assert wait_for(lambda: "evaluate_done" in app.names(), timeout=5)
    assert app.round == 2


def read_events(path: Path) -> list[str]:
    if not path.exists():
        return []
    return [json.loads(line)[0] for line in path.read_text().splitlines() if line]


def test_sigterm_lets_the_running_evaluation_finish_and_exits_cleanly(tmp_path):
    events = tmp_path / "events.jsonl"
    proc = subprocess.Popen(
        [sys.executable, str(FAKE_APP_SCRIPT), str(tmp_path / "state"), str(events),
         "--deadline-in", "0.5", "--slow-evaluate", "1.5"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        assert wait_for(lambda: "evaluate_start" in read_events(events), timeout=15)
        os.kill(proc.pid, signal.SIGTERM)
        _, stderr = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, stderr
    got = read_events(events)
    assert got.index("evaluate_start") < got.index("evaluate_done") < got.index("exited")
    assert "event=worker_stopping reason=SIGTERM" in stderr
    assert "event=worker_stopped" in stderr
    assert "Traceback" not in stderr
    with WorkerLock(tmp_path / "state"):
        pass
