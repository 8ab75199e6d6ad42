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
* Each distribution gets a Walker/Vose alias table; one uniform number per
  game then gives ``D`` in O(1) with two array look-ups, for a whole chunk
  of simulations at once.
* Tables are vectorised: points and goal difference by a small matrix
  product over the 12 games of a group; the lot among level teams is a
  uniformly drawn permutation of the four places (one of 24), so equal
  teams are ordered uniformly at random, exactly like the tournament's lot.
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
    SCHEDULE,
    SEMI_FINALISTS,
    Points,
    play_group_stages,
)

#: Simulations per vectorised chunk: ~10 MB of working arrays for 64 teams.
DEFAULT_CHUNK = 8192

Progress = Callable[[int, int], None]

_PERMUTATIONS = np.array(list(permutations(range(GROUP_SIZE))), dtype=np.int64)
_HOME = np.array([h for h, _ in SCHEDULE])
_AWAY = np.array([a for _, a in SCHEDULE])
# Incidence of the 12 games on the 4 places: +1 for the home side, -1 for the away side.
_HOME_OF = np.zeros((len(SCHEDULE), GROUP_SIZE))
_AWAY_OF = np.zeros((len(SCHEDULE), GROUP_SIZE))
_HOME_OF[np.arange(len(SCHEDULE)), _HOME] = 1
_AWAY_OF[np.arange(len(SCHEDULE)), _AWAY] = 1
#: Rows (game 0 home, game 0 away, game 1 home, ...) -> the four places.
_KEY_OF = np.stack([_HOME_OF, _AWAY_OF], axis=1).reshape(2 * len(SCHEDULE), GROUP_SIZE)


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
    pmf = np.asarray(pmf, dtype=float)
    w = len(pmf)
    scaled = list(pmf * (w / pmf.sum()))
    prob = np.ones(w)
    alias = np.arange(w)
    small = [i for i, q in enumerate(scaled) if q < 1.0]
    large = [i for i, q in enumerate(scaled) if q >= 1.0]
    while small and large:
        s, g = small.pop(), large.pop()
        prob[s] = scaled[s]
        alias[s] = g
        scaled[g] = scaled[g] + scaled[s] - 1.0
        (small if scaled[g] < 1.0 else large).append(g)
    for i in small + large:  # rounding leftovers: probability 1 of itself
        prob[i] = 1.0
    return prob, alias


class _Sampler:
    """Alias tables of the goal difference for every ordered pair of distinct
    lineups, concatenated into flat arrays, plus look-ups per ordered pair of
    teams (offset and width of its table).

    Every entry of a table also carries what the game adds to each side's
    table key ``points * scale + goal difference`` (home, away), so sampling
    a game yields its two key contributions directly.
    """

    def __init__(self, lineups: Sequence[Lineup], points: Points) -> None:
        distinct = sorted(set(lineups))
        index = {lu: i for i, lu in enumerate(distinct)}
        u = len(distinct)
        tables: dict[tuple[int, int], tuple[int, np.ndarray]] = {}
        for a in range(u):
            for b in range(a, u):
                low, pmf = goal_difference_distribution(distinct[a], distinct[b])
                tables[a, b] = (low, pmf)
                tables[b, a] = (-(low + len(pmf) - 1), pmf[::-1])
        self.max_chances = max(len(pmf) - 1 for _, pmf in tables.values())
        #: Goal differences lie in [-bound, bound] over six games.
        bound = 6 * self.max_chances
        self.scale = 2 * bound + 1
        pair_offset = np.zeros((u, u), dtype=np.int64)
        pair_width = np.zeros((u, u), dtype=np.int64)
        probs, aliases, contributions = [], [], []
        offset = 0
        result_points = np.array([points.loss, points.draw, points.win], dtype=float)
        for (a, b), (low, pmf) in tables.items():
            prob, alias = alias_table(pmf)
            diff = np.arange(low, low + len(pmf))
            home = result_points[np.sign(diff) + 1] * self.scale + diff
            away = result_points[1 - np.sign(diff)] * self.scale - diff
            pair_offset[a, b], pair_width[a, b] = offset, len(pmf)
            probs.append(prob)
            aliases.append(alias + offset)
            contributions.append(np.stack([home, away], axis=-1))
            offset += len(pmf)
        self.prob = np.concatenate(probs)
        alias_all = np.concatenate(aliases)
        own = np.concatenate(contributions)
        # Entry e resolves to choice[2e + 1] (itself) or choice[2e] (its alias),
        # each the complex number home + 1j * away (two float64s side by side).
        own_complex = own[:, 0] + 1j * own[:, 1]
        self.choice = np.stack([own_complex[alias_all], own_complex], axis=-1).reshape(-1)
        team_lineup = np.array([index[lu] for lu in lineups], dtype=np.int64)
        la, lb = np.meshgrid(team_lineup, team_lineup, indexing="ij")
        self.teams = n = len(lineups)
        self.offset = pair_offset[la, lb].reshape(n * n)
        self.width = pair_width[la, lb].reshape(n * n).astype(float)

    def sample(self, offset: np.ndarray, width: np.ndarray, uniform: np.ndarray) -> np.ndarray:
        """Key contributions of games whose tables start at ``offset`` with
        ``width`` entries, one uniform number in [0, 1) each: a float array
        with a trailing axis (home, away) per game.

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

    def pairs(self, home: np.ndarray, away: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        flat = home * self.teams + away
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
    ``pairs`` the (offset, width) of each game's table, (S or 1, G, 12).
    Return the qualifiers (S, 2G), in group order."""
    s, g, _ = groups.shape
    offset, width = pairs
    uniform = rng.random((s, g, len(SCHEDULE)))
    contribution = sampler.sample(offset, width, uniform)  # (S, G, 12, 2)
    key = contribution.reshape(s, g, 2 * len(SCHEDULE)) @ _KEY_OF  # points*scale + diff
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
        pairs = sampler.pairs(groups[:, :, _HOME], groups[:, :, _AWAY])


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
    first_pairs = sampler.pairs(first[None, :, _HOME], first[None, :, _AWAY])
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
]
