"""The root of the project's own errors.

Every error the bot raises on purpose derives from :class:`TurnitedError`, so a
caller at the top (the CLI, the worker) can tell "the bot refused, here is why"
from a bug with one ``except``. Errors about a caller's bad input also derive
from ``ValueError`` (as before), so code catching ``ValueError`` keeps working.

This module imports nothing: it sits below every layer, the rules core too.
"""

from __future__ import annotations

__all__ = ["TurnitedError"]


class TurnitedError(Exception):
    """An error of the Turnited bot; its message is one line for a person."""
