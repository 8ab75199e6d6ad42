"""Evaluating a round (RULES.md §4, §6, §7, §10): exactly once, atomically.

1. **Inputs** (read): every team with a lineup (not withdrawn) for the
   round, not announced for deletion, its lineup corrected against
   ``floor(WP)`` at this moment, its PSZ; the settings that shape the
   tournament (a banned manager's teams sit out); the seed: the one
   committed when the round opened (RULES.md §4), for a round of old state
   opened without one ``secrets.randbits(63)``, unless given.
2. **Tournament** (no lock held): ``bot.rules.report.round_report`` with the
   inputs and seed, outside the write lock because the Monte Carlo may take
   a while; the typed ``RoundReport`` is what the rest of the evaluation and
   publishing work with (its JSON is only written, never read back).
3. **Apply** (one ``BEGIN IMMEDIATE`` transaction): check that the round is
   still open and the inputs did not change meanwhile (else start again
   from 1); delete the teams announced for deletion; add the WP gains and
   store the new PSZ (two decimals); after the last round of a season age
   every existing team; store inputs, report and public report (with what
   the archive lists of the round and of each team: winner, field size,
   place and stage reached); close the
   round with its seed; open the next round with its deadline and its
   committed seed, and commit the seed of the round after it (mail that
   misses the next deadline counts for that one, so its seed is fixed
   before such a lineup can arrive).

``undo_round`` is the inverse of step 3 for the last evaluated round (the
game master's rollback): the round is open again with its moves and seed.

A crash anywhere leaves either the old state (the round still open, due
again) or the new one; the state check and the ``round_results`` primary
key make a second evaluation impossible. ``replay`` re-plays a stored
round from its stored inputs and seed and compares the result.

Stored inputs are read leniently where the layout grew: an entrant without
``short_name`` (a round stored before short names reached the report) is
played without one, and the stored report is brought to the current
layout (``bot.rules.report.upgrade_report``) before the comparison, so an
old round still replays as identical.
"""

from __future__ import annotations

import difflib
import json
import secrets
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from bot.errors import TurnitedError
from bot.league.addresses import next_numbering
from bot.league.settings import LeagueSettings
from bot.rules.corrections import CorrectedLineup, correct
from bot.rules.lineup import Lineup
from bot.rules.rounding import to_cents
from bot.rules.wp import age, budget
from bot.storage import managers as manager_rows
from bot.storage import moves as move_rows
from bot.storage import results
from bot.storage import rounds as round_rows
from bot.storage import teams as team_rows
from bot.storage.rounds import RoundRow
from bot.storage.values import dec_to_db

if TYPE_CHECKING:  # the report (numpy, the Monte Carlo) is imported when a round is played
    from bot.rules.report import RoundReport
    from bot.rules.tournament import Record

#: ``step(name)`` is called at these points inside the apply transaction
#: (crash tests raise from it).
STEPS = (
    "checked", "deleted", "entry", "gains_applied", "aged", "results_stored",
    "round_closed", "next_round_opened",
)
#: How often the tournament is recomputed when moves keep arriving meanwhile;
#: the last attempt computes inside the lock.
MAX_ATTEMPTS = 3

Step = Callable[[str], None]


class EvaluationError(TurnitedError, RuntimeError):
    """The stored data contradict the tournament report (a bug, never input)."""


def canonical_json(data: Any) -> str:
    """Sorted keys, no spaces: equal data give equal text."""
    return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True, slots=True)
class EntrantInput:
    team_id: int
    name: str
    move_id: int
    sent: Lineup
    corrected: CorrectedLineup
    wp: Decimal
    psz: Decimal
    #: The team's short name for the newsletter's tables (RULES.md §7).
    short_name: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "team_id": self.team_id,
            "name": self.name,
            "short_name": self.short_name,
            "move_id": self.move_id,
            "sent": str(self.sent),
            "lineup": str(self.corrected.lineup),
            "budget": self.corrected.budget,
            "corrections": [c.to_json() for c in self.corrected.corrections],
            "wp": dec_to_db(self.wp),
            "psz": dec_to_db(self.psz),
        }


@dataclass(frozen=True, slots=True)
class RoundInputs:
    round: RoundRow
    entrants: tuple[EntrantInput, ...]
    doomed: tuple[int, ...]

    def to_json(self, seed: int, settings: LeagueSettings) -> dict[str, Any]:
        return {
            "round": self.round.number,
            "seed": seed,
            "points": list(settings.points),
            "simulations": settings.simulations,
            "initial_psz": dec_to_db(settings.initial_psz),
            "psz_bound": settings.psz_bound,
            "entrants": [e.to_json() for e in self.entrants],
            "deleted": list(self.doomed),
        }


