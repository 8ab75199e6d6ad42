"""Every worked example of RULES.md §2.1, §3, §5 and §6, through the public API."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest

from bot.rules import Lineup, chances, check_legal, correct, gm_teams, odds, wp
from bot.rules.corrections import Correction
from bot.rules.errors import InvalidWPError
from bot.rules.rounding import half_up

L = Lineup.parse

# RULES.md §2.1: (lineup, floor(WP), result).
CORRECTION_EXAMPLES = [
    ("10-10-15-15-20", 90, "10-10-15-15-20"),
    ("10-10-20-25-25", 90, "8-8-16-21-21"),
    ("0-0-10-40-40", 90, "0-0-10-30-30"),
    ("12-3-10-40-50", 95, "10-3-10-30-29"),
    ("3-4-40-10-50", 92, "3-4-30-10-30"),
    ("10-10-30-30-30", 100, "8-7-24-23-23"),
    ("0-0-0-50-40", 90, "0-0-0-0-0"),
]


@pytest.mark.parametrize(("lineup", "budget", "result"), CORRECTION_EXAMPLES)
def test_correction_table(lineup: str, budget: int, result: str) -> None:
    corrected = correct(L(lineup), budget)
    assert str(corrected.lineup) == result
    assert corrected.original == L(lineup)
    assert corrected.budget == budget
    assert corrected.lineup.cost <= budget
    assert corrected.changed == (lineup != result)


def test_unchanged_lineup_costs_exactly_the_budget() -> None:
    corrected = correct(L("10-10-15-15-20"), 90)
    assert corrected.lineup.cost == 90
    assert corrected.corrections == ()


def test_corrections_are_reported_rule_by_rule() -> None:
    # Cap first, then the 3:1 rule, then the budget (96 WP shortened to 95).
    corrected = correct(L("12-3-10-40-50"), 95)
    assert corrected.corrections == (
        Correction("back_cap", "T", 12, 10),
        Correction("three_to_one", "M", 40, 30),
        Correction("three_to_one", "S", 50, 30),
        Correction("budget", "S", 30, 29),
    )
    assert corrected.to_json() == {
        "lineup": "10-3-10-30-29",
        "values": [10, 3, 10, 30, 29],
        "cost": 95,
        "budget": 95,
        "corrections": [
            {"rule": "back_cap", "row": "T", "from": 12, "to": 10},
            {"rule": "three_to_one", "row": "M", "from": 40, "to": 30},
            {"rule": "three_to_one", "row": "S", "from": 50, "to": 30},
            {"rule": "budget", "row": "S", "from": 30, "to": 29},
        ],
    }


def test_budget_shortening_keeps_the_ratio_of_all_five_rows() -> None:
    # 10-10-20-25-25 costs 110; f = 90/110: ideal 8.18-8.18-16.36-20.45-20.45.
    corrected = correct(L("10-10-20-25-25"), 90)
    assert [c.rule for c in corrected.corrections] == ["budget"] * 5
    assert corrected.lineup.cost == 90


def test_budget_tie_break_prefers_the_lexicographically_greatest() -> None:
    # 10-10-30-30-30 at 100: T and A tie (8-7 or 7-8), so do V, M, S; the
    # rule picks the greatest tuple: T before A, V before M before S.
    assert str(correct(L("10-10-30-30-30"), 100).lineup) == "8-7-24-23-23"


def test_excess_of_the_three_to_one_rule_is_lost_not_moved() -> None:
    corrected = correct(L("0-0-10-40-40"), 90)
    assert corrected.lineup.cost == 70  # 20 WP lost, not spent elsewhere


# RULES.md §3: exact odds, given to six decimals.
ODDS_EXAMPLES = [
    ("10-10-15-15-20", "0-10-30-20-20", (0, 6), ("0", "0.548537", "0.451463")),
    ("10-10-11-11-28", "0-0-20-20-50", (8, 34), ("0.987186", "0.009108", "0.003707")),
]


def _six_decimals(p: Fraction) -> str:
    scaled = half_up(p * 10**6)
    return "0" if scaled == 0 else f"{Decimal(scaled).scaleb(-6):f}"


@pytest.mark.parametrize(("x", "y", "chances", "wdl"), ODDS_EXAMPLES)
def test_exact_odds_examples(
    x: str, y: str, chances: tuple[int, int], wdl: tuple[str, str, str]
) -> None:
    result = odds(L(x), L(y))
    assert result.chances == chances
    assert tuple(_six_decimals(p) for p in (result.win, result.draw, result.loss)) == wdl
    assert result.win + result.draw + result.loss == 1
    assert all(isinstance(p, Fraction) for p in (result.win, result.draw, result.loss))


def test_first_odds_example_in_closed_form() -> None:
    # X has no chance (p against Y's A=10, T=0 would be 5/15 * 14/14 = 1/3). Y has
    # 6 chances, each a goal with p = (15-10)/15 * (14-10)/14 = 2/21 against X's
    # T=10, A=10. A draw means Y scores nothing.
    result = odds(L("10-10-15-15-20"), L("0-10-30-20-20"))
    assert result.goal_probability == (Fraction(5, 15) * Fraction(14, 14), Fraction(2, 21))
    assert result.draw == (1 - Fraction(2, 21)) ** 6
    assert result.win == 0


def test_chances_are_rounded_part_by_part_halves_up() -> None:
    # midfield (30-20)/2 = 5, defence (30-20)/4 = 2.5 -> 3, attack 0: 8, not 7.
    assert chances(L("0-0-30-30-30"), L("10-10-20-20-20")) == 8
    # Each part rounded on its own: midfield 1/2 -> 1 and defence 2/4 -> 1 make 2
    # (rounding the sum 1 would give 1).
    assert chances(L("0-0-12-11-10"), L("0-0-10-10-10")) == 2
    # midfield 3/2 -> 2, defence 1/4 -> 0; midfield 3/2 -> 2, defence 3/4 -> 1.
    assert chances(L("0-0-11-13-10"), L("0-0-10-10-10")) == 2
    assert chances(L("0-0-13-13-10"), L("0-0-10-10-10")) == 3
    # attack: one chance per point of S above A + V of the opponent.
    assert chances(L("0-0-10-10-30"), L("0-5-10-10-10")) == 15


# RULES.md §5.
def test_gm_split_examples() -> None:
    assert gm_teams.split_rest(50, (2, 2, 5)) == (11, 11, 28)
    assert gm_teams.split_rest(70, (3, 3, 3)) == (24, 23, 23)
    assert gm_teams.split_rest(70, (2, 2, 5)) == (16, 15, 39)
    assert str(gm_teams.gm_lineup((10, 0), (2, 2, 5))) == "10-0-16-15-39"


def test_all_forty_gm_lineups_are_legal_unique_and_spend_90() -> None:
    lineups = gm_teams.all_gm_lineups()
    assert len(lineups) == 40
    assert len(set(lineups)) == 40
    for lineup in lineups:
        check_legal(lineup)
        assert lineup.cost == gm_teams.GM_WP
        assert (lineup.t, lineup.a) in gm_teams.BACK_LINES
        assert correct(lineup, gm_teams.GM_WP).corrections == ()


def test_gm_draw_is_uniform_over_back_lines_and_tactics() -> None:
    import random
    from collections import Counter

    rng = random.Random(2024)
    drawn = Counter(gm_teams.draw_gm_lineup(rng) for _ in range(8000))
    assert set(drawn) == set(gm_teams.all_gm_lineups())
    # 200 expected each; 5 standard deviations (sqrt(200 * 39/40) ~ 14) either way.
    assert all(130 <= count <= 270 for count in drawn.values())


# RULES.md §6.
@pytest.mark.parametrize(
    ("before", "after"), [("100", "92.32"), ("95.30", "91.51"), ("90.00", "90.00")]
)
def test_ageing_examples(before: str, after: str) -> None:
    aged = wp.age(Decimal(before))
    assert aged == Decimal(after)
    assert str(aged) == after  # always two decimals


def test_wp_stay_exact_over_hundreds_of_additions() -> None:
    total = wp.INITIAL_WP
    for _ in range(300):
        total += wp.gain(wins=0, draws=1) + wp.gain(wins=1, draws=0)  # 0.1 + 0.2
    assert total == Decimal("180.0")
    assert wp.gain(1, 0) + wp.gain(0, 1) == Decimal("0.3")
    assert wp.gain(wins=4, draws=3) == Decimal("1.1")


def test_float_wp_are_refused() -> None:
    with pytest.raises(TypeError, match="float"):
        wp.as_wp(90.5)  # type: ignore[arg-type]


@pytest.mark.parametrize(("value", "budget"), [
    ("90", 90), ("90.99", 90), ("95.3", 95), (Decimal("91.00"), 91), (100, 100), ("95,3", 95),
])
def test_budget_is_the_floor_of_the_wp(value: object, budget: int) -> None:
    assert wp.budget(value) == budget  # type: ignore[arg-type]


@pytest.mark.parametrize("value", ["abc", "", "NaN", "-1", "Infinity", "9 0"])
def test_invalid_wp_are_typed_errors_quoting_the_input(value: str) -> None:
    with pytest.raises(InvalidWPError) as info:
        wp.budget(value)
    assert repr(value) in str(info.value)
    assert isinstance(info.value, ValueError)
