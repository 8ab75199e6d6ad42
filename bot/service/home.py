"""What the league's home page shows beyond the archive's rounds and teams
(``bot.render.home``): the current WP and PSZ tables (after the last
evaluated round; in a league just taken over, the imported ones), the open
round with its deadline and commitment, the next planned deadlines, and
where a taken-over league's history here begins."""

from __future__ import annotations

import sqlite3
from datetime import datetime

from bot.league.addresses import next_numbering
from bot.render.home import HomeData
from bot.render.model import RoundInfo
from bot.service.context import Context
from bot.storage import imports, rounds

#: How many planned deadlines the calendar lists beyond the open round's,
#: in seasons (the plan of a cron line never ends).
PLANNED_SEASONS = 2


def planned_deadlines(ctx: Context, conn: sqlite3.Connection) -> list[tuple[RoundInfo, datetime]]:
    """The open round's deadline and the next planned ones, each with the
    round it will close (numbered as the league will number them)."""
    rnd = rounds.open_round(conn)
    if rnd is None:
        return []
    out = [(RoundInfo(rnd.season, rnd.round_in_season, rnd.number), rnd.deadline)]
    plan = ctx.settings.deadline_plan
    if plan is None:
        return out
    season_rounds = ctx.league.settings.season_rounds
    season, in_season, number = rnd.season, rnd.round_in_season, rnd.number
    for moment in plan.upcoming(rnd.deadline, PLANNED_SEASONS * season_rounds - 1):
        season, in_season = next_numbering(season, in_season, season_rounds)
        number += 1
        out.append((RoundInfo(season, in_season, number), moment))
    return out


def home_data(ctx: Context, conn: sqlite3.Connection) -> HomeData:
    """The home page's data, read in ``conn``'s snapshot."""
    league = ctx.league
    rnd = rounds.open_round(conn)
    last = rounds.last_evaluated(conn)
    imported = imports.league_import(conn)
    table_round = last.number if last else imported.first_round - 1 if imported else None
    if table_round is not None and table_round < 1:
        table_round = None
    return HomeData(
        table_round=table_round,
        wp_table=league.wp_table(conn, table_round) if table_round else (),
        psz_table=league.psz_table(conn, table_round) if table_round else (),
        open_round=RoundInfo(rnd.season, rnd.round_in_season, rnd.number) if rnd else None,
        deadline=rnd.deadline if rnd else None,
        commitment=league.commitment(conn, rnd.number) if rnd else None,
        planned=tuple(planned_deadlines(ctx, conn)),
        imported=imported,
        now=ctx.clock(),
        base_url=ctx.environments.archive_url,
        game_address=ctx.settings.game_address,
    )


__all__ = ["PLANNED_SEASONS", "home_data", "planned_deadlines"]
