"""The semi-final Monte Carlo as numpy formulated it before the compiled loop
(one array pass per step), kept as the reference the compiled engine must
match number for number: stored reports of old rounds hold its results,
and replaying them must give the same numbers."""

from __future__ import annotations

from itertools import permutations

import numpy as np

from bot.rules.montecarlo import goal_difference_distribution
from bot.rules.tournament import DEFAULT_POINTS

PERMUTATIONS = np.array(list(permutations(range(4))), dtype=np.int64)
PAIRINGS = [(x, y) for x in range(4) for y in range(x + 1, 4)]
X = np.array([x for x, _ in PAIRINGS])
Y = np.array([y for _, y in PAIRINGS])
KEY_OF = np.zeros((12, 4))
KEY_OF[2 * np.arange(6), X] = 1
KEY_OF[2 * np.arange(6) + 1, Y] = 1


class Sampler:
    """Every pair of distinct lineups, eagerly, one table per orientation."""

    def __init__(self, lineups, points):
        distinct = sorted(set(lineups))
        index = {lu: i for i, lu in enumerate(distinct)}
        u = len(distinct)
        laws = {(a, b): goal_difference_distribution(distinct[a], distinct[b])
                for a in range(u) for b in range(a, u)}
        bound = 6 * max(len(pmf) - 1 for _, pmf in laws.values())
        self.scale = 2 * bound + 1
        pair_offset = np.zeros((u, u), dtype=np.int64)
        pair_width = np.zeros((u, u), dtype=np.int64)
        probs, choices, offset = [], [], 0
        for (a, b), (low, pmf) in laws.items():
            values, law = two_legs(low, pmf, points, self.scale)
            prob, alias = alias_table(law)
            orientations = [(a, b, values)]
            if a != b:
                orientations.append((b, a, values.imag + 1j * values.real))
            for x, y, seen in orientations:
                pair_offset[x, y], pair_width[x, y] = offset, len(law)
                probs.append(prob)
                choices.append(np.stack([seen[alias], seen], axis=-1).reshape(-1))
                offset += len(law)
        self.prob, self.choice = np.concatenate(probs), np.concatenate(choices)
        team = np.array([index[lu] for lu in lineups], dtype=np.int64)
        la, lb = np.meshgrid(team, team, indexing="ij")
        self.teams = n = len(lineups)
        self.offset = pair_offset[la, lb].reshape(n * n)
        self.width = pair_width[la, lb].reshape(n * n).astype(float)

    def sample(self, offset, width, uniform):
        scaled = uniform * width
        k = scaled.astype(np.int64)
        entry = offset + k
        chosen = self.choice[2 * entry + (scaled - k < self.prob[entry])]
        return chosen.view(np.float64).reshape(*chosen.shape, 2)

    def pairs(self, x, y):
        flat = x * self.teams + y
        return self.offset[flat], self.width[flat]


def qualified(key):
    k0, k1, k2, k3 = key[..., 0], key[..., 1], key[..., 2], key[..., 3]
    high01, low01 = np.maximum(k0, k1), np.minimum(k0, k1)
    high23, low23 = np.maximum(k2, k3), np.minimum(k2, k3)
    second = np.maximum(np.minimum(high01, high23), np.maximum(low01, low23))
    return key >= second[..., None]


def counts(lineups, first_groups, simulations, seed, points=DEFAULT_POINTS, chunk_size=4096):
    """Semi-final counts per team, as the numpy engine computed them."""
    names = list(lineups)
    index = {n: i for i, n in enumerate(names)}
    sampler = Sampler([lineups[n] for n in names], points)
    first = np.array([[index[n] for n in g] for g in first_groups], dtype=np.int64)
    first_pairs = sampler.pairs(first[None, :, X], first[None, :, Y])
    rng = np.random.default_rng(seed)
    total = np.zeros(len(names), dtype=np.int64)
    done = 0
    while done < simulations:
        size = min(chunk_size, simulations - done)
        groups, pairs = np.broadcast_to(first, (size, *first.shape)), first_pairs
        while True:
            s, g, _ = groups.shape
            uniform = rng.random((s, g, 6))
            gains = sampler.sample(*pairs, uniform)
            key = gains.reshape(s, g, 12) @ KEY_OF
            key = key * 4 + PERMUTATIONS[rng.integers(24, size=(s, g))]
            qualifiers = groups[qualified(key)].reshape(s, 2 * g)
            if qualifiers.shape[1] <= 4:
                break
            groups = rng.permuted(qualifiers, axis=1).reshape(size, -1, 4)
            pairs = sampler.pairs(groups[:, :, X], groups[:, :, Y])
        total += np.bincount(qualifiers.ravel(), minlength=len(names))
        done += size
    return {n: int(c) for n, c in zip(names, total, strict=True)}


def two_legs(low, pmf, points, scale):
    """Both legs' law as numpy computed it: ``np.unique`` over all pairs of
    leg outcomes, ``np.bincount`` of their probabilities."""
    diff = np.arange(low, low + len(pmf))
    by_result = np.array([points.loss, points.draw, points.win], dtype=float)
    leg = (by_result[np.sign(diff) + 1] * scale + diff) + 1j * (
        by_result[1 - np.sign(diff)] * scale - diff
    )
    values, inverse = np.unique((leg[:, None] + leg[None, :]).ravel(), return_inverse=True)
    probs = np.bincount(inverse.ravel(), weights=np.outer(pmf, pmf).ravel(),
                        minlength=len(values))
    return values, probs


def alias_table(pmf):
    """Vose's alias method with Python lists, as numpy's engine built it."""
    weights = np.asarray(pmf, dtype=float)
    w = len(weights)
    scaled = (weights * (w / weights.sum())).tolist()
    prob, alias = [1.0] * w, list(range(w))
    small = [i for i, q in enumerate(scaled) if q < 1.0]
    large = [i for i, q in enumerate(scaled) if q >= 1.0]
    while small and large:
        s, g = small.pop(), large.pop()
        prob[s], alias[s] = scaled[s], g
        scaled[g] += scaled[s] - 1.0
        (small if scaled[g] < 1.0 else large).append(g)
    return np.array(prob), np.array(alias, dtype=np.int64)
