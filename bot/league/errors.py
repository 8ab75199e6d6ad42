"""Typed errors of the league service (input errors are ``ValueError``s)."""

from __future__ import annotations

from bot.errors import TurnitedError


class LeagueError(TurnitedError, ValueError):
    """Base class of the league service's errors."""


class NoOpenRound(LeagueError):
    """The league has no open round: it was never started."""

    def __init__(self) -> None:
        super().__init__(
            "the league has no open round yet: round 1 opens, with the first deadline "
            "of schedule.deadlines, when the bot starts (turnited run)"
        )


class UnknownRound(LeagueError):
    def __init__(self, number: int, what: str = "exists") -> None:
        self.number = number
        super().__init__(f"round {number!r}: no such round {what}")


class RoundNotOpen(LeagueError):
    def __init__(self, number: int) -> None:
        self.number = number
        super().__init__(f"round {number} is already evaluated; only the open round can change")


class BadAddress(LeagueError):
    def __init__(self, address: str) -> None:
        self.address = address
        super().__init__(
            f"sender address {address!r} is not a mail address; expected 'name@domain'"
        )


class BadTime(LeagueError):
    def __init__(self, what: str, value: object) -> None:
        super().__init__(
            f"{what} {value!r} must be a timezone-aware datetime (UTC inside the program)"
        )
