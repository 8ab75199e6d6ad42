"""What publishing an evaluated round needs, as one typed value: ``RoundNews``.

The public ``RoundReport`` (no player lineup), the round's place in the
season, the WP and PSZ tables after it, the season-end ageing, what each
manager's personal block says of their teams (``TeamFacts``), the
recipients, the teams deleted at the evaluation, and the next round's
deadline and seed commitment.

The evaluation builds it inside its write transaction from the report it
has just played (``round_news``; ``League.evaluate_due`` returns it as part
of its ``EvaluationResult``), so publishing a freshly evaluated round parses
no stored report. ``stored_news`` reads it back for a round published again
(``turnited``'s re-publishing, a newsletter rendered later, the catch-up
after a crash between evaluation and publishing): the stored public report
is parsed once, the rest is read as for a fresh round.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING

from bot.league import tables
from bot.league.errors import UnknownRound
from bot.league.settings import LeagueSettings
from bot.league.tables import PszRow, WpRow
from bot.rules.lots import seed_commitment
from bot.storage import history, results
from bot.storage import managers as manager_rows
from bot.storage import rounds as round_rows
from bot.storage import teams as team_rows
from bot.storage.rounds import RoundRow

if TYPE_CHECKING:  # the report (numpy, the Monte Carlo) is imported when one is read
    from bot.rules.report import RoundReport


@dataclass(frozen=True, slots=True)
class Recipient:
    """A newsletter recipient; ``language`` is the one of their latest accepted
    mail ('de'/'en'), None if unknown (then the configured newsletter language)."""

    manager_id: int
    address: str
    display_name: str | None
    language: str | None = None


@dataclass(frozen=True, slots=True)
class TeamFacts:
    """What the league knows of one of the reader's teams around the round:
    WP at the start, after the round's gain, after a season's ageing (equal
    to ``wp_after_gain`` when there was none), PSZ at the start and after."""

    name: str
    wp_before: Decimal
    wp_after_gain: Decimal
    wp_after: Decimal
    psz_before: Decimal
    psz_after: Decimal
    aged: bool = False


@dataclass(frozen=True, slots=True)
class RoundNews:
    """An evaluated round as its newsletter, its archive page and the
    personal blocks show it (the module docstring)."""

    round: int
    season: int
    round_in_season: int
    #: How often this round's evaluation was rolled back (its newsletter corrects).
    corrects: int
    #: The round's report without any player lineup.
    public: RoundReport
    wp_table: tuple[WpRow, ...]
    psz_table: tuple[PszRow, ...]
    #: After a season's last round: each team's WP before the ageing, by name.
    ageing: Mapping[str, Decimal]
    #: Manager id -> each of their teams' facts, oldest team first (managers
    #: whose teams have no WP or PSZ yet are left out).
    facts: Mapping[int, tuple[TeamFacts, ...]]
    #: Every manager with at least one team.
    recipients: tuple[Recipient, ...]
    #: Teams deleted at this evaluation (the announced weaker teams), by name.
    deleted: tuple[str, ...]
    #: True after the last round of a season: every team aged.
    aged: bool
    next_round: int
    #: The deadline of the round opened after it (None: none is open any more).
    next_deadline: datetime | None
    #: The next round's seed commitment (None: opened without one, old state).
    next_commitment: str | None


def recipients(conn: sqlite3.Connection) -> tuple[Recipient, ...]:
    """Every manager with at least one team (the newsletter's recipients),
    but a banned one (RULES.md §13: he gets no newsletter) and one who
    unsubscribed (``Abmelden``, RULES.md §12)."""
    return tuple(Recipient(m.id, m.address, m.display_name, m.language)
                 for m in manager_rows.active_recipients(conn)
                 if not m.banned and not m.unsubscribed)


def team_facts(conn: sqlite3.Connection, round_number: int) -> dict[int, tuple[TeamFacts, ...]]:
    """Manager id -> what the league knows of each of their teams around
    ``round_number`` (WP and PSZ before and after, the ageing), for the
    personal blocks. A team with no WP or PSZ yet (registered, never played)
    is left out."""
    played = history.entries_of_round(conn, round_number)
    aged = history.ageing_of_round(conn, round_number)
    out: dict[int, tuple[TeamFacts, ...]] = {}
    for manager_id, owned in history.teams_of_managers(conn, round_number).items():
        facts = []
        for team in owned:
            entry = played.get(team.team_id)
            if entry is not None:
                wp_before, after_gain = entry.wp_before, entry.wp_after_gain
                psz_before, psz_after = entry.psz_before, entry.psz_after
            else:
                wp = history.wp_just_before(conn, team.team_id, round_number)
                psz = history.psz_just_before(conn, team.team_id, round_number)
                if wp is None or psz is None:
                    continue
                wp_before = after_gain = wp
                psz_before = psz_after = psz
            ageing = aged.get(team.team_id)
            facts.append(TeamFacts(
                name=team.name, wp_before=wp_before, wp_after_gain=after_gain,
                wp_after=ageing.after if ageing else after_gain,
                psz_before=psz_before, psz_after=psz_after, aged=ageing is not None,
            ))
        if facts:
            out[manager_id] = tuple(facts)
    return out


def round_news(
    conn: sqlite3.Connection, settings: LeagueSettings, rnd: RoundRow, public: RoundReport,
    *, deleted: tuple[str, ...], aged: bool,
) -> RoundNews:
    """The news of the evaluated round ``rnd`` whose public report is ``public``
    (the tables and facts as the league stands right after it)."""
    number = rnd.number
    following = round_rows.round_by_number(conn, number + 1)
    next_seed = round_rows.committed_seed(conn, number + 1)
    return RoundNews(
        round=number, season=rnd.season, round_in_season=rnd.round_in_season,
        corrects=rnd.corrects, public=public,
        wp_table=tuple(tables.wp_table(conn, number, settings.listed_rounds)),
        psz_table=tuple(tables.psz_table(conn, number, settings.listed_rounds)),
        ageing=history.ageing_by_name(conn, number),
        facts=team_facts(conn, number),
        recipients=recipients(conn),
        deleted=tuple(sorted(deleted)),
        aged=aged,
        next_round=number + 1,
        next_deadline=following.deadline if following else None,
        next_commitment=(seed_commitment(number + 1, next_seed)
                         if next_seed is not None else None),
    )


def stored_news(conn: sqlite3.Connection, settings: LeagueSettings, number: int) -> RoundNews:
    """The news of the stored round ``number``, read back (its public report
    parsed once)."""
    from bot.rules.report import RoundReport

    rnd = round_rows.round_by_number(conn, number)
    text = results.stored_report(conn, number, public=True)
    if rnd is None or rnd.is_open or text is None:
        raise UnknownRound(number, "has been evaluated")
    public = RoundReport.from_json(json.loads(text))
    return round_news(conn, settings, rnd, public,
                      deleted=tuple(team_rows.deleted_in(conn, number)),
                      aged=results.has_ageing(conn, number))


@dataclass(frozen=True, slots=True)
class EvaluationResult(RoundNews):
    """An evaluated round: its news, which publishing takes as it is (the
    public report, tables, recipients, ...; ``bot.league.news``), plus what
    only the game master sees: the full report with every lineup, and the seed
    the round was played with."""

    seed: int
    #: The full report (player lineups included): never published.
    report: RoundReport

    @classmethod
    def of(cls, told: RoundNews, *, seed: int, report: RoundReport) -> EvaluationResult:
        return cls(**{f.name: getattr(told, f.name) for f in dataclasses.fields(RoundNews)},
                   seed=seed, report=report)


__all__ = ["EvaluationResult", "Recipient", "RoundNews", "TeamFacts", "recipients",
           "round_news", "stored_news", "team_facts"]
