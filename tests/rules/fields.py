"""Shared helpers of the tournament tests: legal fields of player teams and a
full consistency check of a tournament result against the rules."""

from __future__ import annotations

import random
from collections import Counter
from decimal import Decimal
from fractions import Fraction

from bot.rules.corrections import correct
from bot.rules.gm_teams import all_gm_lineups
from bot.rules.lineup import Lineup
from bot.rules.tournament import (
    GM_PREFIX,
    SCHEDULE,
    Entrant,
    TournamentResult,
    field_groups,
)

GM_LINEUPS = set(all_gm_lineups())


def random_lineup(rng: random.Random, wp: int = 90) -> Lineup:
    """A legal lineup within ``wp``: random rows, then corrected like a real one.
    T is odd so it is never a GM lineup (GM teams have T in {0, 10})."""
    t = rng.choice((1, 3, 5, 7, 9))
    a = rng.randint(0, 10)
    rest = max(wp - 2 * t - 2 * a, 3)
    v = rng.randint(rest // 5, rest // 2)
    m = rng.randint(rest // 5, max(rest // 5, rest - v - rest // 5))
    s = max(rest - v - m, 1)
    return correct(Lineup(t, a, v, m, s), wp).lineup


def random_field(n: int, seed: int, wp: int = 90) -> list[Entrant]:
    rng = random.Random(seed)
    return [
        Entrant(f"Team {i:02d}", random_lineup(rng, wp), Fraction(rng.randint(20000, 30000), 100))
        for i in range(n)
    ]


def _result(own: int, other: int) -> str:
    return "W" if own > other else "D" if own == other else "L"


def check_structure(result: TournamentResult, entrants: list[Entrant]) -> None:
    """Assert every structural rule of RULES.md §4-§6 on a played tournament."""
    n = len(entrants)
    if n == 0:
        assert result.empty
        assert not result.stages and not result.knockout and not result.placings
        assert result.record == {} and result.wp_gain == {} and result.psz == {}
        assert result.first_groups == []
        return
    assert not result.empty
    groups = field_groups(n)
    assert groups in (4, 8, 16, 32, 64) and 4 * groups >= n and (groups == 4 or 2 * groups < n)
    names = [t.name for t in result.teams]
    assert len(names) == 4 * groups == len(set(names))
    assert [t.name for t in result.players] == [e.name for e in entrants]
    assert [t.lineup for t in result.players] == [e.lineup for e in entrants]
    gm = result.gm_teams
    assert len(gm) == 4 * groups - n
    for team in gm:
        assert team.name.startswith(GM_PREFIX)
        assert team.name[len(GM_PREFIX):].rstrip("abcdefghijklmnopqrstuvwxyz") == str(team.lineup)
        assert team.lineup in GM_LINEUPS and team.lineup.cost == 90
    shared = Counter(t.lineup for t in gm)
    for team in gm:
        suffixed = team.name != f"{GM_PREFIX}{team.lineup}"
        assert suffixed == (shared[team.lineup] > 1)

    # Group stages: G, G/2, ..., 2 groups; the teams of a stage are the
    # qualifiers of the one before.
    expected_groups = groups
    teams_in_stage = set(names)
    recount: dict[str, Counter] = {name: Counter() for name in names}
    for number, stage in enumerate(result.stages, start=1):
        assert stage.number == number
        assert len(stage.groups) == expected_groups
        assert {t for g in stage.groups for t in g.teams} == teams_in_stage
        for group in stage.groups:
            check_group(group, result.points, recount)
        teams_in_stage = {t for g in stage.groups for t in g.qualifiers}
        assert len(teams_in_stage) == 2 * expected_groups
        expected_groups //= 2
    assert expected_groups == 1  # the last stage had two groups
    assert result.first_groups == [list(g.teams) for g in result.stages[0].groups]

    semi1, semi2, third, final = result.knockout
    stages = [g.stage for g in result.knockout]
    assert stages == ["semi_final", "semi_final", "third_place", "final"]
    assert set(result.semi_finalists) == teams_in_stage and len(result.semi_finalists) == 4
    assert {third.home, third.away} == {semi1.loser, semi2.loser}
    assert {final.home, final.away} == {semi1.winner, semi2.winner}
    assert result.placings == (final.winner, final.loser, third.winner, third.loser)
    for game in result.knockout:
        assert game.winner in (game.home, game.away)
        h, a = game.goals
        assert game.by_lot == (h == a)
        if not game.by_lot:
            assert game.winner == (game.home if h > a else game.away)
        recount[game.home][_result(h, a)] += 1
        recount[game.away][_result(a, h)] += 1

    for name in names:
        record = result.record[name]
        counts = recount[name]
        assert (record.won, record.drawn, record.lost) == (counts["W"], counts["D"], counts["L"])
    for team in result.players:
        record = result.record[team.name]
        gain = Decimal("0.2") * record.won + Decimal("0.1") * record.drawn
        assert result.wp_gain[team.name] == gain
        assert result.psz[team.name].games == record.games
        assert result.psz[team.name].before == team.psz
    assert set(result.wp_gain) == set(result.psz) == {e.name for e in entrants}


def check_group(group, points, recount) -> None:
    teams = group.teams
    assert len(teams) == 4 == len(set(teams))
    assert len(group.games) == 12
    pairs = Counter((g.home, g.away) for g in group.games)
    assert set(pairs) == {(teams[h], teams[a]) for h, a in SCHEDULE}
    assert all(c == 1 for c in pairs.values())
    assert set(pairs) == {(x, y) for x in teams for y in teams if x != y}
    stats = {t: Counter() for t in teams}
    for game in group.games:
        h, a = game.goals
        assert h >= 0 and a >= 0
        for team, own, other in ((game.home, h, a), (game.away, a, h)):
            r = _result(own, other)
            stats[team][r] += 1
            stats[team]["for"] += own
            stats[team]["against"] += other
            recount[team][r] += 1
    table = group.table
    assert [row.team for row in table] != [] and {row.team for row in table} == set(teams)
    for row in table:
        s = stats[row.team]
        assert row.played == 6 == s["W"] + s["D"] + s["L"]
        assert (row.won, row.drawn, row.lost) == (s["W"], s["D"], s["L"])
        assert (row.goals_for, row.goals_against) == (s["for"], s["against"])
        assert row.goal_difference == s["for"] - s["against"]
        assert row.points == points.win * s["W"] + points.draw * s["D"] + points.loss * s["L"]
    keys = [(row.points, row.goal_difference) for row in table]
    assert keys == sorted(keys, reverse=True)
    assert [row.qualified for row in table] == [True, True, False, False]
    for i, row in enumerate(table):
        level = sum(1 for k in keys if k == keys[i])
        assert row.by_lot == (level > 1)
    assert group.qualification_by_lot == (keys[1] == keys[2])
    assert group.qualifiers == (table[0].team, table[1].team)
