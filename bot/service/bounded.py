"""Run one piece of per-mail work under a time budget that really holds.

A thread with a timeout cannot stop CPU-bound Python, and a signal timer
works only in the main thread (the worker's jobs run in APScheduler's
threads). So the work that depends on a mail's content — reading the MIME
structure, classifying, the grammar — is a pure function of the raw bytes,
and ``run_bounded`` runs it either

* in this process (``isolate=False``): the fast path for a mail that never
  failed and is small. Reading and the grammar are linear in the size
  (no backtracking pattern), and the size is capped before the work starts
  (``mail.limits``), so the time is bounded by size × the worst rate: bench
  figures 7 ms per KB for a body of lineup-shaped lines (the slowest shape
  found), i.e. < 0.5 s for the ``ISOLATE_ABOVE`` of 64 KiB, far under the
  20 s budget; or
* in a forked child process (``isolate=True``) that is killed (SIGKILL) when
  the budget is over: for every mail that failed before and every larger
  mail. Whatever the child does — an endless loop, a long C call, running
  out of memory — the caller gets ``HandlingTimeout`` or ``HandlingFailed``
  after at most ``seconds``. Measured cost of the fork and the pickled
  result: about 30 ms per mail on the 2-core test machine (only these mails
  pay it).

The child only computes; it never touches the database, the spool or a
socket (those stay in the parent), so killing it loses nothing.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
import time
import traceback
from collections.abc import Callable
from typing import Any, TypeVar

from bot.errors import TurnitedError

T = TypeVar("T")

#: A mail larger than this (bytes) is read in a child process from its first attempt.
ISOLATE_ABOVE = 64 * 1024


class HandlingTimeout(TurnitedError, TimeoutError):
    """The work for one mail ran longer than its budget and was stopped."""

    def __init__(self, seconds: float) -> None:
        super().__init__(
            f"handling the mail took longer than {seconds:g} s (mail.limits.handling_seconds); "
            "it was stopped"
        )
        self.seconds = seconds


class HandlingFailed(TurnitedError, RuntimeError):
    """The isolated work raised (``detail`` is the child's exception line) or died."""


def run_bounded(
    work: Callable[..., T], *args: Any, seconds: float, isolate: bool
) -> T:
    """``work(*args)``; with ``isolate`` in a child process killed after
    ``seconds`` (``HandlingTimeout``; an exception in the child is
    ``HandlingFailed``). ``work`` and its result must be picklable."""
    if not isolate:
        return work(*args)
    context = (multiprocessing.get_context("fork") if os.name == "posix"
               else multiprocessing.get_context("spawn"))
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(sender, work, args), daemon=True)
    child.start()
    sender.close()
    deadline = time.monotonic() + seconds
    try:
        if not receiver.poll(max(0.0, deadline - time.monotonic())):
            raise HandlingTimeout(seconds)
        try:
            ok, payload = pickle.loads(receiver.recv_bytes())
        except (EOFError, OSError) as exc:
            raise HandlingFailed(f"the child process died ({exc or 'no result'})") from None
        if not ok:
            raise HandlingFailed(payload)
        return payload
    finally:
        receiver.close()
        if child.is_alive():
            os.kill(child.pid, signal.SIGKILL)  # type: ignore[arg-type]
        child.join(5)


def _child(sender: Any, work: Callable[..., Any], args: tuple[Any, ...]) -> None:
    try:
        result: tuple[bool, Any] = (True, work(*args))
    except BaseException as exc:  # reported to the parent, which decides
        line = traceback.format_exception_only(type(exc), exc)[-1].strip()
        result = (False, line)
    try:
        sender.send_bytes(pickle.dumps(result))
    finally:
        sender.close()
