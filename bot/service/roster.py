"""The game master's read-only views of the league: who plays
(``managers``) and who has not sent a lineup for the open round
(``missing``), as plain values the console prints or dumps as JSON."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from bot.storage import roster, rounds
from bot.storage.db import Database
from bot.storage.roster import MissingTeam, RosterManager


@dataclass(frozen=True, slots=True)
class ManagerView:
    address: str
    display_name: str | None
    language: str | None
    teams: tuple[roster.RosterTeam, ...]
    last_mail: str | None
    bounces: int
    #: None when the state has no ban flag yet.
    banned: bool | None

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "address": self.address,
            "name": self.display_name,
            "language": self.language,
            "teams": [{"name": t.name, "short_name": t.short_name, "wp": float(t.wp),
                       "psz": float(t.psz)} for t in self.teams],
            "last_mail": self.last_mail,
            "bounces": self.bounces,
        }
        if self.banned is not None:
            out["banned"] = self.banned
        return out


@dataclass(frozen=True, slots=True)
class MissingReport:
    round: int
    season: int
    round_in_season: int
    deadline: datetime
    teams: tuple[MissingTeam, ...]

    def as_dict(self) -> dict[str, object]:
        return {
            "round": self.round, "season": self.season,
            "round_in_season": self.round_in_season, "deadline": self.deadline.isoformat(),
            "teams": [{"name": t.team, "short_name": t.short_name, "address": t.address,
                       "manager": t.display_name} for t in self.teams],
        }


def _view(m: RosterManager) -> ManagerView:
    return ManagerView(m.address, m.display_name, m.language, m.teams, m.last_mail,
                       m.bounces, m.banned)


def managers(db: Database, *, with_retired: bool = False) -> list[ManagerView]:
    """Every manager with a team (``with_retired``: every one), oldest first."""
    with db.read() as conn:
        return [_view(m) for m in roster.roster(conn, with_retired=with_retired)]


def missing(db: Database) -> MissingReport | None:
    """The open round's teams without a move; None when no round is open."""
    with db.read() as conn:
        rnd = rounds.open_round(conn)
        if rnd is None:
            return None
        teams = roster.teams_without_lineup(conn, rnd.number)
    return MissingReport(rnd.number, rnd.season, rnd.round_in_season, rnd.deadline,
                         tuple(teams))
