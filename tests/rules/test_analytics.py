"""Exact analytics: knock-out odds and the Turnierfußball expectation table."""

from __future__ import annotations

import random
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.rules.analytics import expectation_table, knockout_odds, percent
from bot.rules.lineup import Lineup
from bot.rules.match import odds
from bot.rules.tournament import Points, play_tournament

from .fields import random_field


def test_percent_rounds_halves_up():
    assert percent(Fraction(1, 200)) == 1  # 0.5 %
    assert percent(Fraction(1, 201)) == 0
    assert percent(Fraction(5, 8)) == 63  # 62.5 %
    assert percent(Fraction(249, 1000)) == 25
    assert percent(Fraction(0)) == 0 and percent(Fraction(1)) == 100


def test_knockout_odds_are_the_exact_match_odds():
    result = play_tournament(random_field(10, seed=3), random.Random(3))
    all_odds = knockout_odds(result)
    assert [(o.stage, o.home, o.away) for o in all_odds] == [
        (k.stage, k.home, k.away) for k in result.knockout
    ]
    for o in all_odds:
        exact = odds(result.lineups[o.home], result.lineups[o.away])
        assert (o.win, o.draw, o.loss) == (exact.win, exact.draw, exact.loss)
        assert o.win + o.draw + o.loss == 1
        assert o.percent == (percent(o.win), percent(o.draw), percent(o.loss))


def test_rules_example_in_the_table():
    """RULES.md §3: 10-10-15-15-20 against 0-10-30-20-20 never wins; draws
    with 0.548537 per game."""
    x, y = Lineup(10, 10, 15, 15, 20), Lineup(0, 10, 30, 20, 20)
    rows = {r.team: r for r in expectation_table({"X": x, "Y": y})}
    assert rows["X"].won == 0 and rows["X"].games == 2
    assert round(float(rows["X"].drawn) / 2, 6) == 0.548537
    assert rows["Y"].lost == 0 and rows["Y"].won == 2 * odds(y, x).win
    assert rows["X"].goals_for == 0
    assert rows["Y"].goals_for == 2 * 6 * Fraction(5, 15) * Fraction(4, 14)  # 6 chances


@settings(max_examples=30, deadline=None)
@given(n=st.integers(2, 7), seed=st.integers(0, 2**32),
       points=st.sampled_from([Points(), Points(2, 1, 0)]))
def test_expectation_table_invariants(n, seed, points):
    entrants = random_field(n, seed)
    rng = random.Random(seed)
    if n > 2 and rng.random() < 0.5:  # a shared lineup now and then
        entrants[1] = type(entrants[1])(entrants[1].name, entrants[0].lineup)
    lineups = {e.name: e.lineup for e in entrants}
    table = expectation_table(lineups, points)
    assert sorted(r.team for r in table) == sorted(lineups)
    assert [(-r.points, r.team) for r in table] == sorted((-r.points, r.team) for r in table)
    for row in table:
        assert row.games == 2 * (n - 1)
        assert row.won + row.drawn + row.lost == row.games
        assert row.points == points.win * row.won + points.draw * row.drawn + points.loss * row.lost
        expected = sum(
            2 * odds(lineups[row.team], lineups[other]).expected_points(
                points.win, points.draw, points.loss)
            for other in lineups if other != row.team
        )
        assert row.points == expected
        assert row.goal_difference == row.goals_for - row.goals_against
    # Zero-sum views: every game counted once from each side.
    assert sum(r.won for r in table) == sum(r.lost for r in table)
    assert sum(r.goals_for for r in table) == sum(r.goals_against for r in table)
    if points == Points(2, 1, 0):
        assert sum(r.points for r in table) == 2 * n * (n - 1)  # 2 points per game


def test_whole_tournament_table_orders_ties_by_name():
    lineups = {"b": Lineup(5, 5, 20, 25, 30), "a": Lineup(5, 5, 20, 25, 30),
               "c": Lineup(10, 10, 15, 15, 20)}
    table = expectation_table(lineups)
    rows = {r.team: r for r in table}
    assert rows["a"].points == rows["b"].points != rows["c"].points
    names = [r.team for r in table]
    assert names.index("b") == names.index("a") + 1


def reference_table(lineups, points):
    """Every team against every other, twice, summed as Fractions of ``match.odds``."""
    rows = {}
    for team, x in lineups.items():
        won = drawn = lost = goals_for = goals_against = Fraction(0)
        for other, y in lineups.items():
            if other != team:
                o = odds(x, y)
                won, drawn, lost = won + 2 * o.win, drawn + 2 * o.draw, lost + 2 * o.loss
                goals_for += 2 * o.expected_goals[0]
                goals_against += 2 * o.expected_goals[1]
        expected = won * points.win + drawn * points.draw + lost * points.loss
        rows[team] = (2 * (len(lineups) - 1), won, drawn, lost, expected, goals_for,
                      goals_against)
    return rows


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 40), st.integers(0, 2**32), st.sampled_from([Points(), Points(2, 1, 0)]))
def test_expectation_table_is_exactly_the_sum_of_the_match_odds(players, seed, points):
    """Shared lineups (GM teams) and distinct ones alike: every value equals
    the plain Fraction sum over all opponents, to the last digit."""
    result = play_tournament(random_field(players, seed=seed), random.Random(seed))
    lineups = dict(result.lineups)
    if seed % 3 == 0:  # players sharing a lineup, too
        first = next(iter(lineups.values()))
        lineups |= {f"Copy {i}": first for i in range(3)}
    reference = reference_table(lineups, points)
    table = expectation_table(lineups, points)
    assert sorted(r.team for r in table) == sorted(lineups)
    for row in table:
        assert (row.games, row.won, row.drawn, row.lost, row.points, row.goals_for,
                row.goals_against) == reference[row.team]
    assert [(-r.points, r.team) for r in table] == sorted((-r.points, r.team) for r in table)
