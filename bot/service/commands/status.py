"""``Status``: where the manager's teams stand for the round his mail counts for.

The reply's teams section shows each team's WP, budget, PSZ and lineup
state anyway; ``Status`` adds what a player asks for beyond that (issue 20):
each team's place in the WP table of the last evaluated round and its last
result (the round, the stage it reached, its record and its WP gain), and
the round's seed commitment (RULES.md §4). A stranger learns how to
register.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from bot.league.outcome import Code
from bot.league.tables import wp_table
from bot.mail.vocabulary import KeywordCommand, Value
from bot.render.personal import stage_reached
from bot.rules.lots import seed_commitment
from bot.rules.report import RoundReport
from bot.rules.requests import Request
from bot.service.commands.base import Access, Command, Session
from bot.storage import history, results
from bot.storage import rounds as round_rows
from bot.storage.teams import TeamRow


@dataclass(frozen=True, slots=True)
class AskStatus(Request):
    pass


def ask_status(s: Session, request: AskStatus) -> None:
    """The round, its deadline and commitment, and each team's WP rank and
    last result (the reply lists the teams' states); a stranger learns how
    to register."""
    if s.manager is None:
        s.note(Code.NOT_REGISTERED, address=s.address)
        return
    seed = round_rows.committed_seed(s.conn, s.target)
    s.note(Code.STATUS, season=s.season, round=s.target, round_in_season=s.round_in_season,
           deadline=s.deadline,
           commitment=seed_commitment(s.target, seed) if seed is not None else None,
           standings=team_standings(s, s.own_teams()))


def team_standings(s: Session, teams: list[TeamRow]) -> dict[str, dict[str, Any]]:
    """Team name -> its place in the last WP table (``rank`` of ``listed``,
    None when not listed) and its last result (``last``: round, place,
    reached, last_stage, won, drawn, lost, gain; None before its first
    tournament)."""
    last = round_rows.last_evaluated(s.conn)
    table = wp_table(s.conn, last.number, s.settings.listed_rounds) if last is not None else []
    places = {row.team: row.place for row in table}
    reports: dict[int, RoundReport | None] = {}
    out: dict[str, dict[str, Any]] = {}
    for team in teams:
        out[team.name] = {"rank": places.get(team.name), "listed": len(table),
                          "last": _last_result(s, team, reports)}
    return out


def _last_result(s: Session, team: TeamRow, reports: dict[int, RoundReport | None]
                 ) -> dict[str, Any] | None:
    number = team.last_played_round
    if number is None:
        return None
    entry = history.entries_of_round(s.conn, number).get(team.id)
    if entry is None:
        return None
    if number not in reports:
        stored = results.stored_report(s.conn, number, public=True)
        reports[number] = _report(stored) if stored else None
    report = reports[number]
    place, reached, last_stage = (stage_reached(report, team.name) if report is not None
                                  else (None, "none", 0))
    return {"round": number, "place": place, "reached": reached, "last_stage": last_stage,
            "won": entry.won, "drawn": entry.drawn, "lost": entry.lost,
            "gain": entry.wp_gain}


@lru_cache(maxsize=4)
def _report(stored: str) -> RoundReport:
    """A stored public report, read once per process while it stays the same
    (a 64-team round takes about 13 ms to read; ``Status`` asks for the
    latest rounds again and again)."""
    return RoundReport.from_json(json.loads(stored))


COMMANDS = (
    Command(
        AskStatus, ask_status, Access.MANAGER,
        keyword=KeywordCommand("status", {None: ("status",)}, Value.OPTIONAL,
                               lambda line, value: AskStatus(line)),
    ),
)
