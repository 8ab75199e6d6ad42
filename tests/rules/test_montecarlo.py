"""The vectorised semi-final Monte Carlo: its exact pieces, and agreement with
the literal dice-by-dice reference within error bars."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.rules.lineup import Lineup
from bot.rules.match import goal_distribution, goal_probability, odds
from bot.rules.montecarlo import (
    _Sampler,
    _simulate_chunk,
    alias_table,
    goal_difference_distribution,
    literal_semi_final_probability,
    semi_final_probability,
    two_legs,
)
from bot.rules.tournament import Entrant, Points, play_tournament

from .fields import random_field
from .legacy_montecarlo import alias_table as legacy_alias_table
from .legacy_montecarlo import counts as legacy_counts
from .legacy_montecarlo import two_legs as legacy_two_legs


def implied(prob: np.ndarray, alias: np.ndarray) -> np.ndarray:
    """The distribution an alias table samples from."""
    w = len(prob)
    out = prob / w
    for j in range(w):
        out[alias[j]] += (1 - prob[j]) / w
    return out


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=40).filter(
    lambda xs: sum(xs) > 0.01))
def test_alias_table_reproduces_any_distribution(weights):
    pmf = np.array(weights) / sum(weights)
    prob, alias = alias_table(pmf)
    assert ((prob >= 0) & (prob <= 1)).all()
    assert np.allclose(implied(prob, alias), pmf, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32))
def test_goal_difference_distribution_is_the_exact_convolution(seed):
    rng = random.Random(seed)
    x, y = (random_field(2, seed)[i].lineup for i in range(2))
    if rng.random() < 0.2:
        y = x
    low, pmf = goal_difference_distribution(x, y)
    o = odds(x, y)
    exact = {}
    for i, pi in enumerate(o.goals_x):
        for j, pj in enumerate(o.goals_y):
            exact[i - j] = exact.get(i - j, Fraction(0)) + pi * pj
    assert low == -(len(o.goals_y) - 1)
    assert len(pmf) == len(o.goals_x) + len(o.goals_y) - 1
    assert np.allclose(pmf, [float(exact[low + k]) for k in range(len(pmf))], atol=1e-13)
    # win/draw/loss of the exact engine
    assert math.isclose(pmf[-low + 1:].sum(), float(o.win), abs_tol=1e-12)
    assert math.isclose(pmf[-low], float(o.draw), abs_tol=1e-12)


def test_goal_distributions_match_the_rules_binomial():
    x, y = Lineup(10, 10, 11, 11, 28), Lineup(0, 0, 20, 20, 50)
    low, pmf = goal_difference_distribution(x, y)
    gx = goal_distribution(8, goal_probability(y))
    gy = goal_distribution(34, goal_probability(x))
    assert low == -34 and len(pmf) == 43
    assert math.isclose(pmf[34 + 8], float(gx[8] * gy[0]), rel_tol=1e-12)
    # RULES.md §3 example: W 0.987186 / D 0.009108 / L 0.003707 of X
    assert round(pmf[35:].sum(), 6) == 0.987186
    assert round(pmf[34], 6) == 0.009108
    assert round(pmf[:34].sum(), 6) == 0.003707


def test_sampler_columns_stay_in_range_at_the_top_of_the_unit_interval():
    largest = np.nextafter(1.0, 0.0)  # 1 - 2**-53, numpy's largest uniform
    widths = np.arange(1, 5000, dtype=float)
    assert (np.floor(largest * widths) <= widths - 1).all()


def decode(part: np.ndarray, scale: int) -> tuple[np.ndarray, np.ndarray]:
    """A key contribution ``points * scale + goal difference`` -> (points, difference)."""
    points = np.round(part / scale).astype(int)
    return points, (part - points * scale).astype(int)


@pytest.mark.parametrize("points", [Points(), Points(2, 1, 0)])
def test_two_legs_is_the_exact_law_of_both_legs(points):
    x, y = Lineup(5, 5, 20, 25, 30), Lineup(0, 10, 20, 20, 30)
    o = odds(x, y)
    leg: dict[int, Fraction] = {}
    for i, pi in enumerate(o.goals_x):
        for j, pj in enumerate(o.goals_y):
            leg[i - j] = leg.get(i - j, Fraction(0)) + pi * pj
    exact: dict[tuple[int, int, int], Fraction] = {}
    for d1, p1 in leg.items():
        for d2, p2 in leg.items():
            key = (points.for_goals(d1, 0) + points.for_goals(d2, 0), d1 + d2,
                   points.for_goals(0, d1) + points.for_goals(0, d2))
            exact[key] = exact.get(key, Fraction(0)) + p1 * p2
    low, pmf = goal_difference_distribution(x, y)
    scale = 1001
    values, probs = two_legs(low, pmf, points, scale)
    px, dx = decode(values.real, scale)
    py, dy = decode(values.imag, scale)
    assert (dx == -dy).all()
    got = {(int(a), int(d), int(b)): float(q) for a, d, b, q in zip(px, dx, py, probs,
                                                                   strict=True)}
    assert set(got) == {k for k, v in exact.items() if v > 0}
    for key, value in exact.items():
        assert math.isclose(got[key], float(value), rel_tol=1e-9, abs_tol=1e-15)


def test_sampler_follows_the_distribution():
    x, y = Lineup(5, 5, 20, 25, 30), Lineup(0, 10, 20, 20, 30)
    sampler = _Sampler([x, y], Points())
    rng = np.random.default_rng(3)
    n = 200_000
    pair = sampler.pairs(np.array([0]), np.array([1]))
    drawn = sampler.sample(np.repeat(pair, n), rng.random(n))
    low, pmf = goal_difference_distribution(x, y)
    values, probs = two_legs(low, pmf, Points(), sampler.scale)
    outcome = {complex(v): i for i, v in enumerate(values)}
    index = np.array([outcome[complex(a, b)] for a, b in drawn])
    counts = np.bincount(index, minlength=len(values))
    expected = probs * n
    big = expected > 20
    z = (counts[big] - expected[big]) / np.sqrt(expected[big])
    assert np.abs(z).max() < 5
    assert counts[~big].sum() < 5 * max(expected[~big].sum(), 5)
    # The other orientation is the same law with the sides swapped.
    back_pair = sampler.pairs(np.array([1]), np.array([0]))
    back = sampler.sample(np.repeat(back_pair, n), rng.random(n))
    for side in (0, 1):
        mean, sd = drawn[:, 1 - side].mean(), drawn[:, 1 - side].std()
        assert abs(back[:, side].mean() - mean) < 5 * sd * math.sqrt(2 / n)


def small_tournament():
    entrants = random_field(8, seed=21)
    return play_tournament(entrants, random.Random(21))


def test_monte_carlo_agrees_with_the_literal_engine():
    result = small_tournament()
    lineups, groups = result.lineups, result.first_groups
    fast = semi_final_probability(lineups, groups, 40_000, seed=5)
    slow = literal_semi_final_probability(lineups, groups, 600, random.Random(5))
    assert sum(fast.counts.values()) == 4 * 40_000
    assert sum(slow.counts.values()) == 4 * 600
    worst = 0.0
    for team in lineups:
        p = fast.probability[team]
        # the literal estimate's error, from the (more precise) fast estimate
        se = math.sqrt(max(p * (1 - p), 0.002) / 600 + fast.stderr[team] ** 2)
        worst = max(worst, abs(slow.probability[team] - p) / se)
    assert worst < 4.0
    assert max(fast.probability.values()) > 0.5  # a non-trivial field


@pytest.mark.parametrize(("points", "second"), [(Points(3, 1, 0), "U"), (Points(2, 1, 0), "V")])
def test_points_system_is_respected(points, second):
    """A group where 3-1-0 and 2-1-0 send different teams through. Keeper and
    sweeper 0 make every chance a goal, so every game is certain: W2 wins the
    group; U (a draw, a win 11:8, a loss 8:15 per leg) has 8 points to V's 6
    (three draws) under 3-1-0, but under 2-1-0 both have 6 and V's goal
    difference (0 against -8) decides. Two groups: the semi-finalists are the
    group winners and runners-up."""
    group = {
        "U": Lineup(0, 0, 25, 30, 35),
        "V": Lineup(0, 0, 30, 45, 15),
        "W1": Lineup(0, 0, 25, 45, 20),
        "W2": Lineup(0, 0, 35, 15, 40),
    }
    other = {f"X{i}": Lineup(0, 0, 20 + i, 30, 40 - i) for i in range(4)}
    lineups = group | other
    groups = [list(group), list(other)]
    fast = semi_final_probability(lineups, groups, 4000, seed=1, points=points)
    assert fast.probability["W2"] == 1.0 and fast.probability["W1"] == 0.0
    assert fast.probability[second] == 1.0
    assert fast.probability[({"U", "V"} - {second}).pop()] == 0.0
    slow = literal_semi_final_probability(lineups, groups, 300, random.Random(1), points=points)
    for team in lineups:
        p, q = fast.probability[team], slow.probability[team]
        se = math.sqrt(max(p * (1 - p), 0.002) / 300) + 1e-9
        assert abs(p - q) < 4.5 * se, (team, p, q)


def test_identical_teams_are_equally_likely():
    lineups = {f"T{i:02d}": Lineup(5, 5, 20, 25, 30) for i in range(16)}
    names = list(lineups)
    groups = [names[i : i + 4] for i in range(0, 16, 4)]
    estimate = semi_final_probability(lineups, groups, 20_000, seed=9)
    for team in names:
        assert abs(estimate.probability[team] - 0.25) < 4.5 * math.sqrt(0.25 * 0.75 / 20_000)
        assert math.isclose(estimate.stderr[team],
                            math.sqrt(estimate.probability[team]
                                      * (1 - estimate.probability[team]) / 20_000))


def test_deterministic_per_seed_and_reports_progress():
    result = small_tournament()
    calls = []
    a = semi_final_probability(result.lineups, result.first_groups, 5000, seed=2,
                               chunk_size=1500, progress=lambda d, t: calls.append((d, t)))
    b = semi_final_probability(result.lineups, result.first_groups, 5000, seed=2,
                               chunk_size=1500)
    c = semi_final_probability(result.lineups, result.first_groups, 5000, seed=3,
                               chunk_size=1500)
    assert a == b and a != c
    assert calls == [(1500, 5000), (3000, 5000), (4500, 5000), (5000, 5000)]


def test_zero_simulations():
    result = small_tournament()
    estimate = semi_final_probability(result.lineups, result.first_groups, 0, seed=1)
    assert estimate.simulations == 0
    assert set(estimate.probability.values()) == {0.0}
    assert set(estimate.stderr.values()) == {0.0}


class TestBadInput:
    def setup_method(self):
        self.result = small_tournament()

    def test_negative_or_fractional_count(self):
        for bad in (-1, 2.5, True):
            with pytest.raises(ValueError, match="whole number >= 0"):
                semi_final_probability(self.result.lineups, self.result.first_groups, bad, 1)

    def test_groups_must_be_a_power_of_two_of_fours(self):
        groups = self.result.first_groups
        with pytest.raises(ValueError, match="power of two"):
            semi_final_probability(self.result.lineups, groups[:3], 10, 1)
        with pytest.raises(ValueError, match="four teams"):
            semi_final_probability(self.result.lineups, [g[:3] for g in groups], 10, 1)

    def test_every_team_exactly_once(self):
        groups = [list(g) for g in self.result.first_groups]
        groups[0][0] = groups[1][0]
        with pytest.raises(ValueError, match="exactly once"):
            semi_final_probability(self.result.lineups, groups, 10, 1)
        with pytest.raises(ValueError, match="exactly once"):
            literal_semi_final_probability(self.result.lineups, groups, 10, random.Random(1))


def test_entrant_lineups_flow_through_unchanged():
    """The Monte Carlo uses the tournament's lineups, GM teams included."""
    entrants = [Entrant("Solo", Lineup(1, 1, 30, 30, 26))]
    result = play_tournament(entrants, random.Random(4))
    estimate = semi_final_probability(result.lineups, result.first_groups, 2000, seed=4)
    assert set(estimate.counts) == {t.name for t in result.teams}


