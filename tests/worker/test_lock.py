"""One worker per state directory."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from bot.worker.lock import LOCK_FILE, WorkerLock, WorkerLockedError, read_lock_holder

HOLDER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from bot.worker.lock import WorkerLock
    lock = WorkerLock(Path(sys.argv[1]))
    lock.acquire()
    print("locked", flush=True)
    sys.stdin.read()  # hold until the test closes stdin
    lock.release()
    print("released", flush=True)
""")


@pytest.fixture
def holder(tmp_path):
    """A separate process holding the lock of ``tmp_path``."""
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(tmp_path)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "locked"
    yield proc
    if proc.poll() is None:
        proc.kill()
        proc.wait()


def test_second_worker_is_refused_with_the_holders_pid(tmp_path, holder):
    with pytest.raises(WorkerLockedError) as info:
        WorkerLock(tmp_path).acquire()
    assert info.value.pid == holder.pid
    message = str(info.value)
    assert f"process {holder.pid}" in message
    assert "another worker is already running" in message
    assert str(tmp_path) in message
    assert read_lock_holder(tmp_path) == holder.pid


def test_lock_is_free_after_the_holder_releases_it(tmp_path, holder):
    holder.stdin.close()
    assert holder.stdout.readline().strip() == "released"
    holder.wait(timeout=10)
    assert read_lock_holder(tmp_path) is None
    with WorkerLock(tmp_path) as lock:
        assert lock.held
        assert read_lock_holder(tmp_path) == os.getpid()
        assert (tmp_path / LOCK_FILE).read_text().strip() == str(os.getpid())
    assert not lock.held
    assert (tmp_path / LOCK_FILE).read_text() == ""


def test_a_killed_holder_leaves_no_stale_lock(tmp_path, holder):
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait(timeout=10)
    lock = WorkerLock(tmp_path)
    lock.acquire()  # the kernel released the flock with the process
    lock.release()


def test_lock_creates_the_state_directory_and_cannot_be_taken_twice(tmp_path):
    lock = WorkerLock(tmp_path / "new" / "state")
    lock.acquire()
    try:
        assert (tmp_path / "new" / "state" / LOCK_FILE).exists()
        with pytest.raises(RuntimeError, match="already held"):
            lock.acquire()
        with pytest.raises(WorkerLockedError):  # a second handle in the same process
            WorkerLock(tmp_path / "new" / "state").acquire()
    finally:
        lock.release()
    lock.release()  # releasing twice is harmless
