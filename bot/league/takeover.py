"""Storing the plan of a league taken over (RULES.md §14), in one transaction:
managers (with their password hashes), teams (WP, PSZ, the round each last
played), the import's record, and the first round played here, opened with
its committed seed (and the next round's, as every round opening does).

The league must be empty: no manager, no team, no move, no evaluated round
(an open round nobody wrote for, opened when the bot first started, is
replaced). An imported team counts as registered in the round before the
first one here and as having played in its ``last_round``, so the 3-round
rule (RULES.md §8), the two-team rule's "played longer ago" (§7), the
season's end and ageing (§6) continue as if this bot had played all along.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime

from bot.league.errors import LeagueError
from bot.league.import_check import ImportPlan
from bot.rules.lots import seed_commitment
from bot.storage import imports
from bot.storage import managers as manager_rows
from bot.storage import rounds as round_rows
from bot.storage import teams as team_rows
from bot.storage.imports import ImportedTeam, LeagueImport
from bot.storage.rounds import RoundRow


class LeagueNotEmpty(LeagueError):
    """An import needs an empty league."""

    def __init__(self) -> None:
        super().__init__(
            "the league is not empty (it has managers, teams, lineups or evaluated rounds): "
            "a table can only be imported into a new state directory (turnited init DIR)"
        )


@dataclass(frozen=True, slots=True)
class Imported:
    """What an import stored."""

    plan: ImportPlan
    #: Address -> manager id.
    manager_ids: Mapping[str, int]
    #: The first round played here, open now, and its seed's commitment.
    round: RoundRow
    commitment: str
    #: An empty open round that was replaced (None: there was none).
    replaced_round: int | None


def apply_import(
    conn: sqlite3.Connection, plan: ImportPlan, *, password_hashes: Mapping[str, str | None],
    deadline: datetime, now: datetime, seeds: Callable[[], int], source: str, sha256: str,
) -> Imported:
    """Store ``plan`` inside the caller's write transaction (``LeagueNotEmpty``
    unless the league is empty). ``password_hashes``: address -> hash (None:
    passwords are off)."""
    if not imports.is_empty(conn):
        raise LeagueNotEmpty()
    replaced = imports.remove_empty_open_round(conn)
    first = plan.first_round
    ids: dict[str, int] = {}
    for manager in plan.managers:
        manager_id = manager_rows.insert_manager(
            conn, manager.address, manager.name, password_hashes.get(manager.address), now, first)
        if manager.language is not None:
            manager_rows.update_manager(conn, manager_id, language=manager.language)
        ids[manager.address] = manager_id
        for team in manager.teams:
            team_id = team_rows.insert_team(
                conn, name=team.name, name_key=team.key, short_name=team.short_name,
                manager_id=manager_id, wp=team.wp, psz=team.psz,
                registered_round=first - 1, now=now,
            )
            team_rows.set_played(conn, team_id, wp=team.wp, psz=team.psz,
                                 round_number=team.last_round)
            imports.insert_imported_team(conn, ImportedTeam(
                team_id, team.wp, team.psz, team.last_round, team.last_round_known))
    imports.insert_import(conn, LeagueImport(
        plan.season, plan.round_in_season, first, len(plan.teams), len(plan.managers),
        source, sha256, now))
    seed = round_rows.commit_seed(conn, first, seeds(), now)
    # Late mail for the first round counts for the next one: its seed is fixed now.
    round_rows.commit_seed(conn, first + 1, seeds(), now)
    round_rows.insert_round(conn, number=first, season=plan.season,
                            round_in_season=plan.round_in_season, deadline=deadline, now=now,
                            seed=seed)
    opened = round_rows.open_round(conn)
    assert opened is not None and opened.number == first
    return Imported(plan, ids, opened, seed_commitment(first, seed), replaced)


__all__ = ["Imported", "LeagueNotEmpty", "apply_import"]
