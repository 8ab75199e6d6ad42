"""A running Dovecot for one test, whatever its options: ``running_dovecot``.

The one start-and-remove of a ``tests.servers.DovecotServer`` built with
options of a test's own (an OAuth2 introspection URL, TLS, a name); the
plain server is the ``dovecot`` fixture of ``tests.servers``."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest

from tests.servers import DovecotServer, ServerMissingError


@contextlib.contextmanager
def running_dovecot(*args: Any, **options: Any) -> Iterator[DovecotServer]:
    """``DovecotServer(*args, **options)`` started, and removed when the block
    ends; fails (never skips) when Dovecot is not installed."""
    try:
        server = DovecotServer(*args, **options)
    except ServerMissingError as exc:
        pytest.fail(str(exc), pytrace=False)
    try:
        server.start()
        yield server
    finally:
        server.remove()
