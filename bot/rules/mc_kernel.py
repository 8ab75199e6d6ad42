"""Compiled inner loops of the semi-final Monte Carlo (``bot.rules.montecarlo``).

numba compiles these on first use; ``cache=True`` keeps the machine code
between processes. numba writes its cache next to this module when that
folder is writable and otherwise under the user's cache directory
(``~/.cache/numba``, or ``NUMBA_CACHE_DIR`` when set), so an installed,
read-only package still loads compiled code instead of compiling each run.

Every loop does exact integer arithmetic on the same random numbers the
caller drew with numpy, so a compiled run gives bit for bit what the
numpy formulation of the same steps gives (``montecarlo`` documents them).
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: The six pairings of a group of four by place (each stands for both legs).
PLACE_X = np.array([0, 0, 0, 1, 1, 2], dtype=np.int64)
PLACE_Y = np.array([1, 2, 3, 2, 3, 3], dtype=np.int64)
#: Marks a pair of lineups whose tables are not built yet / asked for.
UNBUILT, ASKED = -1, -2


@njit(cache=True, nogil=True)
def missing_pairs(groups, lineup_of, lineups, offset):  # pragma: no cover - compiled
    """Lineup pairs (``a * lineups + b``) met in ``groups`` (S, G, 4) whose
    tables are not built yet, each once; they are marked ``ASKED``."""
    found = []
    for s in range(groups.shape[0]):
        for g in range(groups.shape[1]):
            for q in range(PLACE_X.shape[0]):
                a = lineup_of[groups[s, g, PLACE_X[q]]]
                b = lineup_of[groups[s, g, PLACE_Y[q]]]
                pair = a * lineups + b
                if offset[pair] == UNBUILT:
                    offset[pair] = ASKED
                    found.append(pair)
    out = np.empty(len(found), dtype=np.int64)
    for i in range(len(found)):
        out[i] = found[i]
    return out


#: A table row is three words: the probability of keeping the entry (else
#: its alias; a float64 read through a float view of the same buffer), then
#: what both legs add to the keys of X and Y for the alias and for the entry
#: itself, packed as ``X << 32 | Y`` (two signed 32-bit halves).
PROB, ALIAS, SELF = range(3)
ROW = 3


@njit(cache=True, nogil=True, inline="always")
def pack(x, y):  # pragma: no cover - compiled
    """Two signed 32-bit whole numbers in one int64: ``x << 32 | y``."""
    return (np.int64(x) << 32) | (np.int64(y) & 0xFFFFFFFF)


@njit(cache=True, nogil=True)
def play_stage(
    groups, uniform, lot, permutations, lineup_of, lineups, offset, width, flip, table, prob,
    out, start,
):  # pragma: no cover - compiled
    """One group stage of S simulations.

    ``groups`` is (S or 1, G, 4) team indices (1: the same draw for all),
    ``uniform`` (S, G, 6) one uniform number per pairing, ``lot`` (S, G) the
    lot among level teams (a row of ``permutations``). A pairing's alias
    table starts at row ``offset`` of ``table`` for its lineup pair, with
    ``width`` rows, seen from the other side when ``flip``: with
    ``scaled = u * width``, row ``floor(scaled)`` is kept when the fractional
    part is below its ``PROB``, else its alias is taken; the gains are what
    both legs add to each side's key (points * scale + goal difference).
    The two largest keys advance, in place order, into ``out`` (S, 2G).

    Simulations are played from ``start`` on. Returns -1 when all are
    done, or the first simulation that meets a pair of lineups whose table
    is not built yet: build the tables and call again from there (the stage
    is a function of its inputs, so the result is the same).
    """
    shared = groups.shape[0] == 1
    for s in range(start, uniform.shape[0]):
        gs = 0 if shared else s
        for g in range(uniform.shape[1]):
            l0 = lineup_of[groups[gs, g, 0]]
            l1 = lineup_of[groups[gs, g, 1]]
            l2 = lineup_of[groups[gs, g, 2]]
            l3 = lineup_of[groups[gs, g, 3]]
            if min(offset[l0 * lineups + l1], offset[l0 * lineups + l2],
                   offset[l0 * lineups + l3], offset[l1 * lineups + l2],
                   offset[l1 * lineups + l3], offset[l2 * lineups + l3]) < 0:
                return s
            u = uniform[s, g]
            x01, y01 = _gain(l0 * lineups + l1, u[0], offset, width, flip, table, prob)
            x02, y02 = _gain(l0 * lineups + l2, u[1], offset, width, flip, table, prob)
            x03, y03 = _gain(l0 * lineups + l3, u[2], offset, width, flip, table, prob)
            x12, y12 = _gain(l1 * lineups + l2, u[3], offset, width, flip, table, prob)
            x13, y13 = _gain(l1 * lineups + l3, u[4], offset, width, flip, table, prob)
            x23, y23 = _gain(l2 * lineups + l3, u[5], offset, width, flip, table, prob)
            order = permutations[lot[s, g]]
            k0 = (x01 + x02 + x03) * 4 + order[0]
            k1 = (y01 + x12 + x13) * 4 + order[1]
            k2 = (y02 + y12 + x23) * 4 + order[2]
            k3 = (y03 + y13 + y23) * 4 + order[3]
            j = 2 * g
            if (k1 > k0) + (k2 > k0) + (k3 > k0) < 2:
                out[s, j] = groups[gs, g, 0]
                j += 1
            if (k0 > k1) + (k2 > k1) + (k3 > k1) < 2:
                out[s, j] = groups[gs, g, 1]
                j += 1
            if (k0 > k2) + (k1 > k2) + (k3 > k2) < 2:
                out[s, j] = groups[gs, g, 2]
                j += 1
            if (k0 > k3) + (k1 > k3) + (k2 > k3) < 2:
                out[s, j] = groups[gs, g, 3]
    return -1


@njit(cache=True, nogil=True, inline="always")
def _gain(pair, u, offset, width, flip, table, prob):  # pragma: no cover - compiled
    """What both legs of lineup pair ``pair`` add to (X's key, Y's key), from
    one uniform number ``u``."""
    scaled = u * width[pair]
    k = np.int64(scaled)
    row = ROW * (offset[pair] + k)
    packed = table[row + SELF] if scaled - k < prob[row] else table[row + ALIAS]
    high, low = packed >> 32, np.int64(np.int32(packed & 0xFFFFFFFF))
    if flip[pair]:
        return low, high
    return high, low


@njit(cache=True, nogil=True)
def vose(scaled):  # pragma: no cover - compiled
    """Vose's alias method on weights already scaled to mean 1 (see
    ``montecarlo.alias_table``): the same stack order and float operations
    as the list formulation, so the same tables bit for bit."""
    w = scaled.shape[0]
    scaled = scaled.copy()
    prob = np.ones(w)
    alias = np.arange(w)
    small = np.empty(w, dtype=np.int64)
    large = np.empty(w, dtype=np.int64)
    ns = nl = 0
    for i in range(w):
        if scaled[i] < 1.0:
            small[ns] = i
            ns += 1
        else:
            large[nl] = i
            nl += 1
    while ns and nl:
        ns -= 1
        nl -= 1
        s, g = small[ns], large[nl]
        prob[s] = scaled[s]
        alias[s] = g
        scaled[g] += scaled[s] - 1.0
        if scaled[g] < 1.0:
            small[ns] = g
            ns += 1
        else:
            large[nl] = g
            nl += 1
    return prob, alias


@njit(cache=True, nogil=True)
def both_legs(low, pmf, loss, draw, win, scale):  # pragma: no cover - compiled
    """Exact law of what both legs of a pairing add to the two keys (see
    ``montecarlo.two_legs``): the distinct (X's part, Y's part) in ascending
    order (X first) and their probabilities, each summed over the pairs of
    leg outcomes in row-major order, as ``numpy.bincount`` sums them."""
    w = pmf.shape[0]
    lx = np.empty(w, dtype=np.int64)
    ly = np.empty(w, dtype=np.int64)
    for i in range(w):
        d = low + i
        if d > 0:
            lx[i], ly[i] = win * scale + d, loss * scale - d
        elif d == 0:
            lx[i], ly[i] = draw * scale, draw * scale
        else:
            lx[i], ly[i] = loss * scale + d, win * scale - d
    y_low = 2 * ly.min()
    y_span = 2 * ly.max() - y_low + 1
    code = np.empty(w * w, dtype=np.int64)
    for i in range(w):
        for j in range(w):
            code[i * w + j] = (lx[i] + lx[j]) * y_span + (ly[i] + ly[j] - y_low)
    distinct = np.unique(code)
    where = np.searchsorted(distinct, code)
    probs = np.zeros(distinct.shape[0])
    for i in range(w):
        for j in range(w):
            probs[where[i * w + j]] += pmf[i] * pmf[j]
    return distinct // y_span, distinct % y_span + y_low, probs


@njit(cache=True, nogil=True)
def fill_rows(table, prob_view, start, prob, alias, gain_x, gain_y):  # pragma: no cover
    """Write one alias table into ``table`` (flat, ``ROW`` words a row; ``prob_view``
    the same buffer as float64) from row ``start`` on."""
    for e in range(prob.shape[0]):
        r = ROW * (start + e)
        prob_view[r + PROB] = prob[e]
        table[r + ALIAS] = pack(gain_x[alias[e]], gain_y[alias[e]])
        table[r + SELF] = pack(gain_x[e], gain_y[e])
