"""What a manager asks for, independent of how it arrived (mail, CLI, tests).

The mail grammar (``bot.mail.grammar``) turns text into requests; the
command runner (``bot.service.commands``) carries them out. Each request
remembers the line it came from so a reply can quote it. Here: the base
``Request`` and the requests of the lineup language, which the grammar
reads by their shape (the other commands declare their request types with
their handlers, in ``bot.service.commands``), and what else the grammar
reports. Pure dataclasses (they live in the rules core so that every layer
above may use them).
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


#: A lineup stands for at most this many rounds (RULES.md §12).
MAX_ROUNDS_AHEAD = 5


@dataclass(frozen=True, slots=True)
class SetLineupAhead(SetLineup):
    """``NAME: L für N Runden`` / ``... for N rounds``: the lineup for the round
    the mail counts for and the ``rounds`` - 1 after it (RULES.md §12; the
    handler refuses more than ``MAX_ROUNDS_AHEAD``)."""

    rounds: int


@dataclass(frozen=True, slots=True)
class RegisterTeam(Request):
    """``Neues Team: NAME / SHORT``; ``implied``: read from a first mail's
    ``Team: NAME`` or ``NAME: LINEUP`` (RULES.md §11), not written as such."""

    name: str
    short_name: str | None = None
    implied: bool = False


@dataclass(frozen=True, slots=True)
class SetShortName(Request):
    """``Kurzname: SHORT`` for the team registered in the same mail."""

    short_name: str


@dataclass(frozen=True, slots=True)
class GivePassword(Request):
    password: str


#: ``LineError.kind``: a line that looks like a lineup (or a keyword with a
#: missing value) but cannot be read.
UNREADABLE = "unreadable"
#: ``LineError.kind``: a command line (or the Subject) longer than the grammar
#: reads; ``limit`` is the limit, ``length`` the line's length.
TOO_LONG = "too_long"


#: ``LineError.scope`` (RULES.md §11, each team stands alone): a lineup or
#: registration line; it keeps its team from being stored (``LineError.team``,
#: or with no team named, the team the line would be for: the one selected
#: before it, else the manager's only team, else the whole mail).
TEAM_SCOPE = "team"
#: ``LineError.scope``: a command's own line (a value it cannot read); the
#: rest of the mail is carried out.
LINE_SCOPE = "line"
#: ``LineError.scope``: a line too long to read, which could be anything;
#: nothing of the mail is stored.
MAIL_SCOPE = "mail"


@dataclass(frozen=True, slots=True)
class LineError:
    """A line that could not be understood but must not be ignored
    (e.g. it looks like a lineup but is not a valid one).

    ``line`` is the line as read (for a too-long line: its beginning and
    ``…``); ``part`` the exact part that could not be read (e.g. the text
    after the keyword), ``suggestion`` the player's own numbers in the right
    form when they are recognisable (``10-10-15-15-20``), else None.
    ``scope`` and ``team``: what the error keeps from being stored (the
    ``*_SCOPE`` constants above).
    """

    line: str
    line_number: int
    reason: str
    example: str
    kind: str = UNREADABLE
    part: str | None = None
    suggestion: str | None = None
    limit: int | None = None
    length: int | None = None
    scope: str = TEAM_SCOPE
    team: str | None = None


#: ``ReadNote.kind``: a mistyped keyword read as the keyword
#: (``text`` the word as written, ``value`` the keyword it was read as).
TYPO = "typo"
#: ``ReadNote.kind``: a comment on a command line, skipped (``text`` the
#: comment as written, e.g. ``(diesmal offensiv)`` or ``# wie immer``).
COMMENT = "comment"
#: ``ReadNote.kind``: a sign-off and the name below it, not read
#: (``text`` the lines joined with `` / ``).
SIGNATURE = "signature"
#: ``ReadNote.kind``: a line of ordinary text longer than the grammar reads,
#: skipped (``text`` its beginning, ``value`` the limit).
LONG_TEXT = "long_text"


@dataclass(frozen=True, slots=True)
class ReadNote:
    """Something the grammar did to read a line as it was meant, which the
    reply names (a typo read as a keyword, a comment skipped, a signature)."""

    kind: str
    line_number: int
    text: str
    value: str | None = None


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
    #: Typos read as keywords, comments skipped, signatures, long text lines.
    notes: tuple[ReadNote, ...] = ()
    #: Lines that are plainly a message to a person (a question, sentences):
    #: the mail is forwarded to the game master (RULES.md §11).
    prose: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.requests and not self.errors
