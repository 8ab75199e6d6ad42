"""Typed errors of the rules core.

Modelled on python-chess: every error is a ``ValueError`` that quotes the
offending input, names the rule, and says what would be right.
"""

from __future__ import annotations

from bot.errors import TurnitedError


class RulesError(TurnitedError, ValueError):
    """Base class of every error raised by the rules core."""


class InvalidLineupError(RulesError):
    """A lineup that cannot be read: not five whole non-negative numbers."""

    def __init__(self, text: str, reason: str) -> None:
        self.text = text
        self.reason = reason
        super().__init__(
            f"invalid lineup {text!r}: {reason}; expected five whole numbers "
            f"T-A-V-M-S, e.g. '10-10-15-15-20'"
        )


class IllegalLineupError(RulesError):
    """A well-formed lineup that breaks a rule (back cap or the 3:1 rule)."""

    def __init__(self, text: str, rule: str, detail: str) -> None:
        self.text = text
        self.rule = rule
        self.detail = detail
        super().__init__(f"illegal lineup {text!r}: {rule}: {detail}")


class InvalidResultError(RulesError):
    """A game result that is not a win, draw or loss."""


class InvalidWPError(RulesError):
    """A WP value that is not a finite, non-negative decimal number."""
