"""A lineup that spends a team's unused WP: the suggestion a reply makes.

A lineup that costs less than the budget plays unchanged (RULES.md §2.1,
step 4), and the 3:1 rule can leave many WP unspent: ``10-10-5-30-31``
with 91 WP plays as ``10-10-5-15-15`` (75 WP). The reply then names the
unused WP with a lineup that would spend them, ``suggest_spending``:

* the back line (T, A) stays as it plays: the unused WP go to the field
  rows, and no row is taken below what plays now;
* it obeys the caps and the 3:1 rule, so ``correct`` plays it unchanged;
* it spends as many WP as such a lineup can (the whole budget, unless the
  field is empty and only one or two WP are left: no legal field costs 1
  or 2 WP);
* among those, its field rows are nearest (least sum of squares) to the
  field rows the manager sent, scaled to the new field total — the sent
  lineup says what the manager wanted (``5-30-31``: midfield and attack);
  equally near ones: the lexicographically greatest (V, M, S).

``10-10-5-15-15`` with 91 WP, sent as ``10-10-5-30-31``: ``10-10-8-21-22``.
Exact integer arithmetic; pure (no I/O).
"""

from __future__ import annotations

from bot.rules.corrections import THREE_TO_ONE, satisfies_three_to_one
from bot.rules.lineup import BACK_CAP, Lineup


def suggest_spending(played: Lineup, budget: int, sent: Lineup | None = None) -> Lineup | None:
    """A lineup spending the WP ``played`` leaves unused of ``budget``, in
    the manner the module doc describes; None when ``played`` spends them
    all or no legal lineup of this kind spends more. ``played`` must be a
    lineup as it plays (caps and 3:1 kept, cost within ``budget``); ``sent``
    is the lineup as the manager sent it (default: ``played``)."""
    if budget < 0:
        raise ValueError(f"budget must be >= 0, got {budget}")
    if played.cost > budget or played.t > BACK_CAP or played.a > BACK_CAP \
            or not satisfies_three_to_one(played):
        raise ValueError(f"{played} is not a lineup as it plays with {budget} WP: "
                         "correct it first (back caps, 3:1 rule, budget)")
    wanted = (sent or played).values[2:]
    lower = played.values[2:]
    field_now = sum(lower)
    for field in range(budget - 2 * played.t - 2 * played.a, field_now, -1):
        best = _nearest_field(field, lower, wanted)
        if best is not None:
            return Lineup(played.t, played.a, *best)
    return None


def _nearest_field(total: int, lower: tuple[int, ...], wanted: tuple[int, ...]
                   ) -> tuple[int, int, int] | None:
    """The field rows (V, M, S) summing to ``total``, each at least its
    ``lower`` row, within the 3:1 rule, nearest to ``wanted`` scaled to
    ``total`` (module doc); None if there is none. For each V the best M
    is found directly: the deviation is a parabola in M over an interval."""
    lo_v, lo_m, lo_s = lower
    weights = wanted if any(wanted) else (1, 1, 1)
    scale = sum(weights)
    # ideal row i is weights[i] * total / scale: every deviation is scaled by
    # ``scale`` (integers, same order and ties)
    ideal = tuple(w * total for w in weights)
    best_key: tuple[int, tuple[int, int, int]] | None = None
    for v in range(lo_v, total - lo_m - lo_s + 1):
        rest = total - v
        low = max(lo_m, -(-v // THREE_TO_ONE), rest - THREE_TO_ONE * v, -(-rest // 4))
        high = min(rest - lo_s, rest - -(-v // THREE_TO_ONE), THREE_TO_ONE * v,
                   (3 * rest) // 4)
        if low > high:
            continue
        # the unconstrained best M (times scale): (ideal_m + (rest*scale - ideal_s)) / 2
        centre = (ideal[1] + rest * scale - ideal[2]) // (2 * scale)
        for m in {min(max(centre, low), high), min(max(centre + 1, low), high)}:
            s = rest - m
            deviation = sum((x * scale - i) ** 2 for x, i in zip((v, m, s), ideal, strict=True))
            key = (-deviation, (v, m, s))
            if best_key is None or key > best_key:
                best_key = key
    return best_key[1] if best_key is not None else None


__all__ = ["suggest_spending"]
