"""What a mail did, as language-neutral data for the reply renderer.

The command runner (``bot.service.commands.runner``) returns a
``MoveOutcome``. Every message to the manager is a ``Notice(code, params)``;
each code has one small template, ``templates/mail/notice/<code>.txt.j2``,
for both languages (its header documents the code and its params).
Informational notices go to ``MoveOutcome.notices``, rejections to
``MoveOutcome.errors``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from enum import StrEnum
from typing import Any

from bot.rules.corrections import CorrectedLineup
from bot.rules.lineup import Lineup
from bot.rules.requests import LineError, ReadNote

#: What a notice code looks like (it names its template file).
_CODE = re.compile(r"[a-z][a-z0-9_]*")


class Code(StrEnum):
    """The league's notice and error codes (values are stored in the ledger and
    name the reply's templates, so they never change)."""

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
    FORWARDED = "forwarded"
    PARTLY_STORED = "partly_stored"
    TEAM_REGISTERED_BY_NAME = "team_registered_by_name"
    TEAM_READ_AS = "team_read_as"

    # -- errors (a request was refused; the whole mail then changes nothing) -----
    PASSWORD_MISSING = "password_missing"
    PASSWORD_WRONG = "password_wrong"
    TOO_MANY_PASSWORDS = "too_many_passwords"
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
    GM_ONLY = "gm_only"


@dataclass(frozen=True, slots=True)
class Notice:
    """One message to the manager: a code and its params. The code names the
    template that words it, ``templates/mail/notice/<code>.txt.j2`` (whose
    header says what it means and which params it reads); the league's codes
    are ``Code``, a command's own are declared with it (``bot.service.commands``)."""

    code: str
    params: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not (isinstance(self.code, str) and _CODE.fullmatch(self.code)):
            raise ValueError(f"a notice code is a lower-case name such as 'lineup_set', "
                             f"not {self.code!r}")


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
    #: The last round a lineup sent for several rounds stands for (RULES.md §12),
    #: None for a lineup of this round alone.
    until: int | None = None


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
    #: The reply goes to this address (and name) instead of the mail's sender:
    #: a manager's registered address (a lost password), never a Reply-To.
    reply_to: str | None = None
    reply_to_name: str | None = None
    #: The ledger's code and line for the mail when a command wrote its own.
    ledger: tuple[str, str] | None = None
    #: The commitment of ``round``'s seed (RULES.md §4) when the mail stored a
    #: lineup for it, else None.
    commitment: str | None = None

    def codes(self) -> list[str]:
        """All notice and error codes in order (handy for logs and tests)."""
        return [n.code for n in self.notices] + [e.code for e in self.errors]

    @property
    def summary(self) -> str:
        """A short English line for the ledger (``inbound.outcome``)."""
        if self.ledger is not None:
            return f"{self.ledger[0]}: {self.ledger[1]}"
        state = "accepted" if self.accepted else "rejected"
        return f"{state} round {self.round}: " + ", ".join(self.codes())
