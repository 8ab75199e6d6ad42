"""Shared pytest fixtures. Keep this file small: the fixtures live in
their own modules and are registered here with one import each."""

from __future__ import annotations

from tests.servers import dovecot, smtp_server  # noqa: F401
