"""Monte Carlo of the semi-final probability (RULES.md §8), vectorised with numpy.

Given the actual lineups and the actual first group draw, the group stages
are re-played many times (all games and every later draw re-simulated) and
each team's share of simulations in which it reaches the semi-finals is
reported with its standard error ``sqrt(p (1 - p) / K)``.

How it is fast (and still the same rules):

* A group table needs only points and goal difference, so a game needs only
  the goal difference ``D = goals(X) - goals(Y)``. Its exact distribution is
  the convolution of the two binomial goal distributions (RULES.md §3),
  precomputed once per pair of distinct lineups (GM teams share lineups).
* The engine knows no home and away, so the two legs of a pair are two
  independent games with the same law: their *sum* (points of each side and
  goal difference over both legs) is precomputed exactly as well, and one
  draw settles both legs. A group of four takes six draws, not twelve.
* Each distribution gets a Walker/Vose alias table; one uniform number then
  gives a pairing's outcome in O(1) with two array look-ups, for a whole
  chunk of simulations at once. The other orientation of a pair uses the
  same table with the two sides swapped.
* Tables are vectorised: each team's key (points and goal difference) is a
  small matrix product over the six pairings of its group; the lot among
  level teams is a uniformly drawn permutation of the four places (one of
  24), so equal teams are ordered uniformly at random, exactly like the
  tournament's lot.
* Later draws are ``Generator.permuted`` rows of the qualifiers.
* Work is chunked (``chunk_size`` simulations at a time) so memory stays flat.

The generator is ``numpy.random.default_rng(seed)``; the result depends on
the seed and the chunk size only. ``literal_semi_final_probability`` is the
plain reference: the same tournament code, dice by dice, in pure Python.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import permutations

import numpy as np

from bot.rules.lineup import Lineup
from bot.rules.match import chances, goal_probability
from bot.rules.tournament import (
    DEFAULT_POINTS,
    GROUP_SIZE,
    QUALIFIERS,
    SEMI_FINALISTS,
    Points,
    play_group_stages,
)

#: Simulations per vectorised chunk: about 20 MB of working arrays for 64 teams.
DEFAULT_CHUNK = 4096

Progress = Callable[[int, int], None]

_PERMUTATIONS = np.array(list(permutations(range(GROUP_SIZE))), dtype=np.int64)
#: The six pairings of a group of four by place (each stands for both legs).
_PAIRINGS = [(x, y) for x in range(GROUP_SIZE) for y in range(x + 1, GROUP_SIZE)]
_X = np.array([x for x, _ in _PAIRINGS])
_Y = np.array([y for _, y in _PAIRINGS])
#: Rows (pairing 0 side X, pairing 0 side Y, pairing 1 side X, ...) -> the places.
_KEY_OF = np.zeros((2 * len(_PAIRINGS), GROUP_SIZE))
_KEY_OF[2 * np.arange(len(_PAIRINGS)), _X] = 1
_KEY_OF[2 * np.arange(len(_PAIRINGS)) + 1, _Y] = 1


@dataclass(frozen=True, slots=True)
class SemiFinalEstimate:
    """How often each team reached the semi-finals in ``simulations`` runs."""

    simulations: int
    counts: dict[str, int]

    @property
    def probability(self) -> dict[str, float]:
        k = self.simulations
        return {team: (c / k if k else 0.0) for team, c in self.counts.items()}

    @property
    def stderr(self) -> dict[str, float]:
        """Standard error of each probability: sqrt(p (1 - p) / K)."""
        k = self.simulations
        return {
            team: (math.sqrt(p * (1 - p) / k) if k else 0.0)
            for team, p in self.probability.items()
        }


# --------------------------------------------------------------------------- checks


def _check_draw(lineups: Mapping[str, Lineup], first_groups: Sequence[Sequence[str]]) -> None:
    names = [n for g in first_groups for n in g]
    groups = len(first_groups)
    if any(len(g) != GROUP_SIZE for g in first_groups):
        sizes = [len(g) for g in first_groups]
        raise ValueError(f"first group draw has group sizes {sizes}; every group needs four teams")
    if groups < 2 or groups & (groups - 1):
        raise ValueError(
            f"first group draw has {groups} groups; the tournament needs a power of two, "
            "at least 2 (4, 8, 16, ... in a real round)"
        )
    if len(set(names)) != len(names) or set(names) != set(lineups):
        missing = sorted(set(lineups) - set(names))
        unknown = sorted(set(names) - set(lineups))
        raise ValueError(
            f"first group draw must hold every team exactly once: missing {missing}, "
            f"unknown {unknown}, {len(names) - len(set(names))} repeated"
        )


def _check_count(simulations: int) -> None:
    if isinstance(simulations, bool) or not isinstance(simulations, int) or simulations < 0:
        raise ValueError(f"number of simulations {simulations!r} must be a whole number >= 0")


# --------------------------------------------------------------------------- exact pieces


def _binomial_pmf(n: int, p: float) -> np.ndarray:
    k = np.arange(n + 1)
    coefficients = np.array([math.comb(n, int(i)) for i in k], dtype=float)
    return coefficients * p**k * (1.0 - p) ** (n - k)


def goal_difference_distribution(x: Lineup, y: Lineup) -> tuple[int, np.ndarray]:
    """Distribution of goals(X) - goals(Y) as (lowest value, probabilities)."""
    cx, cy = chances(x, y), chances(y, x)
    gx = _binomial_pmf(cx, float(goal_probability(y)))
    gy = _binomial_pmf(cy, float(goal_probability(x)))
    return -cy, np.convolve(gx, gy[::-1])


def alias_table(pmf: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """Vose's alias method: (prob, alias) so that with k uniform in 0..w-1 and
    u uniform in [0, 1), ``k if u < prob[k] else alias[k]`` has law ``pmf``."""
    weights = np.asarray(pmf, dtype=float)
    w = len(weights)
    scaled = (weights * (w / weights.sum())).tolist()
    prob = [1.0] * w
    alias = list(range(w))
    small = [i for i, q in enumerate(scaled) if q < 1.0]
    large = [i for i, q in enumerate(scaled) if q >= 1.0]
    while small and large:
        s, g = small.pop(), large.pop()
        prob[s] = scaled[s]
        alias[s] = g
        scaled[g] += scaled[s] - 1.0
        (small if scaled[g] < 1.0 else large).append(g)
    # Leftovers (rounding) keep probability 1 of themselves.
    return np.array(prob), np.array(alias, dtype=np.int64)


def two_legs(
    low: int, pmf: np.ndarray, points: Points, scale: int
) -> tuple[np.ndarray, np.ndarray]:
    """Exact law of what both legs of a pairing add to the two table keys.

    A table key is ``points * scale + goal difference``. One leg with goal
    difference ``d`` (X's view) adds ``points(d) * scale + d`` to X's key and
    ``points(-d) * scale - d`` to Y's; both legs add the sum of two
    independent such legs. Returns the distinct outcomes as complex numbers
    ``X's part + 1j * Y's part`` and their probabilities.
    """
    diff = np.arange(low, low + len(pmf))
    by_result = np.array([points.loss, points.draw, points.win], dtype=float)
    leg = (by_result[np.sign(diff) + 1] * scale + diff) + 1j * (
        by_result[1 - np.sign(diff)] * scale - diff
    )
    both = (leg[:, None] + leg[None, :]).ravel()
    values, inverse = np.unique(both, return_inverse=True)
    probs = np.bincount(inverse.ravel(), weights=np.outer(pmf, pmf).ravel(),
                        minlength=len(values))
    return values, probs


class _Sampler:
    """Alias tables of both legs of every pairing of distinct lineups,
    concatenated into flat arrays, plus look-ups per ordered pair of teams
    (offset and width of its table).

    Each table entry resolves to a complex number ``X + 1j * Y``: what the
    two legs add to the table keys of the two sides.
    """

    def __init__(self, lineups: Sequence[Lineup], points: Points) -> None:
        distinct = sorted(set(lineups))
        index = {lu: i for i, lu in enumerate(distinct)}
        u = len(distinct)
        laws = {}
        for a in range(u):
            for b in range(a, u):
                laws[a, b] = goal_difference_distribution(distinct[a], distinct[b])
        self.max_chances = max(len(pmf) - 1 for _, pmf in laws.values())
        #: Goal differences over six games lie in [-bound, bound].
        bound = 6 * self.max_chances
        self.scale = 2 * bound + 1
        pair_offset = np.zeros((u, u), dtype=np.int64)
        pair_width = np.zeros((u, u), dtype=np.int64)
        probs, choices = [], []
        offset = 0
        for (a, b), (low, pmf) in laws.items():
            values, law = two_legs(low, pmf, points, self.scale)
            prob, alias = alias_table(law)
            orientations = [(a, b, values)]
            if a != b:  # the same table seen from the other side
                orientations.append((b, a, values.imag + 1j * values.real))
            for x, y, seen in orientations:
                pair_offset[x, y], pair_width[x, y] = offset, len(law)
                probs.append(prob)
                # entry e resolves to choice[2e + 1] (itself) or choice[2e] (its alias)
                choices.append(np.stack([seen[alias], seen], axis=-1).reshape(-1))
                offset += len(law)
        self.prob = np.concatenate(probs)
        self.choice = np.concatenate(choices)
        team_lineup = np.array([index[lu] for lu in lineups], dtype=np.int64)
        la, lb = np.meshgrid(team_lineup, team_lineup, indexing="ij")
        self.teams = n = len(lineups)
        self.offset = pair_offset[la, lb].reshape(n * n)
        self.width = pair_width[la, lb].reshape(n * n).astype(float)

    def sample(self, offset: np.ndarray, width: np.ndarray, uniform: np.ndarray) -> np.ndarray:
        """Key contributions of pairings whose tables start at ``offset`` with
        ``width`` entries, one uniform number in [0, 1) each: a float array
        with a trailing axis (X's part, Y's part).

        ``uniform * width`` never rounds up to ``width``: numpy's uniforms are
        multiples of 2**-53 below 1, and (1 - 2**-53) * w rounds below w for
        every whole w < 2**52, so the column ``k`` is always in range.
        """
        scaled = uniform * width
        k = scaled.astype(np.int64)
        entry = offset + k
        pick = 2 * entry + (scaled - k < self.prob[entry])
        chosen = self.choice[pick]
        return chosen.view(np.float64).reshape(*chosen.shape, 2)

    def pairs(self, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        flat = x * self.teams + y
        return self.offset[flat], self.width[flat]


# --------------------------------------------------------------------------- simulation


def _qualified(key: np.ndarray) -> np.ndarray:
    """Mask of the two largest of four distinct keys along the last axis."""
    k0, k1, k2, k3 = key[..., 0], key[..., 1], key[..., 2], key[..., 3]
    high01, low01 = np.maximum(k0, k1), np.minimum(k0, k1)
    high23, low23 = np.maximum(k2, k3), np.minimum(k2, k3)
    second = np.maximum(np.minimum(high01, high23), np.maximum(low01, low23))
    return key >= second[..., None]


def _advance(
    groups: np.ndarray,
    pairs: tuple[np.ndarray, np.ndarray],
    sampler: _Sampler,
    rng: np.random.Generator,
) -> np.ndarray:
    """Play one group stage for a chunk: ``groups`` is (S, G, 4) team indices,
    ``pairs`` the (offset, width) of each pairing's table, (S or 1, G, 6).
    Return the qualifiers (S, 2G), in group order."""
    s, g, _ = groups.shape
    offset, width = pairs
    uniform = rng.random((s, g, len(_PAIRINGS)))
    contribution = sampler.sample(offset, width, uniform)  # (S, G, 6, 2)
    key = contribution.reshape(s, g, 2 * len(_PAIRINGS)) @ _KEY_OF  # points*scale + diff
    lot = _PERMUTATIONS[rng.integers(len(_PERMUTATIONS), size=(s, g))]
    key = key * GROUP_SIZE + lot
    return groups[_qualified(key)].reshape(s, QUALIFIERS * g)


def _simulate_chunk(
    first: np.ndarray,
    first_pairs: tuple[np.ndarray, np.ndarray],
    size: int,
    sampler: _Sampler,
    rng: np.random.Generator,
) -> np.ndarray:
    """Semi-finalist indices (size, 4) of ``size`` simulations."""
    groups = np.broadcast_to(first, (size, *first.shape))
    pairs = first_pairs
    while True:
        qualifiers = _advance(groups, pairs, sampler, rng)
        if qualifiers.shape[1] <= SEMI_FINALISTS:
            return qualifiers
        groups = rng.permuted(qualifiers, axis=1).reshape(size, -1, GROUP_SIZE)
        pairs = sampler.pairs(groups[:, :, _X], groups[:, :, _Y])


def semi_final_probability(
    lineups: Mapping[str, Lineup],
    first_groups: Sequence[Sequence[str]],
    simulations: int,
    seed: int,
    *,
    points: Points = DEFAULT_POINTS,
    chunk_size: int = DEFAULT_CHUNK,
    progress: Progress | None = None,
) -> SemiFinalEstimate:
    """Estimate every team's probability of reaching the semi-finals.

    ``lineups`` maps every team of the tournament to its lineup;
    ``first_groups`` is the actual first draw (names, four per group).
    ``progress(done, total)`` is called after each chunk.
    """
    _check_count(simulations)
    _check_draw(lineups, first_groups)
    if chunk_size < 1:
        raise ValueError(f"chunk size {chunk_size} must be >= 1")
    names = list(lineups)
    index = {n: i for i, n in enumerate(names)}
    sampler = _Sampler([lineups[n] for n in names], points)
    first = np.array([[index[n] for n in g] for g in first_groups], dtype=np.int64)
    first_pairs = sampler.pairs(first[None, :, _X], first[None, :, _Y])
    rng = np.random.default_rng(seed)
    counts = np.zeros(len(names), dtype=np.int64)
    done = 0
    while done < simulations:
        size = min(chunk_size, simulations - done)
        semis = _simulate_chunk(first, first_pairs, size, sampler, rng)
        counts += np.bincount(semis.ravel(), minlength=len(names))
        done += size
        if progress is not None:
            progress(done, simulations)
    return SemiFinalEstimate(simulations, {n: int(c) for n, c in zip(names, counts, strict=True)})


def literal_semi_final_probability(
    lineups: Mapping[str, Lineup],
    first_groups: Sequence[Sequence[str]],
    simulations: int,
    rng: random.Random,
    *,
    points: Points = DEFAULT_POINTS,
    progress: Progress | None = None,
) -> SemiFinalEstimate:
    """The reference: replay the group stages with the tournament's own code,
    dice by dice, ``simulations`` times (slow; for tests and the benchmark)."""
    _check_count(simulations)
    _check_draw(lineups, first_groups)
    lineups = dict(lineups)
    counts = dict.fromkeys(lineups, 0)
    for done in range(1, simulations + 1):
        _, four = play_group_stages(first_groups, lineups, points, rng)
        for name in four:
            counts[name] += 1
        if progress is not None:
            progress(done, simulations)
    return SemiFinalEstimate(simulations, counts)


__all__ = [
    "DEFAULT_CHUNK",
    "SemiFinalEstimate",
    "alias_table",
    "goal_difference_distribution",
    "literal_semi_final_probability",
    "semi_final_probability",
    "two_legs",
]
