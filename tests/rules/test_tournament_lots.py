"""Lot decisions: level tables (points and goal difference only) and level
knock-out games (decided by lot, a draw for WP and PSZ)."""

from __future__ import annotations

import random
from collections import Counter
from decimal import Decimal
from fractions import Fraction

from bot.rules.lineup import Lineup
from bot.rules.match import chances
from bot.rules.psz import Result, period_update
from bot.rules.tournament import (
    Entrant,
    Game,
    Points,
    group_table,
    play_knockout,
    play_tournament,
)

from .fields import check_structure

#: Against itself this lineup has no chance at all: every game ends 0:0.
BLANK = Lineup(10, 10, 20, 20, 20)


def test_blank_lineup_has_no_chances():
    assert chances(BLANK, BLANK) == 0


def test_identical_lineups_everything_by_lot():
    entrants = [Entrant(f"Team {i:02d}", BLANK, Fraction(230 + 3 * i)) for i in range(16)]
    result = play_tournament(entrants, random.Random(3))
    check_structure(result, entrants)
    for stage in result.stages:
        for group in stage.groups:
            assert all(g.goals == (0, 0) for g in group.games)
            assert all(row.by_lot and row.points == 6 for row in group.table)
            assert group.qualification_by_lot
    assert all(k.by_lot and k.goals == (0, 0) for k in result.knockout)
    start = {e.name: e.psz for e in entrants}
    for e in entrants:
        record = result.record[e.name]
        assert record.won == record.lost == 0
        assert result.wp_gain[e.name] == Decimal("0.1") * record.drawn
        games = result.games_of(e.name)
        assert all(r is Result.DRAW for *_, r in games)
        assert result.psz[e.name] == period_update(
            e.psz, [(start[opp], Result.DRAW) for opp, *_ in games]
        )


def _games(results):
    return [Game(h, a, goals) for h, a, goals in results]


def test_no_lot_without_a_tie_and_no_random_number_used():
    names = ["A", "B", "C", "D"]
    games = _games([
        ("A", "B", (2, 0)), ("C", "D", (1, 0)), ("A", "C", (1, 0)), ("D", "B", (0, 0)),
        ("D", "A", (0, 3)), ("B", "C", (0, 1)),
    ])
    rng = random.Random(1)
    state = rng.getstate()
    group = group_table("A", names, games, Points(), rng)
    assert rng.getstate() == state
    # B and D are level on points; the goal difference decides (-3 before -4).
    assert [r.team for r in group.table] == ["A", "C", "B", "D"]
    assert [r.points for r in group.table] == [9, 6, 1, 1]
    assert [r.goal_difference for r in group.table] == [6, 1, -3, -4]
    assert not any(r.by_lot for r in group.table)
    assert not group.qualification_by_lot


def test_top_tie_by_lot_goals_scored_do_not_count():
    names = ["A", "B", "C", "D"]
    # A and B: 7 points, goal difference +4 each; A scored more (7 to 6),
    # which does not count: the lot orders them. Both advance either way.
    games = _games([
        ("A", "B", (2, 2)), ("A", "C", (3, 1)), ("A", "D", (2, 0)),
        ("B", "C", (2, 0)), ("B", "D", (2, 0)), ("C", "D", (1, 0)),
    ])
    seen = Counter()
    for seed in range(200):
        group = group_table("A", names, games, Points(), random.Random(seed))
        rows = {r.team: r for r in group.table}
        assert rows["A"].points == rows["B"].points == 7
        assert rows["A"].goal_difference == rows["B"].goal_difference == 4
        assert rows["A"].goals_for == 7 and rows["B"].goals_for == 6
        assert [r.team for r in group.table][2:] == ["C", "D"]
        assert [r.by_lot for r in group.table] == [True, True, False, False]
        assert not group.qualification_by_lot
        seen[group.table[0].team] += 1
    assert 70 < seen["A"] < 130


def test_tie_for_the_second_place_is_a_qualification_lot():
    names = ["A", "B", "C", "D"]
    # D first with 6 points; A and B 4 points, +1 each (A 6 goals, B 5); C last.
    games = _games([
        ("A", "B", (3, 3)), ("A", "C", (3, 1)), ("A", "D", (0, 1)),
        ("B", "C", (2, 0)), ("B", "D", (0, 1)), ("C", "D", (1, 0)),
    ])
    second = Counter()
    for seed in range(200):
        group = group_table("A", names, games, Points(), random.Random(seed))
        assert group.table[0].team == "D" and group.table[3].team == "C"
        assert [r.by_lot for r in group.table] == [False, True, True, False]
        assert group.qualification_by_lot
        second[group.table[1].team] += 1
        assert group.qualifiers == ("D", group.table[1].team)
    assert 70 < second["A"] < 130


def test_lot_deciding_qualification_is_marked_and_fair():
    names = ["A", "B", "C", "D"]
    # Everyone draws 0:0: a four-way tie, two places by lot.
    games = _games([(h, a, (0, 0)) for h in names for a in names if h != a])
    first = Counter()
    qualified = Counter()
    runs = 2000
    for seed in range(runs):
        group = group_table("B", names, games, Points(), random.Random(seed))
        assert group.qualification_by_lot
        assert all(r.by_lot for r in group.table)
        first[group.table[0].team] += 1
        qualified.update(group.qualifiers)
    # Uniform: each team first with 1/4, through with 1/2 (4.5 standard errors).
    for team in names:
        assert abs(first[team] - runs / 4) < 4.5 * (runs * 0.25 * 0.75) ** 0.5
        assert abs(qualified[team] - runs / 2) < 4.5 * (runs * 0.25) ** 0.5


def test_level_knockout_game_is_decided_by_lot_fairly():
    lineups = {"H": BLANK, "A": BLANK}
    home_wins = 0
    for seed in range(1000):
        game = play_knockout("final", "H", "A", lineups, random.Random(seed))
        assert game.goals == (0, 0) and game.by_lot
        assert game.loser == ({"H", "A"} - {game.winner}).pop()
        home_wins += game.winner == "H"
    assert abs(home_wins - 500) < 4.5 * 250**0.5


def test_decided_knockout_game_is_not_by_lot():
    strong, weak = Lineup(0, 0, 30, 30, 30), Lineup(10, 10, 20, 20, 20)
    assert chances(strong, weak) == 8 and chances(weak, strong) == 0
    outcomes = Counter()
    for seed in range(60):
        game = play_knockout("semi_final", "S", "W", {"S": strong, "W": weak}, random.Random(seed))
        assert game.goals[1] == 0
        assert game.by_lot == (game.goals[0] == 0)
        if not game.by_lot:
            assert game.winner == "S"
        outcomes[game.by_lot] += 1
    assert outcomes[True] and outcomes[False]
