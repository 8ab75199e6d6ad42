"""The game master's ``status``: where the league stands (season, round,
deadline, the seed's commitment, managers, teams with a lineup, never a
lineup), what waits in the outbox and the quarantine, whose mail bounced,
and whether the planned deadlines run out. One read of the state, a typed
``StatusReport`` the console prints (or dumps as JSON) and a mail can say.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from bot.league.errors import NoOpenRound
from bot.league.service import LeagueStatus
from bot.service.context import Context
from bot.service.deadlines import DeadlineOutlook, deadline_outlook
from bot.storage import bounces, ledger, outbox
from bot.storage.bounces import BouncedManager
from bot.storage.values import time_from_db

if TYPE_CHECKING:
    from bot.render.words import Words


@dataclass(frozen=True, slots=True)
class StatusReport:
    now: datetime
    #: The open round and its counts; None before round 1 opens.
    league: LeagueStatus | None
    #: The first planned deadline of a league not started yet (None otherwise,
    #: or when the plan has none after now).
    first_deadline: datetime | None
    #: How long the planned deadlines last after the open round's (or now).
    outlook: DeadlineOutlook
    #: Outbox rows per state.
    outbox: Mapping[str, int]
    bounced: tuple[BouncedManager, ...]
    #: Mails whose handling failed every attempt, and those waiting to be tried again.
    quarantined: int
    retrying: int

    def as_dict(self) -> dict[str, object]:
        """The JSON of ``turnited status --json`` (keys as monitoring reads them)."""
        out: dict[str, object] = {
            "now": self.now.isoformat(), "started": self.league is not None,
            "outbox": dict(self.outbox),
            "bounced_managers": [
                {"address": b.address, "bounces": b.count, "last_at": b.last_at,
                 "last_reason": b.last_reason} for b in self.bounced],
            "quarantined_mails": self.quarantined,
            "mails_waiting_for_retry": self.retrying,
        }
        s = self.league
        if s is None:
            out["first_deadline"] = self.first_deadline.isoformat() if self.first_deadline else None
        else:
            out.update(
                season=s.season, round=s.round, round_in_season=s.round_in_season,
                deadline=s.deadline.isoformat(), deadline_passed=s.deadline_passed,
                evaluated_rounds=s.evaluated_rounds, managers=s.managers,
                managers_total=s.managers_total, teams=s.teams,
                teams_with_lineup=len(s.teams_with_lineup), commitment=s.commitment,
            )
        out["deadlines"] = self.outlook.as_dict()
        return out

    def lines(self, w: Words, *, plan_known: bool = True) -> list[str]:
        """The status in words (``plan_known``: the deadlines come from a
        configuration, not from the defaults)."""
        s = self.league
        if s is None:
            out = [w._("No round is open yet: round 1 opens when the bot starts "
                       "(turnited run).")]
            if not plan_known:
                out.append(w._("First deadline: the first of schedule.deadlines after the "
                               "start (shown when the configuration is read: --config)."))
            elif self.first_deadline is None:
                out.append(w._("First deadline: none is planned after now; add a later "
                               "date-time to schedule.deadlines or use a cron line."))
            else:
                out.append(w._("Planned first deadline: %(when)s", when=self.first_deadline))
            return out + self.outlook.lines(w, None)
        out = [w.ngettext("Round %(round)s (season %(season)s, round %(in_season)s); "
                          "%(num)s round evaluated",
                          "Round %(round)s (season %(season)s, round %(in_season)s); "
                          "%(num)s rounds evaluated",
                          s.evaluated_rounds, round=s.round, season=s.season,
                          in_season=s.round_in_season),
               w._("Deadline: %(when)s (passed: the round waits for its evaluation)",
                   when=s.deadline) if s.deadline_passed
               else w._("Deadline: %(when)s", when=s.deadline)]
        if s.commitment:  # RULES.md §4: `turnited verify ROUND SEED` after the results
            out.append(w._("Commitment of the seed of round %(round)s: %(commitment)s",
                           round=s.round, commitment=s.commitment))
        out += self.outlook.lines(w, s.round)
        out += [w._("Managers: %(count)s with a team (%(total)s ever registered)",
                    count=s.managers, total=s.managers_total),
                w._("Teams: %(count)s", count=s.teams),
                w._("Teams with a lineup for round %(round)s: %(count)s", round=s.round,
                    count=len(s.teams_with_lineup))]
        out += [f"  {name}" for name in s.teams_with_lineup]
        if self.quarantined or self.retrying:
            out.append(w._("Mails in quarantine: %(count)s (handling failed at every "
                           "attempt; %(retrying)s waiting for another attempt)",
                           count=self.quarantined, retrying=self.retrying))
        if self.bounced:
            out.append(w._("Managers whose mail bounced: %(count)s", count=len(self.bounced)))
            out += ["  " + w.ngettext("%(address)s: %(num)s bounce, the last %(when)s: "
                                      "%(reason)s",
                                      "%(address)s: %(num)s bounces, the last %(when)s: "
                                      "%(reason)s",
                                      b.count, address=b.address,
                                      when=time_from_db(b.last_at) if b.last_at else "?",
                                      reason=b.last_reason or "?")
                    for b in self.bounced]
        if self.outbox.get("failed"):
            out.append(w._("Outgoing mails that failed for good: %(count)s",
                           count=self.outbox["failed"]))
        return out


def status(ctx: Context) -> StatusReport:
    """The league's state now (reads only)."""
    now = ctx.clock()
    with ctx.db.read() as conn:
        try:
            league: LeagueStatus | None = ctx.league.status(conn, now)
        except NoOpenRound:
            league = None
        bounced = tuple(bounces.bounced_managers(conn))
        queue = outbox.counts(conn)
        quarantined, retrying = ledger.quarantined_count(conn)
    first = ctx.settings.deadline_plan.next_deadline(now) if league is None else None
    outlook = deadline_outlook(ctx.settings.deadline_plan, league.deadline if league else now)
    return StatusReport(now, league, first, outlook, queue, bounced, quarantined, retrying)


__all__ = ["StatusReport", "status"]