def gather_inputs(conn: sqlite3.Connection, rnd: RoundRow) -> RoundInputs:
    """The teams that play round ``rnd`` and the teams deleted at its evaluation."""
    moves = move_rows.current_moves(conn, rnd.number)
    entrants: list[EntrantInput] = []
    doomed: list[int] = []
    banned = manager_rows.banned_ids(conn)
    for team in team_rows.active_teams(conn):
        if team.doomed_round is not None and team.doomed_round <= rnd.number:
            doomed.append(team.id)
            continue
        move = moves.get(team.id)
        if (team.registered_round > rnd.number or move is None or move.lineup is None
                or team.manager_id in banned):
            continue
        entrants.append(EntrantInput(
            team.id, team.name, move.id, move.lineup, correct(move.lineup, budget(team.wp)),
            team.wp, team.psz, team.short_name,
        ))
    return RoundInputs(rnd, tuple(entrants), tuple(doomed))


def play(inputs: dict[str, Any], progress: Callable[..., Any] | None = None) -> RoundReport:
    """The tournament report of stored inputs (the same call for evaluation and
    replay). ``short_name`` is optional: inputs stored before it existed lack it."""
    from bot.rules.report import round_report
    from bot.rules.tournament import Entrant, Points

    entrants = [
        Entrant(e["name"], Lineup.parse(e["lineup"]), Fraction(Decimal(e["psz"])),
                e.get("short_name"))
        for e in inputs["entrants"]
    ]
    return round_report(
        entrants,
        inputs["seed"],
        points=Points(*inputs["points"]),
        simulations=inputs["simulations"],
        initial_psz=Fraction(Decimal(inputs["initial_psz"])),
        psz_bound=inputs["psz_bound"],
        progress=progress,
    )


@dataclass(frozen=True, slots=True)
class Applied:
    """What the apply step changed (for the newsletter)."""

    round: RoundRow
    seed: int
    #: The full report (player lineups included: never published) and its public view.
    report: RoundReport
    public: RoundReport
    deleted: tuple[str, ...]
    aged: bool
    next_round: int
    next_deadline: datetime


def _team_numbers(report: RoundReport, name: str) -> tuple[Decimal, Decimal, Record]:
    try:
        return report.wp_gain[name], to_cents(report.psz[name].after), report.record[name]
    except KeyError as exc:
        raise EvaluationError(
            f"the tournament report lacks WP gain, PSZ or record of {name!r}: {exc!r}"
        ) from exc


def apply_round(
    conn: sqlite3.Connection,
    settings: LeagueSettings,
    inputs: RoundInputs,
    inputs_json: dict[str, Any],
    report: RoundReport,
    *,
    now: datetime,
    next_deadline: datetime,
    step: Step,
    next_seeds: tuple[int, int] | None = None,
) -> Applied:
    """Write a round's evaluation (inside the caller's write transaction)."""
    public = report.public()
    rnd = inputs.round
    number = rnd.number
    step("checked")
    deleted = []
    for team_id in inputs.doomed:
        deleted.append(team_rows.team_by_id(conn, team_id).name)
        team_rows.mark_deleted(conn, team_id, number)
    step("deleted")
    for entrant in inputs.entrants:
        gain, psz, record = _team_numbers(report, entrant.name)
        place, reached, last_stage = report.stage_reached(entrant.name)
        wp_new = entrant.wp + gain
        results.insert_entry(conn, results.EntryRow(
            round=number, team_id=entrant.team_id, move_id=entrant.move_id,
            lineup=str(entrant.sent), played=str(entrant.corrected.lineup),
            budget=entrant.corrected.budget,
            corrections=canonical_json([c.to_json() for c in entrant.corrected.corrections]),
            wp_before=entrant.wp, wp_gain=gain, psz_before=entrant.psz, psz_after=psz,
            won=record.won, drawn=record.drawn, lost=record.lost,
            place=place, reached=reached, last_stage=last_stage,
        ))
        results.insert_wp_change(conn, entrant.team_id, number, "gain", entrant.wp, wp_new)
        team_rows.set_played(conn, entrant.team_id, wp=wp_new, psz=psz, round_number=number)
        step("entry")
    step("gains_applied")
    aged = rnd.round_in_season >= settings.season_rounds
    if aged:
        for team_id, before in team_rows.existing_by(conn, number):
            after = age(before)
            results.insert_wp_change(conn, team_id, number, "ageing", before, after)
            team_rows.set_wp(conn, team_id, after)
    step("aged")
    results.insert_result(
        conn, number, inputs=canonical_json(inputs_json), report=canonical_json(report.to_json()),
        public_report=canonical_json(public.to_json()), now=now,
        summary=results.RoundSummary(public.winner, len(public.teams), len(public.players)),
    )
    step("results_stored")
    seed = int(inputs_json["seed"])
    round_rows.close_round(conn, number, seed=seed, now=now)
    step("round_closed")
    season, in_season = next_numbering(rnd.season, rnd.round_in_season, settings.season_rounds)
    committed = None
    if next_seeds is not None:
        # The next round's seed was committed when this one opened (a round
        # of old state: now); the one after it is committed now, before any
        # late mail can bring a lineup for it.
        committed = round_rows.commit_seed(conn, number + 1, next_seeds[0], now)
        round_rows.commit_seed(conn, number + 2, next_seeds[1], now)
    round_rows.insert_round(conn, number=number + 1, season=season, round_in_season=in_season,
                            deadline=next_deadline, now=now, seed=committed)
    step("next_round_opened")
    return Applied(rnd, seed, report, public, tuple(deleted), aged, number + 1, next_deadline)