@pytest.mark.parametrize(
    ("players", "field_seed", "simulations", "seed", "chunk", "points"),
    [
        (8, 21, 3000, 5, 4096, Points()),
        (40, 3, 2500, 11, 700, Points()),
        (16, 8, 2000, 9, 4096, Points(2, 1, 0)),
        (100, 4, 600, 2, 250, Points()),
    ],
)
def test_compiled_engine_draws_exactly_what_the_numpy_engine_drew(
    players, field_seed, simulations, seed, chunk, points
):
    """Same seed, same random numbers, same counts: stored reports of rounds
    evaluated with the numpy engine replay equal."""
    result = play_tournament(random_field(players, seed=field_seed), random.Random(field_seed),
                             points=points)
    lineups, groups = result.lineups, result.first_groups
    fast = semi_final_probability(lineups, groups, simulations, seed, points=points,
                                  chunk_size=chunk)
    assert fast.counts == legacy_counts(lineups, groups, simulations, seed, points, chunk)


def test_tables_are_built_only_for_pairs_that_meet():
    """Of a 128-team field's lineup pairs, a short run builds only those its
    draws bring together, and the first stage's pairs always."""
    result = play_tournament(random_field(100, seed=6), random.Random(6))
    lineups = result.lineups
    distinct = sorted(set(lineups.values()))
    sampler = _Sampler(list(lineups.values()), Points())
    index = {n: i for i, n in enumerate(lineups)}
    first = np.array([[index[n] for n in g] for g in result.first_groups])
    sampler.ensure(first[None])
    first_pairs = {frozenset((lineups[g[x]], lineups[g[y]])) for g in result.first_groups
                   for x in range(4) for y in range(x + 1, 4)}
    assert sampler.built == len(first_pairs)
    every = len(distinct) * (len(distinct) + 1) // 2
    estimate = semi_final_probability(lineups, result.first_groups, 50, seed=1)
    assert sum(estimate.counts.values()) == 200
    rng = np.random.default_rng(1)
    _simulate_chunk(first, 50, sampler, rng)
    assert len(first_pairs) < sampler.built < every / 2


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 60), st.data(),
       st.sampled_from([Points(), Points(2, 1, 0), Points(1, 1, 0), Points(3, 3, 3)]))
