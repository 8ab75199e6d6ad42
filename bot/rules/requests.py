"""What a manager asks for, independent of how it arrived (mail, CLI, tests).

The mail grammar (``bot.mail.grammar``) turns text into these requests; the
league service (``bot.league.service``) carries them out. They live in the
rules core, below both, so that the mail layer needs nothing from the league. Each request
remembers the line it came from so a reply can quote it.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.rules.lineup import Lineup


@dataclass(frozen=True, slots=True)
class Request:
    """Base: ``line`` is the text the request was read from (for replies)."""

    line: str


@dataclass(frozen=True, slots=True)
class SelectTeam(Request):
    """``Team: NAME``: the next ``SetLineup`` without a team is for NAME."""

    team: str


@dataclass(frozen=True, slots=True)
class SetLineup(Request):
    """A lineup for a team (``team`` None: the selected one, or the manager's only team)."""

    team: str | None
    lineup: Lineup


@dataclass(frozen=True, slots=True)
class RegisterTeam(Request):
    """``Neues Team: NAME / SHORT``."""

    name: str
    short_name: str | None = None


@dataclass(frozen=True, slots=True)
class SetShortName(Request):
    """``Kurzname: SHORT`` for the team registered in the same mail."""

    short_name: str


@dataclass(frozen=True, slots=True)
class GivePassword(Request):
    password: str


@dataclass(frozen=True, slots=True)
class SetManagerName(Request):
    name: str


@dataclass(frozen=True, slots=True)
class Withdraw(Request):
    """Take a team out of the open round."""

    team: str


@dataclass(frozen=True, slots=True)
class AskStatus(Request):
    pass


@dataclass(frozen=True, slots=True)
class AskHelp(Request):
    pass


@dataclass(frozen=True, slots=True)
class LineError:
    """A line that could not be understood but must not be ignored
    (e.g. it looks like a lineup but is not a valid one)."""

    line: str
    line_number: int
    reason: str
    example: str


@dataclass(frozen=True, slots=True)
class ParsedMoves:
    """Everything read from one mail: requests in order, errors, ignored lines,
    and the language the writer used ('de' or 'en')."""

    requests: tuple[Request, ...]
    errors: tuple[LineError, ...]
    ignored: tuple[str, ...]
    language: str = "de"
    #: False when nothing in the mail told the language (e.g. a bare lineup):
    #: then ``language`` is only the default and a manager's known language wins.
    language_known: bool = True

    @property
    def empty(self) -> bool:
        return not self.requests and not self.errors
