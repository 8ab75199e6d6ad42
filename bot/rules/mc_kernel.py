"""Compiled inner loops of the semi-final Monte Carlo (``bot.rules.montecarlo``).

numba compiles these on first use; ``cache=True`` keeps the machine code
between processes. numba writes its cache next to this module when that
folder is writable and otherwise under the user's cache directory
(``~/.cache/numba``, or ``NUMBA_CACHE_DIR`` when set), so an installed,
read-only package still loads compiled code instead of compiling each run.

Every loop does the same float operations in the same order as the numpy
formulation it replaces (``numpy.sum``'s pairwise summation, ``bincount``'s
running sums, Vose's stacks) and exact integer arithmetic elsewhere, on the
random numbers the caller drew with numpy: the results are the same bit for
bit (``tests/rules/legacy_montecarlo.py`` keeps the numpy engine).

Layout: a pair of lineups ``a * lineups + b`` has one int64 of ``pair_info``,
``UNBUILT`` (-1) until its table is built, else ``first row << 17 |
width << 1 | flip``; both orientations share one table, the second reads it
with the sides swapped (``flip``). A table row is ``ROW`` words of
``table``: the probability of keeping the entry (else its alias; a float64
read through a float view of the same buffer), then what both legs add to
the keys of X and Y for the alias and for the entry itself, each packed as
``X << 32 | Y`` (two signed 32-bit halves). A key is ``points * scale +
goal difference``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: The six pairings of a group of four by place (each stands for both legs).
PLACE_X = np.array([0, 0, 0, 1, 1, 2], dtype=np.int64)
PLACE_Y = np.array([1, 2, 3, 2, 3, 3], dtype=np.int64)
UNBUILT, ASKED = -1, -2
PROB, ALIAS, SELF = range(3)
ROW = 3
#: Most rows a table may have (``width`` has 16 bits of ``pair_info``).
MAX_WIDTH = 2**16 - 1


@njit(cache=True, nogil=True, inline="always")
def pack(x, y):  # pragma: no cover - compiled
    """Two signed 32-bit whole numbers in one int64: ``x << 32 | y``."""
    return (np.int64(x) << 32) | (np.int64(y) & 0xFFFFFFFF)


@njit(cache=True, nogil=True)
def missing_pairs(groups, lineup_of, lineups, pair_info):  # pragma: no cover - compiled
    """Lineup pairs met in ``groups`` (S, G, 4) whose tables are not built
    yet, each once (lower lineup first); they are marked ``ASKED``."""
    found = []
    for s in range(groups.shape[0]):
        for g in range(groups.shape[1]):
            for q in range(PLACE_X.shape[0]):
                a = lineup_of[groups[s, g, PLACE_X[q]]]
                b = lineup_of[groups[s, g, PLACE_Y[q]]]
                if a > b:
                    a, b = b, a
                pair = a * lineups + b
                if pair_info[pair] == UNBUILT:
                    pair_info[pair] = ASKED
                    found.append(pair)
    out = np.empty(len(found), dtype=np.int64)
    for i in range(len(found)):
        out[i] = found[i]
    return out


@njit(cache=True, nogil=True, inline="always")
def _gain(pair, u, pair_info, table, prob):  # pragma: no cover - compiled
    """What both legs of lineup pair ``pair`` add to (X's key, Y's key), from
    one uniform number ``u``: with ``scaled = u * width``, row
    ``floor(scaled)`` is kept when the fractional part is below its
    probability, else its alias is taken."""
    info = pair_info[pair]
    scaled = u * np.float64((info >> 1) & MAX_WIDTH)
    k = np.int64(scaled)
    row = ROW * ((info >> 17) + k)
    packed = table[row + SELF] if scaled - k < prob[row] else table[row + ALIAS]
    high, low = packed >> 32, np.int64(np.int32(packed & 0xFFFFFFFF))
    if info & 1:
        return low, high
    return high, low


@njit(cache=True, nogil=True)
def play_stage(
    groups, uniform, lot, permutations, lineup_of, lineups, pair_info, table, prob, out, start
):  # pragma: no cover - compiled
    """One group stage of S simulations.

    ``groups`` is (S or 1, G, 4) team indices (1: the same draw for all),
    ``uniform`` (S, G, 6) one uniform number per pairing, ``lot`` (S, G) the
    lot among level teams (a row of ``permutations``); ``prob`` is ``table``
    seen as float64. The two largest keys of a group advance, in place
    order, into ``out`` (S, 2G).

    Simulations are played from ``start`` on. Returns -1 when all are
    done, or the first simulation that meets a pair of lineups whose table
    is not built yet: build the tables and call again from there (the stage
    is a function of its inputs, so the result is the same).
    """
    shared = groups.shape[0] == 1
    for s in range(start, uniform.shape[0]):
        gs = 0 if shared else s
        for g in range(uniform.shape[1]):
            a0, a1 = lineup_of[groups[gs, g, 0]], lineup_of[groups[gs, g, 1]]
            a2, a3 = lineup_of[groups[gs, g, 2]], lineup_of[groups[gs, g, 3]]
            p01, p02, p03 = a0 * lineups + a1, a0 * lineups + a2, a0 * lineups + a3
            p12, p13, p23 = a1 * lineups + a2, a1 * lineups + a3, a2 * lineups + a3
            if min(pair_info[p01], pair_info[p02], pair_info[p03], pair_info[p12],
                   pair_info[p13], pair_info[p23]) < 0:
                return s
            u = uniform[s, g]
            x01, y01 = _gain(p01, u[0], pair_info, table, prob)
            x02, y02 = _gain(p02, u[1], pair_info, table, prob)
            x03, y03 = _gain(p03, u[2], pair_info, table, prob)
            x12, y12 = _gain(p12, u[3], pair_info, table, prob)
            x13, y13 = _gain(p13, u[4], pair_info, table, prob)
            x23, y23 = _gain(p23, u[5], pair_info, table, prob)
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


@njit(cache=True, nogil=True)
def _block_sum(a, lo, n):  # pragma: no cover - compiled
    """numpy's float64 sum of at most 128 numbers: eight running sums."""
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[lo + i]
        return res
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    i = 8
    while i < n - (n % 8):
        r0 += a[lo + i]
        r1 += a[lo + i + 1]
        r2 += a[lo + i + 2]
        r3 += a[lo + i + 3]
        r4 += a[lo + i + 4]
        r5 += a[lo + i + 5]
        r6 += a[lo + i + 6]
        r7 += a[lo + i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[lo + i]
        i += 1
    return res


@njit(cache=True, nogil=True)
def pairwise_sum(a, lo, n):  # pragma: no cover - compiled
    """``a[lo:lo + n].sum()`` exactly as numpy adds float64: blocks of up to
    128 (``_block_sum``), longer runs halved (at a multiple of 8) and the two
    halves' sums added. Written with an explicit stack: numba's cache does
    not keep recursive functions."""
    if n <= 128:
        return _block_sum(a, lo, n)
    los = np.empty(64, dtype=np.int64)
    ns = np.empty(64, dtype=np.int64)
    stage = np.zeros(64, dtype=np.int64)
    left = np.empty(64)
    d, los[0], ns[0] = 0, lo, n
    ret = 0.0
    while d >= 0:
        if ns[d] <= 128:
            ret = _block_sum(a, los[d], ns[d])
            d -= 1
            continue
        half = ns[d] // 2
        half -= half % 8
        if stage[d] == 0:
            stage[d] = 1
            d += 1
            los[d], ns[d], stage[d] = los[d - 1], half, 0
        elif stage[d] == 1:
            left[d], stage[d] = ret, 2
            d += 1
            los[d], ns[d], stage[d] = los[d - 1] + half, ns[d - 1] - half, 0
        else:
            ret = left[d] + ret
            d -= 1
    return ret


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
    # A pair of legs (i, j) lands in cell (sign pattern, i + j); cells with
    # equal (X, Y) are one outcome. Sorting the few cells' codes instead of
    # all w * w pairs gives the same distinct outcomes in the same order.
    sign = np.empty(w, dtype=np.int64)
    for i in range(w):
        sign[i] = 2 if low + i > 0 else (1 if low + i == 0 else 0)
    sums = 2 * w - 1
    cell_code = np.zeros(9 * sums, dtype=np.int64)
    met = np.zeros(9 * sums, dtype=np.bool_)
    hit = 0
    for i in range(w):
        for j in range(w):
            cell = (3 * sign[i] + sign[j]) * sums + i + j
            if not met[cell]:
                met[cell] = True
                cell_code[cell] = (lx[i] + lx[j]) * y_span + (ly[i] + ly[j] - y_low)
                hit += 1
    codes = np.empty(hit, dtype=np.int64)
    hit = 0
    for cell in range(9 * sums):
        if met[cell]:
            codes[hit] = cell_code[cell]
            hit += 1
    distinct = np.unique(codes)
    cell_bin = np.searchsorted(distinct, cell_code)
    probs = np.zeros(distinct.shape[0])
    for i in range(w):
        for j in range(w):
            probs[cell_bin[(3 * sign[i] + sign[j]) * sums + i + j]] += pmf[i] * pmf[j]
    return distinct // y_span, distinct % y_span + y_low, probs


@njit(cache=True, nogil=True)
def build_tables(
    pairs, lows, pmfs, starts, lineups, loss, draw, win, scale, pair_info, table, prob_view,
    used,
):  # pragma: no cover - compiled
    """Build the alias tables of lineup pairs ``pairs`` (``a * lineups + b``,
    ``a <= b``) from row ``used`` on: pair ``i``'s goal-difference law (X's
    view) is ``pmfs[starts[i]:starts[i + 1]]`` from ``lows[i]`` on. Returns
    the rows used afterwards; ``table`` must have room for them."""
    for i in range(pairs.shape[0]):
        pmf = pmfs[starts[i]:starts[i + 1]]
        gain_x, gain_y, law = both_legs(lows[i], pmf, loss, draw, win, scale)
        w = law.shape[0]
        p, alias = vose(law * (w / pairwise_sum(law, 0, w)))
        for e in range(w):
            r = ROW * (used + e)
            prob_view[r + PROB] = p[e]
            table[r + ALIAS] = pack(gain_x[alias[e]], gain_y[alias[e]])
            table[r + SELF] = pack(gain_x[e], gain_y[e])
        a, b = divmod(pairs[i], lineups)
        info = (used << 17) | (w << 1)
        pair_info[a * lineups + b] = info
        if a != b:
            pair_info[b * lineups + a] = info | 1
        used += w
    return used
