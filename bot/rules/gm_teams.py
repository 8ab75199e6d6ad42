"""GM teams (Anhang C, RULES.md §5): 90 WP, a drawn back line and a drawn tactic."""

from __future__ import annotations

import math
import random
from fractions import Fraction

from bot.rules.lineup import Lineup

GM_WP = 90
#: Back lines T-A, drawn uniformly.
BACK_LINES: tuple[tuple[int, int], ...] = ((0, 0), (0, 10), (10, 0), (10, 10))
#: Tactics: V-M-S in ninths of the remaining WP, drawn uniformly.
TACTICS: tuple[tuple[int, int, int], ...] = (
    (2, 2, 5), (2, 4, 3), (3, 2, 4), (3, 4, 2), (4, 3, 2),
    (2, 3, 4), (2, 5, 2), (3, 3, 3), (4, 2, 3), (5, 2, 2),
)


def split_rest(rest: int, tactic: tuple[int, int, int]) -> tuple[int, int, int]:
    """Split ``rest`` WP over V-M-S by ninths, largest remainder; equal
    remainders go to the earlier row."""
    exact = [Fraction(rest * k, 9) for k in tactic]
    rows = [math.floor(x) for x in exact]
    missing = rest - sum(rows)
    order = sorted(range(3), key=lambda i: (-(exact[i] - rows[i]), i))
    for i in order[:missing]:
        rows[i] += 1
    return rows[0], rows[1], rows[2]


def gm_lineup(back: tuple[int, int], tactic: tuple[int, int, int]) -> Lineup:
    t, a = back
    return Lineup(t, a, *split_rest(GM_WP - 2 * t - 2 * a, tactic))


def all_gm_lineups() -> list[Lineup]:
    """The 40 lineups a GM team can field."""
    return [gm_lineup(b, k) for b in BACK_LINES for k in TACTICS]


def draw_gm_lineup(rng: random.Random) -> Lineup:
    """Draw a back line, then a tactic, uniformly."""
    back = BACK_LINES[rng.randrange(len(BACK_LINES))]
    tactic = TACTICS[rng.randrange(len(TACTICS))]
    return gm_lineup(back, tactic)
