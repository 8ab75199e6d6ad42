"""Why a lineup plays as it does, for the reply: each correction by its real cause.

``correct`` (RULES.md §2.1) reports every changed row with the rule that
changed it. A reply names each rule once, with what made it bite: the 3:1
rule with the smallest field row and the limit it sets, the budget with
the cost it shortened from. It says how many WP stay unused and, when a
lineup could spend them, which one (``bot.rules.spending``): ``Kickers:
10-10-5-30-31`` with 91 WP plays as ``10-10-5-15-15`` because of the 3:1
rule (V 5, so at most 15), not the budget, and ``10-10-8-21-22`` would
spend all 91 WP. The templates word it (``templates/shared/correction.j2``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from bot.rules.corrections import (
    THREE_TO_ONE,
    CorrectedLineup,
    Correction,
    Rule,
    apply_back_caps,
    apply_three_to_one,
    correct,
)
from bot.rules.lineup import FIELD_ROWS, Lineup
from bot.rules.spending import suggest_spending

_ORDER: tuple[Rule, ...] = ("back_cap", "three_to_one", "budget")


@dataclass(frozen=True, slots=True)
class Step:
    """One rule that changed rows: the rows, and what made the rule bite.
    ``smallest_row``/``smallest``/``limit``: the 3:1 rule's smallest field
    row, its strength and three times it; ``cost_before``: what the lineup
    cost when the budget shortened it."""

    rule: Rule
    changes: tuple[Correction, ...]
    smallest_row: str | None = None
    smallest: int | None = None
    limit: int | None = None
    cost_before: int | None = None


@dataclass(frozen=True, slots=True)
class Explanation:
    """A team's lineup as sent and as it plays, each rule that changed it,
    the WP it leaves unused and a lineup that would spend them (or None)."""

    team: str
    sent: Lineup
    played: Lineup
    budget: int
    steps: tuple[Step, ...]
    suggestion: Lineup | None

    @property
    def cost(self) -> int:
        return self.played.cost

    @property
    def unused(self) -> int:
        return self.budget - self.played.cost

    @property
    def corrected(self) -> bool:
        return bool(self.steps)


def explain(team: str, corrected: CorrectedLineup) -> Explanation:
    """The explanation of ``corrected``, the lineup ``team`` plays."""
    capped = apply_back_caps(corrected.original)
    steps = []
    for rule in _ORDER:
        changes = tuple(c for c in corrected.corrections if c.rule == rule)
        if not changes:
            continue
        if rule == "three_to_one":
            smallest_row = min(FIELD_ROWS, key=capped.row)
            smallest = capped.row(smallest_row)
            steps.append(Step(rule, changes, smallest_row, smallest, THREE_TO_ONE * smallest))
        elif rule == "budget":
            steps.append(Step(rule, changes, cost_before=apply_three_to_one(capped).cost))
        else:
            steps.append(Step(rule, changes))
    suggestion = suggest_spending(corrected.lineup, corrected.budget, corrected.original)
    return Explanation(team, corrected.original, corrected.lineup, corrected.budget,
                       tuple(steps), suggestion)


def explain_notice(params: Mapping[str, object]) -> Explanation:
    """The explanation a ``lineup_corrected`` notice stands for, from its
    params (``team``, ``lineup`` as sent, ``budget``): the same correction
    again, so the words follow from the rules, not from the notice."""
    sent = Lineup.parse(str(params["lineup"]))
    budget = params["budget"]
    if isinstance(budget, bool) or not isinstance(budget, int):
        raise ValueError(f"a lineup_corrected notice needs a whole budget, not {budget!r}")
    return explain(str(params["team"]), correct(sent, budget))


__all__ = ["Explanation", "Step", "explain", "explain_notice"]
