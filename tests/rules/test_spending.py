"""suggest_spending (bot/rules/spending.py): a lineup that spends the unused WP,
checked with hypothesis against an independent brute-force reading of its doc."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bot.rules import Lineup, correct
from bot.rules.spending import suggest_spending

sent_lineups = st.builds(
    Lineup,
    st.integers(0, 12), st.integers(0, 12),
    st.integers(0, 60), st.integers(0, 60), st.integers(0, 60),
)
budgets = st.integers(0, 110)


def legal_field(v: int, m: int, s: int) -> bool:
    return max(v, m, s) <= 3 * min(v, m, s)


def reference(played: Lineup, budget: int, sent: Lineup) -> Lineup | None:
    """Every field that keeps the back line and each played row, by brute force."""
    t, a, *lower = played.values
    wanted = sent.values[2:] if any(sent.values[2:]) else (1, 1, 1)
    best: tuple[int, Fraction, tuple[int, ...]] | None = None
    room = budget - 2 * t - 2 * a
    for v in range(lower[0], room + 1):
        for m in range(lower[1], room - v + 1):
            for s in range(lower[2], room - v - m + 1):
                field = v + m + s
                if not legal_field(v, m, s):
                    continue
                ideal = [Fraction(w * field, sum(wanted)) for w in wanted]
                deviation = sum((x - i) ** 2 for x, i in zip((v, m, s), ideal, strict=True))
                key = (field, -deviation, (v, m, s))
                if best is None or key > best:
                    best = key
    if best is None or best[0] == sum(lower):
        return None
    return Lineup(t, a, *best[2])


def test_the_issue_example_spends_all_91_wp_in_the_manner_sent() -> None:
    sent = Lineup.parse("10-10-5-30-31")
    played = correct(sent, 91).lineup
    assert str(played) == "10-10-5-15-15" and played.cost == 75
    suggestion = suggest_spending(played, 91, sent)
    assert str(suggestion) == "10-10-8-21-22" and suggestion is not None
    assert suggestion.cost == 91


@pytest.mark.parametrize(("played", "budget", "expected"), [
    ("10-10-15-15-20", 90, None),            # spends all
    ("10-10-15-15-20", 93, "10-10-16-16-21"),
    ("0-0-0-0-0", 90, "0-0-30-30-30"),       # nothing sent to steer by: even rows
    ("10-10-0-0-0", 41, None),               # one WP: no legal field costs 1
    ("10-10-0-0-0", 43, "10-10-1-1-1"),
    ("3-4-30-10-30", 92, "3-4-33-12-33"),  # the midfield grows as 3:1 needs
])
def test_examples(played: str, budget: int, expected: str | None) -> None:
    suggestion = suggest_spending(Lineup.parse(played), budget)
    assert (str(suggestion) if suggestion else None) == expected


def test_the_sent_lineup_steers_the_field() -> None:
    sent = Lineup.parse("0-0-0-50-40")
    played = correct(sent, 90).lineup
    assert str(played) == "0-0-0-0-0"
    # midfield and attack as wanted, the defence only as large as the 3:1 rule needs
    assert str(suggest_spending(played, 90, sent)) == "0-0-13-39-38"


def test_a_lineup_that_does_not_play_as_it_is_is_refused() -> None:
    with pytest.raises(ValueError, match="correct it first"):
        suggest_spending(Lineup.parse("10-10-5-30-31"), 91)
    with pytest.raises(ValueError, match="correct it first"):
        suggest_spending(Lineup.parse("10-10-15-15-20"), 80)
    with pytest.raises(ValueError, match="budget"):
        suggest_spending(Lineup.parse("0-0-0-0-0"), -1)


@settings(max_examples=150, deadline=None)
@given(sent=sent_lineups, budget=budgets)
@example(sent=Lineup(10, 10, 5, 30, 31), budget=91)
@example(sent=Lineup(0, 0, 0, 50, 40), budget=90)
@example(sent=Lineup(10, 10, 0, 0, 0), budget=42)
def test_matches_the_brute_force_reading(sent: Lineup, budget: int) -> None:
    played = correct(sent, budget).lineup
    suggestion = suggest_spending(played, budget, sent)
    assert suggestion == reference(played, budget, sent)


@settings(max_examples=300, deadline=None)
@given(sent=sent_lineups, budget=st.integers(0, 200))
def test_a_suggestion_plays_as_it_is_and_spends_more(sent: Lineup, budget: int) -> None:
    played = correct(sent, budget).lineup
    suggestion = suggest_spending(played, budget, sent)
    if suggestion is None:
        # nothing to spend, or only one or two WP beside an empty field
        unused = budget - played.cost
        assert unused == 0 or (played.values[2:] == (0, 0, 0) and unused < 3) or (
            played.values[2:] == (0, 0, 0)
            and budget - 2 * played.t - 2 * played.a < 3)
        return
    assert correct(suggestion, budget).lineup == suggestion  # no rule changes it
    assert played.cost < suggestion.cost <= budget
    assert suggestion.values[:2] == played.values[:2]
    assert all(x >= y for x, y in zip(suggestion.values, played.values, strict=True))
    if played.values[2:] != (0, 0, 0):
        assert suggestion.cost == budget  # a field that plays can always grow
