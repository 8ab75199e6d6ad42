"""One worker per state directory: an exclusive lock on ``STATE/worker.lock``.

The lock is an ``fcntl.flock`` on the open file, so the operating system
releases it when the process ends in any way (even ``kill -9``); no stale
lock file can block a restart. The holder writes its process id into the
file so a second worker can say who holds it.

(Not ``filelock``: it cannot say who holds a lock, and on file systems
without ``flock`` it falls back to a marker file that a killed process
leaves behind, the stale lock this module exists to rule out.)
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from types import TracebackType
from typing import IO

from bot.errors import TurnitedError

LOCK_FILE = "worker.lock"


class WorkerLockedError(TurnitedError, RuntimeError):
    """Another worker already runs on this state directory."""

    def __init__(self, path: Path, pid: int | None) -> None:
        self.path = path
        self.pid = pid
        who = f"process {pid}" if pid is not None else "another process"
        super().__init__(
            f"another worker is already running on {path.parent} ({who} holds {path}); "
            "only one worker per state directory may run: stop it first, "
            "or give this one another state_dir"
        )


class WorkerLock:
    """Context manager holding the worker lock of ``state_dir``.

    ``acquire()`` raises ``WorkerLockedError`` at once (it never waits) when
    another process holds it.
    """

    def __init__(self, state_dir: Path) -> None:
        self.path = Path(state_dir) / LOCK_FILE
        self._file: IO[str] | None = None

    def __repr__(self) -> str:
        state = "held" if self.held else "free"
        return f"WorkerLock({str(self.path)!r}, {state})"

    @property
    def held(self) -> bool:
        return self._file is not None

    def acquire(self) -> None:
        if self._file is not None:
            raise RuntimeError(f"{self.path} is already held by this WorkerLock")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(self.path, "a+", encoding="ascii")  # noqa: SIM115 - held until release()
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            text = handle.read().strip()
            handle.close()
            raise WorkerLockedError(self.path, int(text) if text.isdigit() else None) from None
        except BaseException:
            handle.close()
            raise
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n")
        handle.flush()
        self._file = handle

    def release(self) -> None:
        handle, self._file = self._file, None
        if handle is None:
            return
        try:
            handle.seek(0)
            handle.truncate()
            handle.flush()
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
        finally:
            handle.close()

    def __enter__(self) -> WorkerLock:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()


def read_lock_holder(state_dir: Path) -> int | None:
    """The pid written by the current holder, if a worker holds the lock."""
    path = Path(state_dir) / LOCK_FILE
    try:
        handle = open(path, encoding="ascii")  # noqa: SIM115
    except FileNotFoundError:
        return None
    with handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            text = handle.read().strip()
            return int(text) if text.isdigit() else None
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
        return None
