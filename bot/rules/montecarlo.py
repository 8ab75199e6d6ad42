"""Monte Carlo of the semi-final probability (RULES.md §8): numpy draws,
compiled loops (``bot.rules.mc_kernel``, numba).

Given the actual lineups and the actual first group draw, the group stages
are re-played many times (all games and every later draw re-simulated) and
each team's share of simulations in which it reaches the semi-finals is
reported with its standard error ``sqrt(p (1 - p) / K)``.

How it is fast (and still the same rules):

* A group table needs only points and goal difference, so a game needs only
  the goal difference ``D = goals(X) - goals(Y)``. Its exact distribution is
  the convolution of the two binomial goal distributions (RULES.md §3),
  computed once per pair of distinct lineups (GM teams share lineups), and
  only for pairs that meet: the first stage's pairs up front, later ones
  when a simulation first brings them together (in batches).
* The engine knows no home and away, so the two legs of a pair are two
  independent games with the same law: their *sum* (points of each side and
  goal difference over both legs) is computed exactly as well, and one draw
  settles both legs. A group of four takes six draws, not twelve.
* Each distribution gets a Walker/Vose alias table; one uniform number then
  gives a pairing's outcome in O(1). The other orientation of a pair uses
  the same table with the two sides swapped.
* A compiled loop plays a stage for a whole chunk: each team's key (points
  and goal difference) from the six pairings of its group; the lot among
  level teams is a uniformly drawn permutation of the four places (one of
  24), so equal teams are ordered uniformly at random, exactly like the
  tournament's lot; the two best advance.
* Later draws are ``Generator.permuted`` rows of the qualifiers.
* Work is chunked (``chunk_size`` simulations at a time) so memory stays flat.

The generator is ``numpy.random.default_rng(seed)``; the result depends on
the seed and the chunk size only, and is the same, number for number, as
the numpy formulation of these steps gave before the loops were compiled
(``tests/rules/legacy_montecarlo.py``): stored reports replay equal.
``literal_semi_final_probability`` is the plain reference: the same
tournament code, dice by dice, in pure Python.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import permutations
from types import ModuleType

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


def _kernel() -> ModuleType:
    """The compiled loops (``bot.rules.mc_kernel``), imported on first use:
    importing this module stays as cheap as numpy, and numba (which brings
    its own imports) loads only when a Monte Carlo runs."""
    from bot.rules import mc_kernel

    return mc_kernel


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


@lru_cache(maxsize=65536)
def _binomial_pmf(n: int, p: Fraction) -> np.ndarray:
    k = np.arange(n + 1)
    coefficients = np.array([math.comb(n, int(i)) for i in k], dtype=float)
    q = float(p)
    pmf = coefficients * q**k * (1.0 - q) ** (n - k)
    pmf.flags.writeable = False
    return pmf


def goal_difference_distribution(x: Lineup, y: Lineup) -> tuple[int, np.ndarray]:
    """Distribution of goals(X) - goals(Y) as (lowest value, probabilities)."""
    cx, cy = chances(x, y), chances(y, x)
    gx = _binomial_pmf(cx, goal_probability(y))
    gy = _binomial_pmf(cy, goal_probability(x))
    return -cy, np.convolve(gx, gy[::-1])


def alias_table(pmf: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """Vose's alias method: (prob, alias) so that with k uniform in 0..w-1 and
    u uniform in [0, 1), ``k if u < prob[k] else alias[k]`` has law ``pmf``."""
    weights = np.asarray(pmf, dtype=float)
    prob, alias = _kernel().vose(weights * (len(weights) / weights.sum()))
    # Leftovers (rounding) keep probability 1 of themselves.
    return prob, alias


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
    gain_x, gain_y, probs = _kernel().both_legs(
        low, np.asarray(pmf, dtype=float), points.loss, points.draw, points.win, scale)
    return gain_x + 1j * gain_y, probs


class _Sampler:
    """Alias tables of both legs of the pairings of distinct lineups, built
    lazily (only for pairs that meet, in batches) into one growing table,
    plus the look-up per ordered pair of lineups (``mc_kernel`` documents
    the layout). A pair's law is computed for the lower lineup first
    (lineups sorted); the other orientation reads the same rows with the
    sides swapped.
    """

    def __init__(self, lineups: Sequence[Lineup], points: Points) -> None:
        self.points = points
        self.distinct = sorted(set(lineups))
        index = {lu: i for i, lu in enumerate(self.distinct)}
        self.lineups = u = len(self.distinct)
        self.max_chances = _max_chances(self.distinct)
        #: Goal differences over six games lie in [-bound, bound].
        bound = 6 * self.max_chances
        self.scale = 2 * bound + 1
        self.teams = len(lineups)
        self.lineup_of = np.array([index[lu] for lu in lineups], dtype=np.int64)
        self.pair_info = np.full(u * u, _kernel().UNBUILT, dtype=np.int64)
        self.table = np.zeros(0, dtype=np.int64)
        #: Rows of ``table`` in use.
        self.rows = 0
        #: Unordered pairs of lineups whose law was built.
        self.built = 0
        #: ``chances[a][b]`` of lineup a against b, and each lineup's goal
        #: probability against it (made when the first tables are built) as
        #: the number of that probability in ``probabilities``: the keys
        #: below are small ints, which hash much faster than ``Fraction``s.
        self.chances: list[list[int]] | None = None
        self.goal: list[int] = []
        self.probabilities: list[Fraction] = []
        #: The lower lineup pair first built with each law (chances and goal
        #: probability of both sides), or ``-1 - pair`` while being built.
        self.laws: dict[tuple[int, int, int, int], int] = {}
        #: Goal distributions by (chances, goal probability's number).
        self.goals: dict[tuple[int, int], np.ndarray] = {}

    def ensure(self, groups: np.ndarray) -> None:
        """Build the tables of every lineup pair met in ``groups`` (S, G, 4)."""
        asked = _kernel().missing_pairs(groups, self.lineup_of, self.lineups, self.pair_info)
        if len(asked):
            self._build(np.sort(asked))

    def _build(self, pairs: np.ndarray) -> None:
        _k = _kernel()
        if self.chances is None:
            self.chances = _chance_matrix(self.distinct).tolist()
            numbers: dict[Fraction, int] = {}
            for lu in self.distinct:
                self.goal.append(numbers.setdefault(goal_probability(lu), len(numbers)))
            self.probabilities = list(numbers)
        chances, goal, convolve, goals = self.chances, self.goal, np.convolve, self.goals
        probabilities = self.probabilities
        # A pair's law depends only on both sides' chances and goal
        # probabilities: pairs that agree share one table (the same bits).
        laws, fresh = self.laws, []
        shared: list[tuple[int, int]] = []
        copies: list[tuple[int, int]] = []
        lows, pmfs = [], []
        for pair in pairs.tolist():
            a, b = divmod(pair, self.lineups)
            cx, cy = chances[a][b], chances[b][a]
            key = (cx, goal[b], cy, goal[a])
            first = laws.get(key)
            if first is not None:
                (shared if first >= 0 else copies).append((pair, first))
                continue
            laws[key] = -1 - pair  # built in this batch, by this pair
            fresh.append(pair)
            # goal_difference_distribution(distinct[a], distinct[b]), in short
            gx = goals.get((cx, goal[b]))
            if gx is None:
                gx = goals[cx, goal[b]] = _binomial_pmf(cx, probabilities[goal[b]])
            gy = goals.get((cy, goal[a]))
            if gy is None:
                gy = goals[cy, goal[a]] = _binomial_pmf(cy, probabilities[goal[a]])
            lows.append(-cy)
            pmfs.append(convolve(gx, gy[::-1]))
        self._share(shared)
        if not fresh:
            self.built += len(pairs)
            return
        pairs = np.array(fresh, dtype=np.int64)
        widths = np.array([len(pmf) for pmf in pmfs], dtype=np.int64)
        starts = np.zeros(len(pmfs) + 1, dtype=np.int64)
        np.cumsum(widths, out=starts[1:])
        # Both legs: at most 6 sign patterns for each of 2w - 1 goal differences.
        room = self.rows + int((6 * (2 * widths - 1)).sum())
        if _k.ROW * room > len(self.table):
            grown = np.zeros(_k.ROW * max(room, 2 * self.rows), dtype=np.int64)
            grown[: _k.ROW * self.rows] = self.table[: _k.ROW * self.rows]
            self.table = grown
        points = self.points
        self.rows = _k.build_tables(
            pairs, np.array(lows, dtype=np.int64), np.concatenate(pmfs), starts, self.lineups,
            points.loss, points.draw, points.win, self.scale, self.pair_info, self.table,
            self.table.view(np.float64), self.rows,
        )
        for pair in fresh:
            a, b = divmod(pair, self.lineups)
            laws[(chances[a][b], goal[b], chances[b][a], goal[a])] = pair
        self._share([(pair, -1 - first) for pair, first in copies])
        self.built += len(fresh) + len(shared) + len(copies)

    def _share(self, shared: list[tuple[int, int]]) -> None:
        """Point each (pair, built pair with the same law) at the built table."""
        if not shared:
            return
        pair, first = np.array(shared, dtype=np.int64).T
        a, b = np.divmod(pair, self.lineups)
        info = self.pair_info[first] & ~np.int64(1)
        self.pair_info[pair] = info
        self.pair_info[b * self.lineups + a] = np.where(a != b, info | 1, info)

    def pairs(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Lineup-pair indices of teams ``x`` against ``y`` (tables built if needed)."""
        x, y = np.ravel(x), np.ravel(y)
        self.ensure(np.stack([x, y, x, y], axis=-1)[None])
        return self.lineup_of[x] * self.lineups + self.lineup_of[y]

    def sample(self, pair: np.ndarray, uniform: np.ndarray) -> np.ndarray:
        """What both legs of each lineup pair ``pair`` add to the keys of X
        and Y, one uniform number in [0, 1) each: the numpy formulation of
        the compiled draw, (..., 2), for tests.

        ``uniform * width`` never rounds up to ``width``: numpy's uniforms are
        multiples of 2**-53 below 1, and (1 - 2**-53) * w rounds below w for
        every whole w < 2**52, so the row ``k`` is always in range.
        """
        _k = _kernel()
        info = self.pair_info[pair]
        scaled = uniform * ((info >> 1) & _k.MAX_WIDTH)
        k = scaled.astype(np.int64)
        row = ((info >> 17) + k) * _k.ROW
        keep = scaled - k < self.table.view(np.float64)[row + _k.PROB]
        packed = np.where(keep, self.table[row + _k.SELF], self.table[row + _k.ALIAS])
        high, low = packed >> 32, (packed & 0xFFFFFFFF).astype(np.uint32).astype(np.int32)
        gains = np.stack([high, low], axis=-1).astype(float)
        flip = (info & 1).astype(bool)
        gains[flip] = gains[flip][:, ::-1]
        return gains


