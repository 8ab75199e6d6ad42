"""Typed errors of the rendering layer.

Each error quotes the offending input, names the rule it breaks and says
what would be right, like the errors of the rules core.
"""

from __future__ import annotations

from bot.errors import TurnitedError


class RenderError(TurnitedError, ValueError):
    """Base class of every error raised while rendering player-facing text."""


class UnknownLanguageError(RenderError):
    """A language for which there are no templates."""

    def __init__(self, language: object, known: tuple[str, ...]) -> None:
        self.language = language
        self.known = known
        super().__init__(
            f"unknown language {language!r}: player texts exist only in "
            f"{', '.join(repr(k) for k in known)}; pass one of those"
        )


class LineupLeakError(RenderError):
    """A report handed to a public renderer still contains a player lineup.

    RULES.md §5/§8: GM lineups are published, player lineups never are. The
    newsletter and the archive only accept ``RoundReport.public()`` (or its
    JSON, ``bot.rules.report.public_report``).
    """

    def __init__(self, where: str, team: object) -> None:
        self.where = where
        self.team = team
        super().__init__(
            f"player lineup of team {team!r} found at {where}: player lineups are never "
            f"published (RULES.md §8); render report.public() (public_report(report)), "
            f"not the full report"
        )


class InvalidReportError(RenderError):
    """A report that does not have the documented shape of ``RoundReport.to_json``."""

    def __init__(self, where: str, value: object, expected: str) -> None:
        self.where = where
        self.value = value
        super().__init__(f"report {where} is {value!r}: expected {expected}")


class InvalidTimeError(RenderError):
    """A naive datetime or an unknown time zone."""
