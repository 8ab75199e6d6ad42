"""Lineup corrections of RULES.md §2.1, in order: back caps, the 3:1 rule, the budget.

Each correction is reported as data (rule, row, from, to) so the reply to
the manager can say exactly what happened.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Literal

from bot.rules.errors import IllegalLineupError
from bot.rules.lineup import BACK_CAP, BACK_ROWS, FIELD_ROWS, ROW_PRICE, ROWS, Lineup

Rule = Literal["back_cap", "three_to_one", "budget"]
#: No field row may exceed this multiple of the smallest field row.
THREE_TO_ONE = 3


@dataclass(frozen=True, slots=True)
class Correction:
    """One row changed by one rule."""

    rule: Rule
    row: str
    before: int
    after: int

    def to_json(self) -> dict[str, object]:
        return {"rule": self.rule, "row": self.row, "from": self.before, "to": self.after}


@dataclass(frozen=True, slots=True)
class CorrectedLineup:
    """The lineup a manager sent, the lineup that plays, and why they differ."""

    original: Lineup
    lineup: Lineup
    budget: int
    corrections: tuple[Correction, ...]

    @property
    def changed(self) -> bool:
        return bool(self.corrections)

    def to_json(self) -> dict[str, object]:
        return {
            "lineup": str(self.lineup),
            "values": list(self.lineup.values),
            "cost": self.lineup.cost,
            "budget": self.budget,
            "corrections": [c.to_json() for c in self.corrections],
        }


def _diff(rule: Rule, old: Lineup, new: Lineup) -> list[Correction]:
    return [
        Correction(rule, row, a, b)
        for row, a, b in zip(ROWS, old.values, new.values, strict=True)
        if a != b
    ]


def apply_back_caps(lineup: Lineup) -> Lineup:
    """Rule 1: T and A above 10 are cut to 10."""
    return lineup.replace(T=min(lineup.t, BACK_CAP), A=min(lineup.a, BACK_CAP))


def apply_three_to_one(lineup: Lineup) -> Lineup:
    """Rule 2: every field row above 3 * min(V, M, S) is cut to it."""
    limit = THREE_TO_ONE * min(lineup.v, lineup.m, lineup.s)
    return lineup.replace(V=min(lineup.v, limit), M=min(lineup.m, limit), S=min(lineup.s, limit))


def satisfies_three_to_one(lineup: Lineup) -> bool:
    return max(lineup.v, lineup.m, lineup.s) <= THREE_TO_ONE * min(lineup.v, lineup.m, lineup.s)


def check_legal(lineup: Lineup) -> None:
    """Raise ``IllegalLineupError`` unless the lineup obeys the back caps and the 3:1 rule."""
    for row in BACK_ROWS:
        if lineup.row(row) > BACK_CAP:
            raise IllegalLineupError(
                str(lineup), "back_cap",
                f"{row}={lineup.row(row)} exceeds the cap of {BACK_CAP}",
            )
    if not satisfies_three_to_one(lineup):
        smallest_row = min(FIELD_ROWS, key=lineup.row)
        smallest = lineup.row(smallest_row)
        limit = THREE_TO_ONE * smallest
        over = [f"{r}={lineup.row(r)}" for r in FIELD_ROWS if lineup.row(r) > limit]
        verb = "exceeds" if len(over) == 1 else "exceed"
        raise IllegalLineupError(
            str(lineup), "three_to_one",
            f"{', '.join(over)} {verb} 3 x the smallest field row "
            f"({smallest_row}={smallest}), i.e. {limit}",
        )


def shorten_to_budget(lineup: Lineup, budget: int) -> Lineup:
    """Rule 3: shorten a legal lineup costing more than ``budget`` (exact algorithm
    of RULES.md §2.1: floors/ceilings of the scaled rows, most WP spent, least
    squared deviation in WP, then the lexicographically greatest)."""
    if lineup.cost <= budget:
        return lineup
    # The ideal row is v * budget / cost. Exact integer arithmetic: every
    # deviation is scaled by cost**2 > 0, which keeps their order and ties.
    cost = lineup.cost
    scaled = [v * budget for v in lineup.values]  # ideal * cost
    options = [sorted({x // cost, -(-x // cost)}) for x in scaled]  # floor, ceiling
    best_key: tuple[int, int, tuple[int, ...]] | None = None
    best: Lineup | None = None
    for combo in itertools.product(*options):
        candidate = Lineup(*combo)
        if candidate.cost > budget or candidate.t > BACK_CAP or candidate.a > BACK_CAP:
            continue
        if not satisfies_three_to_one(candidate):
            continue
        deviation = sum(
            (ROW_PRICE[row] * (v * cost - x)) ** 2
            for row, v, x in zip(ROWS, combo, scaled, strict=True)
        )
        key = (candidate.cost, -deviation, combo)
        if best_key is None or key > best_key:
            best_key, best = key, candidate
    if best is None:
        best = apply_three_to_one(Lineup(*(x // cost for x in scaled)))
    return best


def correct(lineup: Lineup, budget: int) -> CorrectedLineup:
    """Apply the corrections of RULES.md §2.1 in order and report each change."""
    if budget < 0:
        raise ValueError(f"budget must be >= 0, got {budget}")
    corrections: list[Correction] = []
    current = lineup
    for rule, step in (
        ("back_cap", apply_back_caps),
        ("three_to_one", apply_three_to_one),
        ("budget", lambda lu: shorten_to_budget(lu, budget)),
    ):
        after = step(current)
        corrections += _diff(rule, current, after)  # type: ignore[arg-type]
        current = after
    return CorrectedLineup(lineup, current, budget, tuple(corrections))


__all__ = [
    "FIELD_ROWS",
    "CorrectedLineup",
    "Correction",
    "apply_back_caps",
    "apply_three_to_one",
    "check_legal",
    "correct",
    "satisfies_three_to_one",
    "shorten_to_budget",
]
