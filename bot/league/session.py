"""One mail's requests being carried out: the state they share.

A ``MailSession`` lives for one mail, inside the ingest's transaction. It
knows the round the mail counts for (``target``: the open round, or the
next one for a late mail), the sender's manager (None for a stranger until
a request registers him), the team the mail's ``Team:`` line selected, and
collects what the reply will say: ``notices`` (done, or worth knowing) and
``errors`` (refused). The handlers of the requests (``bot.league.moves`` for
the lineup language, ``bot.service.commands`` for the rest) take it as their
first argument; the runner (``bot.service.commands.runner``) makes it.

A team name is looked up by ``find_team`` (RULES.md §11, own team names): the
team of that name (case and spaces ignored), else the sender's team of that
short name, else the sender's team whose name or short name is within two
edits of it (optimal string alignment, ``rapidfuzz``) when that is exactly
one of his teams: ``„Herta Köpenick“`` is read as ``„Hertha Köpenick“`` and
the reply says so (``Code.TEAM_READ_AS``). **Decision**: at most a third of
the name's letters may differ (one edit for names of three to five
characters, none below three), so a short name never reads as another;
and a name that is another manager's team (or a deleted one) but within the
edits of exactly one of the sender's own is read as his own: a lineup for a
team that is not his could do nothing anyway.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TypeVar

from rapidfuzz.distance import OSA

from bot.league.names import name_key
from bot.league.outcome import Code, Notice
from bot.league.settings import LeagueSettings
from bot.rules.requests import ParsedMoves, SetShortName
from bot.storage import teams as team_rows
from bot.storage.managers import ManagerRow
from bot.storage.teams import TeamRow

#: A team name within this many edits of one of the sender's teams is read as it.
MAX_NAME_EDITS = 2


T = TypeVar("T")


def closest(key: str, named: Iterable[tuple[T, str]]) -> T | None:
    """The one thing of ``named`` (thing, one of its names) with a name within
    the allowed edits of ``key`` (a ``name_key``; module doc), or None when
    none or several things are that close."""
    allowed = min(MAX_NAME_EDITS, len(key) // 3)
    close = [thing for thing, name in named
             if OSA.distance(key, name_key(name), score_cutoff=allowed) <= allowed]
    return close[0] if close and all(c == close[0] for c in close) else None


@dataclass
class MailSession:
    """The state of one mail while its requests are carried out (module doc)."""

    conn: sqlite3.Connection
    settings: LeagueSettings
    lot: random.Random
    moves: ParsedMoves
    now: datetime
    #: The round the mail's moves count for.
    target: int
    inbound_id: int | None
    message_id: str | None
    #: The sender's address in the league's spelling (``normalize_address``).
    address: str = ""
    #: The target round's season, its number in the season and its deadline
    #: (None while that round is not opened yet).
    season: int = 0
    round_in_season: int = 0
    deadline: datetime | None = None
    manager: ManagerRow | None = None
    selected: int | None = None
    notices: list[Notice] = field(default_factory=list)
    errors: list[Notice] = field(default_factory=list)
    #: Each ``Kurzname:`` line, by the ``id`` of the registration it belongs to.
    short_names: dict[int, SetShortName] = field(default_factory=dict)

    def note(self, code: str, **params: object) -> None:
        """Tell the reader something (once: the same notice twice is one)."""
        notice = Notice(code, dict(params))
        if notice not in self.notices:
            self.notices.append(notice)

    def fail(self, code: str, **params: object) -> None:
        """Refuse a request: nothing of its team's lines (or of its command) is
        stored (``bot.service.commands.runner``)."""
        self.errors.append(Notice(code, dict(params)))

    def own_teams(self) -> list[TeamRow]:
        assert self.manager is not None
        return team_rows.teams_of_manager(self.conn, self.manager.id)

    def find_team(self, name: str) -> tuple[TeamRow | None, bool]:
        """The team ``name`` stands for (module doc), and whether it was read
        as one of the sender's own from a name that only looks like it."""
        key = name_key(name)
        team = team_rows.team_by_key(self.conn, key)
        own = self.own_teams() if self.manager is not None else []
        if team is not None and team in own:
            return team, False
        if team is None:
            by_short = [t for t in own if name_key(t.short_name) == key]
            if len(by_short) == 1:
                return by_short[0], False
        close = closest(key, [(t, spelling) for t in own for spelling in (t.name, t.short_name)])
        return (close, True) if close is not None else (team, False)

    def resolve(self, name: str, line: str) -> TeamRow | None:
        """The manager's team called ``name`` (``find_team``), or None after
        recording why not."""
        team, read_as = self.find_team(name)
        if team is None:
            own = self.own_teams()
            self.fail(Code.UNKNOWN_TEAM, team=name, line=line, own_teams=[t.name for t in own],
                      max_teams=self.settings.max_teams)
            return None
        if read_as:
            self.note(Code.TEAM_READ_AS, written=name, team=team.name, line=line)
        assert self.manager is not None
        if team.manager_id != self.manager.id:
            self.fail(Code.TEAM_NOT_YOURS, team=team.name, line=line)
            return None
        if team.deleted_round is not None:
            self.fail(Code.TEAM_DELETED, team=team.name, line=line)
            return None
        return team

    def implicit_team(self, line: str) -> TeamRow | None:
        """The team a lineup or withdrawal without a name is for."""
        if self.selected is not None:
            return team_rows.team_by_id(self.conn, self.selected)
        own = self.own_teams()
        if len(own) == 1:
            return own[0]
        if not own:
            self.fail(Code.NO_TEAM, line=line)
        else:
            self.fail(Code.WHICH_TEAM, line=line, own_teams=[t.name for t in own])
        return None
