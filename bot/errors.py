"""The root of the project's own errors.

Every error the bot raises on purpose derives from :class:`TurnitedError`, so a
caller at the top (the CLI, the worker) can tell "the bot refused, here is why"
from a bug with one ``except``. Errors about a caller's bad input also derive
from ``ValueError`` (as before), so code catching ``ValueError`` keeps working.

An error a person reads may carry ``words``: its message as the message
catalog keys it (English, ``%(name)s`` placeholders, marked with ``N_`` so
``scripts/i18n`` extracts it) and the values. The console then says it in
the game's language (``bot.render.words``); ``str(error)`` stays English.

This module imports nothing: it sits below every layer, the rules core too.
"""

from __future__ import annotations

__all__ = ["N_", "TurnitedError"]


def N_(message: str) -> str:
    """Mark ``message`` for the message catalog (Babel extracts ``N_`` calls);
    it is translated where it is said."""
    return message


class TurnitedError(Exception):
    """An error of the Turnited bot; its message is one line for a person."""

    #: The catalog message and its values (None: the error is said as ``str()``).
    words: tuple[str, dict[str, object]] | None = None
