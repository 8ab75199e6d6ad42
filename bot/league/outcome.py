"""What a mail did, as language-neutral data for the reply renderer.

``League.submit`` returns a ``MoveOutcome``. Every message to the manager is
a ``Notice(code, params)`` with a ``Code`` (a ``StrEnum``: its values are
the strings stored and rendered); the renderer has one German and one English
sentence per code (``CODES`` below documents each code and its params).
Informational notices go to ``MoveOutcome.notices``, rejections to
``MoveOutcome.errors``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from enum import StrEnum
from typing import Any

from bot.rules.corrections import CorrectedLineup
from bot.rules.lineup import Lineup
from bot.rules.requests import LineError, ReadNote


class Code(StrEnum):
    """Every notice and error code (values are stored in the ledger and read by
    the reply templates, so they never change)."""

    # -- notices (something was done or is worth knowing) -------------------------
    MANAGER_CREATED = "manager_created"
    PASSWORD_ISSUED = "password_issued"
    MANAGER_NAME_SET = "manager_name_set"
    TEAM_REGISTERED = "team_registered"
    NAME_SHORTENED = "name_shortened"
    SHORT_NAME_DERIVED = "short_name_derived"
    SHORT_NAME_SHORTENED = "short_name_shortened"
    SHORT_NAME_SUFFIXED = "short_name_suffixed"
    LINEUP_SET = "lineup_set"
    LINEUP_REPLACED = "lineup_replaced"
    LINEUP_UNCHANGED = "lineup_unchanged"
    LINEUP_CORRECTED = "lineup_corrected"
    WITHDRAWN = "withdrawn"
    REGISTRATION_WITHDRAWN = "registration_withdrawn"
    TEAM_WILL_BE_DELETED = "team_will_be_deleted"
    DELETION_CANCELLED = "deletion_cancelled"
    LATE = "late"
    STATUS = "status"
    NOT_REGISTERED = "not_registered"
    HELP = "help"
    NOTHING_TO_DO = "nothing_to_do"
    NOTHING_CHANGED = "nothing_changed"

    # -- errors (a request was refused; the whole mail then changes nothing) -----
    PASSWORD_MISSING = "password_missing"
    PASSWORD_WRONG = "password_wrong"
    LINE_ERROR = "line_error"
    NAME_TAKEN = "name_taken"
    NAME_RESERVED = "name_reserved"
    NAME_GM_LOOK_ALIKE = "name_gm_look_alike"
    NAME_CONFUSABLE = "name_confusable"
    NAME_EMPTY = "name_empty"
    TOO_MANY_TEAMS = "too_many_teams"
    UNKNOWN_TEAM = "unknown_team"
    TEAM_NOT_YOURS = "team_not_yours"
    TEAM_DELETED = "team_deleted"
    WHICH_TEAM = "which_team"
    NO_TEAM = "no_team"
    SHORT_NAME_WITHOUT_TEAM = "short_name_without_team"


# Module-level names, as the league and the tests spell them (``oc.HELP``).
MANAGER_CREATED = Code.MANAGER_CREATED
PASSWORD_ISSUED = Code.PASSWORD_ISSUED
MANAGER_NAME_SET = Code.MANAGER_NAME_SET
TEAM_REGISTERED = Code.TEAM_REGISTERED
NAME_SHORTENED = Code.NAME_SHORTENED
SHORT_NAME_DERIVED = Code.SHORT_NAME_DERIVED
SHORT_NAME_SHORTENED = Code.SHORT_NAME_SHORTENED
SHORT_NAME_SUFFIXED = Code.SHORT_NAME_SUFFIXED
LINEUP_SET = Code.LINEUP_SET
LINEUP_REPLACED = Code.LINEUP_REPLACED
LINEUP_UNCHANGED = Code.LINEUP_UNCHANGED
LINEUP_CORRECTED = Code.LINEUP_CORRECTED
WITHDRAWN = Code.WITHDRAWN
REGISTRATION_WITHDRAWN = Code.REGISTRATION_WITHDRAWN
TEAM_WILL_BE_DELETED = Code.TEAM_WILL_BE_DELETED
DELETION_CANCELLED = Code.DELETION_CANCELLED
LATE = Code.LATE
STATUS = Code.STATUS
NOT_REGISTERED = Code.NOT_REGISTERED
HELP = Code.HELP
NOTHING_TO_DO = Code.NOTHING_TO_DO
NOTHING_CHANGED = Code.NOTHING_CHANGED
PASSWORD_MISSING = Code.PASSWORD_MISSING
PASSWORD_WRONG = Code.PASSWORD_WRONG
LINE_ERROR = Code.LINE_ERROR
NAME_TAKEN = Code.NAME_TAKEN
NAME_RESERVED = Code.NAME_RESERVED
NAME_GM_LOOK_ALIKE = Code.NAME_GM_LOOK_ALIKE
NAME_CONFUSABLE = Code.NAME_CONFUSABLE
NAME_EMPTY = Code.NAME_EMPTY
TOO_MANY_TEAMS = Code.TOO_MANY_TEAMS
UNKNOWN_TEAM = Code.UNKNOWN_TEAM
TEAM_NOT_YOURS = Code.TEAM_NOT_YOURS
TEAM_DELETED = Code.TEAM_DELETED
WHICH_TEAM = Code.WHICH_TEAM
NO_TEAM = Code.NO_TEAM
SHORT_NAME_WITHOUT_TEAM = Code.SHORT_NAME_WITHOUT_TEAM

#: Every code with what it means and its params (the renderer's checklist).
CODES: dict[Code, str] = {
    MANAGER_CREATED: "A new manager was created for this address. params: address, "
    "password (the generated password, or None when passwords are off).",
    PASSWORD_ISSUED: "The manager had no password; this one was generated and must be "
    "given in every later mail. params: password.",
    MANAGER_NAME_SET: "The manager's display name is now `name`. params: name.",
    TEAM_REGISTERED: "A new team was registered; it plays from `round` on. params: team, "
    "short_name, round, wp (initial WP).",
    NAME_SHORTENED: "The team name was longer than `limit` characters and was shortened. "
    "params: given, name, limit.",
    SHORT_NAME_DERIVED: "No short name was given; this one was derived from the team name. "
    "params: team, short_name.",
    SHORT_NAME_SHORTENED: "The short name was longer than `limit` characters and was "
    "shortened. params: team, given, short_name, limit.",
    SHORT_NAME_SUFFIXED: "The short name reads the same as the stored team `other`'s "
    "(case, spaces, look-alike letters ignored): the new team got a number once, at "
    "registration, and keeps `short_name` for good (RULES.md §7). params: team, given "
    "(the short name before the suffix), short_name, other (the other team's name).",
    LINEUP_SET: "The lineup was stored for the round. params: team, lineup (as sent, "
    "canonical T-A-V-M-S), round.",
    LINEUP_REPLACED: "The lineup replaces the one stored before for this round. params: "
    "team, lineup, previous, round.",
    LINEUP_UNCHANGED: "The same lineup was already stored; nothing changed. params: team, "
    "lineup, round.",
    LINEUP_CORRECTED: "With the team's current budget the lineup will be corrected. params: "
    "team, lineup (sent), played (after corrections), budget (floor(WP)), corrections "
    "(list of {rule: back_cap|three_to_one|budget, row, from, to}).",
    WITHDRAWN: "The team is taken out of the round; it does not play unless a new lineup "
    "comes before the deadline. params: team, round, had_lineup (bool).",
    REGISTRATION_WITHDRAWN: "The team registered for this round was withdrawn before the "
    "deadline: it never existed (RULES.md §7): its moves are gone and its name is free "
    "again. params: team, round.",
    TEAM_WILL_BE_DELETED: "The manager would own more than two teams: this (weaker) team "
    "will be deleted for good when round `round` is evaluated, unless the new team's "
    "registration is withdrawn before the deadline. params: team, wp, round, because "
    "(the new team's name).",
    DELETION_CANCELLED: "The announced deletion of this team is cancelled (the new team "
    "was withdrawn). params: team.",
    LATE: "The mail came after the deadline of round `missed`: everything in it counts for "
    "round `round`. params: missed, deadline (the missed one), round.",
    STATUS: "The manager asked for the status; the teams' states are in MoveOutcome.teams. "
    "params: season, round, round_in_season, deadline (datetime or None).",
    NOT_REGISTERED: "The sender is not a manager yet (asked for status or help only). "
    "params: address.",
    HELP: "The manager asked for help; the reply should contain the command summary.",
    NOTHING_TO_DO: "The mail contained no command at all.",
    NOTHING_CHANGED: "Because of the errors listed, nothing in this mail was stored.",
    PASSWORD_MISSING: "This manager has a password but the mail does not contain it "
    "(`Passwort: ...` / `Password: ...`); nothing was changed. params: address.",
    PASSWORD_WRONG: "The password in the mail is wrong; nothing was changed. params: "
    "address.",
    LINE_ERROR: "A line could not be read (e.g. an invalid lineup). params: line, "
    "line_number, reason, example, kind (unreadable|too_long), part (the exact part not "
    "read, or None), suggestion (the player's numbers in the right form, or None), limit.",
    NAME_TAKEN: "A team with this name (ignoring case and spaces) exists or existed; a team "
    "that played keeps its name forever (only a registration withdrawn before it ever "
    "played frees it, RULES.md §7). params: name, line.",
    NAME_RESERVED: "Team names must not start with 'GM ' (reserved for the GM teams). "
    "params: name, line.",
    NAME_GM_LOOK_ALIKE: "The name reads like a GM team ('GM' and a lineup in another "
    "spelling: look-alike letters, separators, format characters). params: name, line.",
    NAME_CONFUSABLE: "The name looks the same as a team that exists or existed (`other`; "
    "UTS #39 confusable skeletons). params: name, other, line.",
    NAME_EMPTY: "The team name is empty. params: line.",
    TOO_MANY_TEAMS: "A manager owns at most `limit` teams and none of the older teams can "
    "make room: every own team (`new_teams`) was registered in this round, and only a team "
    "registered before can be deleted for a new one. The fix: withdraw one of the new "
    "registrations (`Zurückziehen: <withdraw>`; that registration is then deleted and its "
    "name free) before `Neues Team:` in the same mail. params: team, limit, line, new_teams, "
    "withdraw.",
    UNKNOWN_TEAM: "No team of this name exists. params: team, line, own_teams (names).",
    TEAM_NOT_YOURS: "The team belongs to another manager. params: team, line.",
    TEAM_DELETED: "The team was deleted and cannot play any more. params: team, line.",
    WHICH_TEAM: "A lineup without a team name, but the manager has several teams: say "
    "which (`Team: NAME` or `NAME: LINEUP`). params: line, own_teams.",
    NO_TEAM: "A lineup or withdrawal but the manager has no team yet: register one with "
    "`Neues Team: NAME / SHORT`. params: line.",
    SHORT_NAME_WITHOUT_TEAM: "A short name can only be given for a team registered in the "
    "same mail (teams cannot be renamed). params: short_name, line.",
}


@dataclass(frozen=True, slots=True)
class Notice:
    """One message to the manager: a code of ``CODES`` and its params."""

    code: Code
    params: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "code", Code(self.code))
        except ValueError:
            raise ValueError(
                f"unknown notice code {self.code!r}; known: {sorted(CODES)}"
            ) from None


@dataclass(frozen=True, slots=True)
class ManagerInfo:
    address: str
    display_name: str | None
    is_new: bool
    #: The generated password to tell the manager (only once), else None.
    new_password: str | None = None


@dataclass(frozen=True, slots=True)
class TeamState:
    """One of the manager's teams as it stands for the round the mail counts for."""

    name: str
    short_name: str
    wp: Decimal
    budget: int
    psz: Decimal
    #: The stored lineup for the round (as sent), None if none or withdrawn.
    lineup: Lineup | None
    #: What will play if the budget stays as it is now (None without lineup).
    corrected: CorrectedLineup | None
    #: The lineup stored before this mail (None if there was none).
    previous: Lineup | None
    #: True when this mail changed the team's lineup or withdrawal.
    changed: bool
    withdrawn: bool
    #: Announced for deletion at the evaluation of the round.
    doomed: bool
    registered_this_round: bool