def test_two_legs_equals_the_numpy_formulation_bit_for_bit(width, data, points):
    low = -data.draw(st.integers(0, width - 1))
    weights = data.draw(st.lists(st.floats(0, 1, allow_nan=False), min_size=width,
                                 max_size=width))
    pmf = np.array(weights) / sum(weights) if sum(weights) > 0 else np.full(width, 1 / width)
    scale = 12 * width + 1
    values, probs = two_legs(low, pmf, points, scale)
    expected_values, expected_probs = legacy_two_legs(low, pmf, points, scale)
    assert np.array_equal(values, expected_values)
    assert np.array_equal(probs, expected_probs)
    prob, alias = alias_table(probs)
    expected_prob, expected_alias = legacy_alias_table(probs)
    assert np.array_equal(prob, expected_prob) and np.array_equal(alias, expected_alias)


def test_pairs_with_the_same_law_share_one_table():
    """Lineup pairs whose sides have the same chances and goal probabilities
    read the same rows (built once), and every built pair's rows are its law."""
    result = play_tournament(random_field(400, seed=7), random.Random(7))
    lineups = result.lineups
    sampler = _Sampler(list(lineups.values()), Points())
    _simulate_chunk(np.array([[list(lineups).index(n) for n in g] for g in result.first_groups]),
                    200, sampler, np.random.default_rng(7))
    info = sampler.pair_info
    built = np.flatnonzero(info >= 0)
    a, b = np.divmod(built, sampler.lineups)
    lower = built[a <= b]
    by_law: dict[tuple, set[int]] = {}
    for pair in lower.tolist():
        x, y = divmod(pair, sampler.lineups)
        key = (sampler.chances[x][y], sampler.goal[y], sampler.chances[y][x], sampler.goal[x])
        by_law.setdefault(key, set()).add(int(info[pair]))
    assert all(len(infos) == 1 for infos in by_law.values())
    assert len(by_law) < len(lower)  # some pairs do share
    widths = sum(((next(iter(i)) >> 1) & 0xFFFF) for i in by_law.values())
    assert sampler.rows == widths
    for pair in lower[:300].tolist():
        x, y = divmod(pair, sampler.lineups)
        u = np.random.default_rng(pair).random(50)
        got = sampler.sample(np.full(50, pair), u)
        if x != y:
            back = sampler.sample(np.full(50, y * sampler.lineups + x), u)
            assert np.array_equal(back, got[:, ::-1])
