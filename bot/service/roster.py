"""The game master's read-only views of the league: who plays
(``managers``) and who has not sent a lineup for the open round
(``missing``), as plain values the console prints or dumps as JSON and a
mail can say."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from bot.service.context import Context
from bot.storage import roster, rounds
from bot.storage.roster import MissingTeam, RosterManager
from bot.storage.values import time_from_db

if TYPE_CHECKING:
    from bot.render.words import Words


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
class ManagersReport:
    managers: tuple[ManagerView, ...]
    #: Listed also the managers without a team.
    with_retired: bool

    @property
    def bans_known(self) -> bool:
        """Whether the state has a ban flag (an old one may not)."""
        return not self.managers or self.managers[0].banned is not None

    def as_list(self) -> list[dict[str, object]]:
        return [m.as_dict() for m in self.managers]

    def lines(self, w: Words) -> list[str]:
        if not self.managers:
            return [w._("No manager has a team yet.")]
        out = [w.ngettext("%(num)s manager with a team:", "%(num)s managers with a team:",
                          len(self.managers))]
        for m in self.managers:
            last = time_from_db(m.last_mail) if m.last_mail else None
            parts = [m.address, m.display_name or "-",
                     m.language or w._("language unknown"),
                     w._("last mail %(when)s", when=last) if last else w._("no mail yet"),
                     w.ngettext("%(num)s bounce", "%(num)s bounces", m.bounces)]
            if m.banned:
                parts.append(w._("BANNED"))
            out.append("  ".join(parts))
            out += [f"    {t.name} ({t.short_name})  WP {w.wp(t.wp)}  PSZ {w.psz(t.psz)}"
                    for t in m.teams]
        if not self.bans_known:
            out.append(w._("(this state does not know bans yet)"))
        return out


@dataclass(frozen=True, slots=True)
class OpenRound:
    number: int
    season: int
    round_in_season: int
    deadline: datetime


@dataclass(frozen=True, slots=True)
class MissingReport:
    #: The open round (None: the league has not started).
    round: OpenRound | None
    teams: tuple[MissingTeam, ...]

    def as_dict(self) -> dict[str, object] | None:
        """The JSON of ``turnited missing --json`` (null before round 1 opens)."""
        r = self.round
        if r is None:
            return None
        return {
            "round": r.number, "season": r.season,
            "round_in_season": r.round_in_season, "deadline": r.deadline.isoformat(),
            "teams": [{"name": t.team, "short_name": t.short_name, "address": t.address,
                       "manager": t.display_name} for t in self.teams],
        }

    def lines(self, w: Words) -> list[str]:
        r = self.round
        if r is None:
            return [w._("No round is open yet: round 1 opens when the bot starts.")]
        if not self.teams:
            return [w._("Round %(round)s: every team has sent a lineup.", round=r.number)]
        out = [w.ngettext("Round %(round)s (deadline %(when)s): %(num)s team without a lineup:",
                          "Round %(round)s (deadline %(when)s): %(num)s teams without a "
                          "lineup:", len(self.teams), round=r.number, when=r.deadline)]
        for t in self.teams:
            name = f" ({t.display_name})" if t.display_name else ""
            out.append(f"  {t.team} ({t.short_name}): {t.address}{name}")
        return out


def _view(m: RosterManager) -> ManagerView:
    return ManagerView(m.address, m.display_name, m.language, m.teams, m.last_mail,
                       m.bounces, m.banned)


def managers(ctx: Context, *, with_retired: bool = False) -> ManagersReport:
    """Every manager with a team (``with_retired``: every one), oldest first."""
    with ctx.db.read() as conn:
        rows = roster.roster(conn, with_retired=with_retired)
    return ManagersReport(tuple(_view(m) for m in rows), with_retired)


def missing(ctx: Context) -> MissingReport:
    """The open round's teams without a move (no round: nothing missing)."""
    with ctx.db.read() as conn:
        rnd = rounds.open_round(conn)
        if rnd is None:
            return MissingReport(None, ())
        teams = roster.teams_without_lineup(conn, rnd.number)
    return MissingReport(OpenRound(rnd.number, rnd.season, rnd.round_in_season, rnd.deadline),
                         tuple(teams))