def new_seed() -> int:
    return secrets.randbits(63)


@dataclass(frozen=True, slots=True)
class Undone:
    """What ``undo_round`` took back."""

    round: int
    #: Teams that exist again (deleted at that evaluation; still announced).
    restored: tuple[str, ...]
    #: Teams whose WP/PSZ went back.
    teams: int
    aged: bool


def undo_round(conn: sqlite3.Connection, rnd: RoundRow, next_round: RoundRow) -> Undone:
    """Take back the evaluation of ``rnd`` (inside the caller's write
    transaction): WP, PSZ and last played round of every team it changed
    (gains and ageing), the teams it deleted, its stored result, entries and
    WP history; remove the open ``next_round`` (its moves and committed seed
    stay for when it opens again) and open ``rnd`` again with its seed."""
    number = rnd.number
    stored = results.stored_inputs_and_report(conn, number)
    if stored is None:
        raise EvaluationError(f"round {number} is evaluated but has no stored result")
    inputs = json.loads(stored[0])
    restored = []
    for team_id in inputs.get("deleted", []):
        restored.append(team_rows.team_by_id(conn, int(team_id)).name)
        team_rows.undelete(conn, int(team_id), number)
    changed = results.undo_rows(conn, number)
    for row in changed:
        team_rows.restore_played(conn, row.team_id, wp=row.wp_before, psz=row.psz_before,
                                 last_played_round=row.played_before)
    aged = results.has_ageing(conn, number)
    results.delete_evaluation(conn, number)
    round_rows.delete_open_round(conn, next_round.number)
    round_rows.reopen_round(conn, number)
    return Undone(number, tuple(restored), len(changed), aged)


@dataclass(frozen=True, slots=True)
class ReplayResult:
    round: int
    seed: int
    identical: bool
    #: A unified diff of the stored and the replayed report ('' when identical).
    diff: str


def replay_stored(inputs_text: str, report_text: str, number: int) -> ReplayResult:
    """Play stored inputs again and compare with the stored report (brought to
    the current layout first: an old round's report lacks only keys that are
    derived from what it holds)."""
    from bot.rules.report import ReportFormatError, upgrade_report

    inputs = json.loads(inputs_text)
    try:
        stored = upgrade_report(json.loads(report_text))
    except ReportFormatError as exc:
        raise EvaluationError(
            f"the stored report of round {number} cannot be read: {exc}"
        ) from exc
    fresh = play(inputs).to_json()
    identical = canonical_json(fresh) == canonical_json(stored)
    diff = ""
    if not identical:
        lines = difflib.unified_diff(
            json.dumps(stored, indent=1, sort_keys=True, ensure_ascii=False).splitlines(),
            json.dumps(fresh, indent=1, sort_keys=True, ensure_ascii=False).splitlines(),
            f"round {number} stored", f"round {number} replayed", lineterm="", n=2,
        )
        diff = "\n".join(lines)
    return ReplayResult(number, int(inputs["seed"]), identical, diff)