def _chance_matrix(distinct: Sequence[Lineup]) -> np.ndarray:
    """``chances(x, y)`` for every pair of these lineups (the whole-number
    rounding of ``bot.rules.match.chances``)."""
    s, m, v, a = (np.array([getattr(lu, f) for lu in distinct], dtype=np.int64) for f in "smva")
    attack = np.maximum(s[:, None] - (a + v)[None, :], 0)
    midfield = np.maximum(m[:, None] - m[None, :], 0)
    defence = np.maximum(v[:, None] - s[None, :], 0)
    return attack + (midfield + 1) // 2 + (defence + 2) // 4


def _max_chances(distinct: Sequence[Lineup]) -> int:
    """The most chances both sides of any pair of these lineups have together."""
    both = _chance_matrix(distinct)
    return int((both + both.T).max())


# --------------------------------------------------------------------------- simulation


def _simulate_chunk(
    first: np.ndarray, size: int, sampler: _Sampler, rng: np.random.Generator
) -> np.ndarray:
    """Semi-finalist indices (size, 4) of ``size`` simulations.

    Per stage: ``rng.random((S, G, 6))`` (one uniform per pairing), then
    ``rng.integers(24, size=(S, G))`` (the lot of each group), the stage
    (compiled; it stops where it meets pairs without tables, which are then
    built), then ``rng.permuted(qualifiers, axis=1)`` (the next draw).
    """
    groups = first[None]
    while True:
        s, g = size, groups.shape[1]
        uniform = rng.random((s, g, len(_PAIRINGS)))
        lot = rng.integers(len(_PERMUTATIONS), size=(s, g))
        qualifiers = np.empty((s, QUALIFIERS * g), dtype=np.int64)
        start = 0
        while start >= 0:
            start = _kernel().play_stage(
                groups, uniform, lot, _PERMUTATIONS, sampler.lineup_of, sampler.lineups,
                sampler.pair_info, sampler.table, sampler.table.view(np.float64), qualifiers,
                start,
            )
            if start >= 0:  # pairs whose tables are not built yet: build, go on
                sampler.ensure(groups[start:])
        if qualifiers.shape[1] <= SEMI_FINALISTS:
            return qualifiers
        groups = rng.permuted(qualifiers, axis=1).reshape(size, -1, GROUP_SIZE)


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
    sampler.ensure(first[None])
    rng = np.random.default_rng(seed)
    counts = np.zeros(len(names), dtype=np.int64)
    done = 0
    while done < simulations:
        size = min(chunk_size, simulations - done)
        semis = _simulate_chunk(first, size, sampler, rng)
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
