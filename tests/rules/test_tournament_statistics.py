"""Played tournaments agree with the exact match distributions (RULES.md §3):
results and goals of many seeded tournaments against ``match.odds``."""

from __future__ import annotations

import math
import random
from collections import Counter, defaultdict

import pytest

from bot.rules.lineup import Lineup
from bot.rules.match import odds
from bot.rules.tournament import Entrant, play_tournament

LINEUPS = [Lineup.parse(x) for x in ("0-0-25-30-35", "5-5-20-25-30", "0-10-20-20-30",
                                     "3-7-18-22-26")]
#: Four teams of each lineup: 16 players, no GM team, so every game is
#: between two known lineups (8 of each pair per tournament and more).
ENTRANTS = [Entrant(f"T{k}-{i}", lu) for k, lu in enumerate(LINEUPS) for i in range(4)]
TOURNAMENTS = 150


def chi_square_z(observed: list[int], expected: list[float]) -> float:
    """Chi-square statistic as a standard normal score (Wilson-Hilferty),
    after merging cells with an expectation below 5 into their neighbour."""
    cells: list[list[float]] = []
    for o, e in zip(observed, expected, strict=True):
        if cells and cells[-1][1] < 5:
            cells[-1][0] += o
            cells[-1][1] += e
        else:
            cells.append([o, e])
    while len(cells) > 1 and cells[-1][1] < 5:
        o, e = cells.pop()
        cells[-1][0] += o
        cells[-1][1] += e
    k = len(cells) - 1
    if k < 1:
        return 0.0
    x = sum((o - e) ** 2 / e for o, e in cells)
    return ((x / k) ** (1 / 3) - (1 - 2 / (9 * k))) / math.sqrt(2 / (9 * k))


@pytest.fixture(scope="module")
def played():
    return collect()


def collect():
    results: dict[tuple[Lineup, Lineup], Counter] = defaultdict(Counter)
    goals: dict[tuple[Lineup, Lineup], Counter] = defaultdict(Counter)
    for seed in range(TOURNAMENTS):
        result = play_tournament(ENTRANTS, random.Random(seed))
        lineups = result.lineups
        played = [g for s in result.stages for grp in s.groups for g in grp.games]
        played += list(result.knockout)
        for game in played:
            pair = (lineups[game.home], lineups[game.away])
            h, a = game.goals
            results[pair]["W" if h > a else "D" if h == a else "L"] += 1
            goals[pair][h] += 1
    return results, goals


def test_results_and_goals_follow_the_exact_distributions(played):
    results, goals = played
    assert len(results) == 16
    scores = []
    for (x, y), counts in results.items():
        n = sum(counts.values())
        assert n >= 200
        o = odds(x, y)
        exact = [float(o.win), float(o.draw), float(o.loss)]
        scores.append(chi_square_z([counts["W"], counts["D"], counts["L"]],
                                   [n * p for p in exact]))
        dist = o.goals_x
        observed = [goals[(x, y)][k] for k in range(len(dist))]
        assert sum(observed) == n  # never more goals than chances
        scores.append(chi_square_z(observed, [n * float(p) for p in dist]))
        mean = sum(k * c for k, c in goals[(x, y)].items()) / n
        expected_goals = float(o.expected_goals[0])
        sd = math.sqrt(sum(float(p) * (k - expected_goals) ** 2 for k, p in enumerate(dist)))
        assert abs(mean - expected_goals) <= 4.5 * sd / math.sqrt(n) + 1e-12
    # Seeded, so deterministic; 4.5 sigma leaves room for 32 tests.
    assert max(scores) < 4.5, scores


def test_a_biased_engine_would_be_caught(played):
    """The check has power: against odds with 10 points of win moved to loss,
    the same data fails."""
    results, _ = played
    (x, y), counts = max(results.items(), key=lambda kv: min(kv[1]["W"], kv[1]["L"]))
    n = sum(counts.values())
    o = odds(x, y)
    shifted = [float(o.win) - 0.1, float(o.draw), float(o.loss) + 0.1]
    assert chi_square_z([counts["W"], counts["D"], counts["L"]], [n * p for p in shifted]) > 4.5