@dataclass(frozen=True, slots=True)
class MoveOutcome:
    """Everything the reply to one mail needs."""

    manager: ManagerInfo | None
    accepted: bool
    #: The round the mail's moves count for.
    round: int
    #: True when the mail came after the deadline and counts for the next round.
    late: bool
    #: Deadline of ``round`` (None if that round is not opened yet).
    deadline: datetime | None
    notices: list[Notice] = field(default_factory=list)
    errors: list[Notice] = field(default_factory=list)
    teams: list[TeamState] = field(default_factory=list)
    ignored: tuple[str, ...] = ()
    line_errors: tuple[LineError, ...] = ()
    language: str = "de"
    #: How the grammar read the mail as meant (typos, comments, signatures).
    read_notes: tuple[ReadNote, ...] = ()
    #: The display name of the mail's From header (the greeting until a
    #: ``Manager:`` name is known).
    sender_name: str | None = None

    def codes(self) -> list[Code]:
        """All notice and error codes in order (handy for logs and tests)."""
        return [n.code for n in self.notices] + [e.code for e in self.errors]

    @property
    def summary(self) -> str:
        """A short English line for the ledger (``inbound.outcome``)."""
        state = "accepted" if self.accepted else "rejected"
        return f"{state} round {self.round}: " + ", ".join(self.codes())
