"""Turn SIGTERM and SIGINT into a polite stop request.

The handler only calls ``on_stop`` (which sets an event); the worker then
lets the running job finish its transaction and shuts down. The previous
handlers are restored afterwards. Signals can only be handled in the main
thread; elsewhere the context manager does nothing.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


@contextmanager
def stop_on_signals(
    on_stop: Callable[[str], None], signals: tuple[signal.Signals, ...] = STOP_SIGNALS
) -> Iterator[bool]:
    """Call ``on_stop(signal_name)`` on each of ``signals`` while inside the
    block. The handler does nothing else (no logging, no locks), so it is
    safe whatever the interrupted code was doing.

    Yields whether the handlers could be installed (only in the main thread).
    """
    if threading.current_thread() is not threading.main_thread():
        yield False
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        on_stop(signal.Signals(signum).name)

    previous = {sig: signal.signal(sig, handler) for sig in signals}
    try:
        yield True
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
