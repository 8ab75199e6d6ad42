"""Turn SIGTERM and SIGINT into a polite stop request.

The handler only calls ``on_stop`` (which sets an event); the worker then
lets the running job finish its transaction and shuts down. The previous
handlers are restored afterwards. Signals can only be handled in the main
thread; elsewhere the context manager does nothing.
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

from bot.worker.logs import log_event

log = logging.getLogger(__name__)

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


@contextmanager
def stop_on_signals(
    on_stop: Callable[[], None], signals: tuple[signal.Signals, ...] = STOP_SIGNALS
) -> Iterator[bool]:
    """Call ``on_stop`` on each of ``signals`` while inside the block.

    Yields whether the handlers could be installed (only in the main thread).
    """
    if threading.current_thread() is not threading.main_thread():
        yield False
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        log_event(log, "signal_received", signal=signal.Signals(signum).name)
        on_stop()

    previous = {sig: signal.signal(sig, handler) for sig in signals}
    try:
        yield True
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
