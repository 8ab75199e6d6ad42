"""Passwords of the mail servers: given directly or named by an environment
variable, read only when a connection logs in, and never shown.

The settings of a transport keep ``password`` (a value written in the
configuration, not recommended) or ``password_env`` (the name of the
variable); ``login_password`` reads the variable at the moment it is needed,
so commands that never connect need no password variables.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from typing import Any

from bot.mail.transport import TransportConfigError

#: Shown instead of a password.
REDACTED = "'***'"


def login_password(
    setting: str,
    password: str | None,
    password_env: str | None,
    environ: Mapping[str, str] | None = None,
) -> str | None:
    """The password to log in with, or None when none is configured.

    ``password`` wins; otherwise ``password_env`` is looked up in
    ``environ`` (default ``os.environ``) now. An unset or empty variable is
    a ``TransportConfigError`` naming ``setting`` (``imap.password_env``)
    and the variable.
    """
    if password is not None:
        return password
    if password_env is None:
        return None
    value = (os.environ if environ is None else environ).get(password_env)
    if not value:
        state = "is not set" if value is None else "is empty"
        raise TransportConfigError(
            setting, password_env,
            f"an environment variable holding the password (variable {password_env!r} {state})",
        )
    return value


def redacted_repr(settings: Any) -> str:
    """``repr`` of a settings dataclass: every field but ``environ``, and a
    password only as ``'***'``."""
    parts = []
    for f in dataclasses.fields(settings):
        if f.name == "environ":
            continue
        value = getattr(settings, f.name)
        shown = REDACTED if f.name == "password" and value is not None else repr(value)
        parts.append(f"{f.name}={shown}")
    return f"{type(settings).__name__}({', '.join(parts)})"
