"""RULES.md, sentence by sentence: every normative sentence and every
**Decision** of ``/work/shared/RULES.md`` §1-§11 with the test that proves it.

This module holds §1-§3; the other sections live beside it. The test column
names ``MODULE::test``, with the modules of this folder abbreviated:
R = ``test_rules_md``, T = ``test_tournament_md``, W = ``test_wp_psz_md``,
L = ``test_league_md``, N = ``test_newsletter_md``, M = ``test_mail_md``.
Longer paths name older tests elsewhere that prove the sentence as well.
``test_the_checklist_names_only_tests_that_exist`` keeps this table honest.

| § | sentence | test |
|---|---|---|
| 1   | a manager owns at most two teams | L::test_a_third_team_dooms_the_weaker_one_at_evaluation |
| 1   | five rounds make a season; then every | W::test_season_end_ageing_of_every_existing_team |
|     | team ages |  |
| 2   | T, A strength 0..10 at 2 WP, V, M, S at 1 WP: cost | R::test_cost_is_2t_2a_v_m_s |
|     | 2T+2A+V+M+S; 10-10-15-15-20 costs 90 |  |
| 2   | spend at most floor(WP); a new team | R::test_budget_is_floor_of_wp_and_new_team_has_90 |
|     | has 90 WP | W::test_lineup_is_corrected_against_floor_wp_at_evaluation |
| 2.1 | corrections in this order: back | R::test_corrections_apply_in_the_order_of_the_rules |
|     | caps, 3:1, budget |  |
| 2.1 | 1. T or A above 10 cut to 10, the | R::test_back_caps_cut_to_ten_and_the_excess_is_lost |
|     | excess lost |  |
| 2.1 | 2. rows above 3*min(V,M,S) cut to it; the | R::test_three_to_one_cuts_and_loses_the_excess |
|     | excess lost, not moved |  |
| 2.1 | 2. a row of 0 cuts the other two | R::test_an_empty_field_row_cuts_the_other_two_to_zero |
|     | to 0 |  |
| 2.1 | 3. Decision: floor/ceiling of | R::test_budget_shortening_is_the_decided_algorithm |
|     | T*f..S*f within floor(WP), T, A <= 10, 3:1; most WP, least squares in WP (T, A x2), |  |
|     | greatest tuple; fallback floors + 3:1 |  |
| 2.1 | 4. a lineup costing less than allowed is | R::test_a_legal_cheap_lineup_is_never_changed |
|     | unchanged |  |
| 2.1 | the table of examples | R::test_correction_examples_of_the_rules |
|     |  | tests/rules/test_examples.py::test_correction_table |
| 2   | not whole, negative, not five | R::test_malformed_lineups_are_rejected_with_a_clear_error |
|     | values: rejected with a clear error, nothing guessed; 8.5 is impossible |  |
| 2   | every correction is reported | R::test_every_correction_is_reported_with_rule_and_values |
|     | in the confirmation | M::test_confirmation_lists_each_correction_with_rule_old_and_new |
|     | (rule, old value, new value) |  |
| 3   | chances: S_X over A_Y+V_Y 1 each, M_X over M_Y | R::test_the_three_parts_of_the_chances |
|     | 1/2, V_X over S_Y 1/4 |  |
| 3   | Decision: each part rounded on its | R::test_each_part_is_rounded_on_its_own_halves_up |
|     | own, halves up (never round()) |  |
| 3   | each chance: d15 <= A_Y foiled, d14 <= T_Y | R::test_dice_are_played_chance_by_chance |
|     | saved, else a goal | R::test_play_rolls_the_chances_of_both_sides |
|     |  | tests/rules/test_dice_statistics.py::test_dice_agree_with_the_exact_odds |
| 3   | p = (15-A)/15 * (14-T)/14, goals Binomial, W/D/L | R::test_exact_odds_are_the_binomial_law |
|     | exact |  |
| 3   | the table of examples | R::test_odds_examples_of_the_rules |
| 4   | participants: the player teams | W::test_teams_without_lineup_do_not_play_and_gain_nothing |
|     | with a valid lineup |  |
| 4   | G = 4 (N <= 16), 8 (<= 32), 16 (<= 64); | T::test_group_count_for_every_field_size |
|     | Decision: doubling beyond |  |
| 4   | free places filled with GM teams | T::test_free_places_are_filled_with_gm_teams |
| 4   | N = 0: no tournament, the newsletter says so, the | T::test_no_entrants_no_tournament |
|     | round counts | W::test_empty_round_counts_towards_the_season |
|     |  | N::test_empty_round_newsletter_says_so |
| 4   | groups drawn by lot | T::test_first_draw_is_by_lot |
| 4   | every team plays every other twice: 12 | T::test_every_group_is_a_double_round_robin |
|     | games, 6 per team |  |
| 4   | Decision: points 3-1-0, configurable (2-1-0) | T::test_points_are_3_1_0_and_configurable |
|     |  | W::test_league_points_setting_reaches_the_tables |
| 4   | table: points, goal difference, lot; | T::test_table_order_points_then_difference_then_lot |
|     | goals | tests/rules/test_tournament_lots.py::test_top_tie_by_lot_goals_scored_do_not_count |
|     | scored do not count |  |
| 4   | the first two advance, | T::test_first_two_advance_and_are_redrawn_until_four_remain |
|     | redrawn into groups of four until four remain |  |
| 4   | four drawn into two semi-finals; losers: | T::test_semis_by_lot_third_place_and_final |
|     | third place; winners: final |  |
| 4   | Decision: a level knock-out game by lot; | T::test_level_knockout_games_are_lots_and_draws |
|     | a draw for WP and PSZ |  |
| 4   | ... shown as n.L. / (by lot) | N::test_level_knockout_game_is_marked_in_both_languages |
| 4   | one generator seeded per round, the | T::test_one_seeded_generator_replays_bit_for_bit |
|     | seed stored, replay bit for bit | W::test_seed_is_stored_and_the_round_replays |
| 5   | GM teams: always 90 WP, never gain WP | T::test_gm_teams_spend_90_and_never_gain |
| 5   | GM teams are new each round | W::test_gm_teams_are_not_stored_between_rounds |
| 5   | back line and tactic drawn uniformly | T::test_gm_lineups_come_from_the_forty |
|     |  | tests/rules/test_examples.py::test_gm_draw_is_uniform_over_back_lines_and_tactics |
| 5   | Decision: largest remainder, earlier row first; | T::test_gm_split_by_largest_remainder |
|     | the examples |  |
| 5   | no number: named GM T-A-V-M-S, a letter | T::test_gm_names_are_their_lineups_with_suffixes |
|     | suffix if shared |  |
| 5   | GM lineups are published, | T::test_public_report_has_gm_lineups_and_no_player_lineup |
|     | player lineups never | N::test_newsletter_shows_gm_lineups_and_no_player_lineup |
| 6   | +0.2 WP per win, +0.1 per draw, all | T::test_wp_gain_counts_every_game_including_knockout |
|     | games incl. knock-out |  |
| 6   | no lineup: the team does not | W::test_teams_without_lineup_do_not_play_and_gain_nothing |
|     | play and gains nothing |  |
| 6   | floor(WP) may be spent, never rounded | R::test_budget_is_floor_of_wp_and_new_team_has_90 |
|     | up | W::test_lineup_is_corrected_against_floor_wp_at_evaluation |
| 6   | after the 5th round's gains every | W::test_season_end_ageing_of_every_existing_team |
|     | existing team ages, listed or not |  |
| 6   | WP := 89 + sqrt(WP - 89), two decimals, | W::test_ageing_formula_examples_and_halves_up |
|     | halves up; the examples | W::test_ageing_is_89_plus_the_root_to_the_nearest_cent |
| 6   | Decision: exact decimals; 0.1 + 0.2 stays 0.3 over | W::test_wp_are_exact_decimals |
|     | hundreds of rounds | tests/league/test_evaluation.py::test_wp_stays_exact_over_100_rounds |
| 7   | a manager: the sender address and a | M::test_password_on_by_default_and_required_later |
|     | password |  |
| 7   | name <= 30, short name <= 15; | L::test_long_names_are_shortened_and_the_reply_says_so |
|     | shortened and the reply says so |  |
| 7   | names unique (case, spaces | L::test_names_are_unique_forever_ignoring_case_and_spaces |
|     | folded) across all teams ever registered |  |
| 7   | teams cannot be renamed | L::test_teams_cannot_be_renamed |
| 7   | more than two teams: the weaker | L::test_a_third_team_dooms_the_weaker_one_at_evaluation |
|     | one deleted for good at evaluation |  |
| 7   | weaker: fewer WP; equal WP: played | L::test_equal_wp_then_played_longer_ago_then_lot |
|     | longer ago; then lot |  |
| 7   | the confirmation warns; | L::test_a_third_team_dooms_the_weaker_one_at_evaluation |
|     | withdrawing the registration saves | L::test_withdrawing_the_new_team_saves_the_old_one |
|     | the team |  |
| 7   | the latest lineup received before | L::test_the_latest_lineup_before_the_deadline_counts |
|     | the deadline counts | M::test_mail_that_arrived_before_the_deadline_is_on_time |
| 7   | a team can be withdrawn from the current round | L::test_a_withdrawn_team_does_not_play |
| 7   | mail after a deadline counts for | L::test_late_mail_counts_for_the_next_round_and_says_so |
|     | the next round; the reply says so |  |
| 8   | all games, group tables (P W D L, goals, difference, points, | N::test_newsletter_contents |
|     | qualifiers, lots), semi-finals, third place, final |  |
| 8   | GM team lineups; no player | N::test_newsletter_shows_gm_lineups_and_no_player_lineup |
|     | lineup |  |
| 8   | WP table: teams of the last three | N::test_wp_table_lists_the_last_three_rounds_by_wp |
|     | rounds, manager, WP (two decimals), gain, ordered by | N::test_wp_table_in_the_newsletter |
|     | WP |  |
| 8   | teams absent longer are not listed | N::test_wp_table_lists_the_last_three_rounds_by_wp |
|     | but keep their WP |  |
| 8   | Decision: probabilities on by default: | N::test_probabilities_are_on_by_default |
|     |  | tests/rules/test_montecarlo.py::test_monte_carlo_agrees_with_the_literal_engine |
|     | semi-final chance of the four (Monte Carlo), rounded W/D/L from the semi-finals on |  |
| 8   | expectation table: all against all twice, | T::test_expectation_table_is_exact_and_ordered |
|     | exact, by expected points, without lineups |  |
| 8   | the PSZ table | N::test_psz_table_is_published_whole |
| 9   | commands line by line; quotes, | M::test_quotes_signature_and_reply_headers_are_ignored |
|     | signatures, reply headers ignored |  |
| 9   | HTML-only mail is read | M::test_html_only_mail_is_read |
| 9   | exactly one reply per | M::test_one_reply_per_human_mail_and_errors_quote_line_and_example |
|     |  | M::test_an_error_in_the_subject_names_the_subject |
|     |  | M::test_line_errors_are_explained_in_german_and_english |
|     |  | M::test_every_line_error_has_a_german_wording |
|     |  | M::test_reasons_of_the_rules_core_have_a_german_wording |
|     | human mail; an error names line, why, example |  |
| 9   | nothing is changed by a mail with an error in a | M::test_a_lineup_error_changes_nothing |
|     | lineup |  |
| 9   | no reply to bounces, auto-replies | M::test_no_reply_to_robots_or_to_ourselves |
|     | (Auto-Submitted, Precedence bulk/junk/list, mailer-daemon) or the own address |  |
| 9   | Decision: passwords on; wrong or | M::test_password_on_by_default_and_required_later |
|     | missing: nothing changes, an error reply |  |
| 10  | win max(40 + DIFF, 0), loss min(-40 + DIFF, 0); Decision: | W::test_psz_points_per_game |
|     | draw DIFF, unclamped |  |
| 10  | a period: start-of-period values, sum / games | W::test_psz_period_update_and_player_j |
|     | added; J: 230 -> 233 |  |
| 10  | the original's tables (A-J, with and | tests/rules/test_psz.py::test_table2_without_bound |
|     | without bound, J game by game) | tests/rules/test_psz.py::test_table3_with_bound |
|     |  | tests/rules/test_psz.py::test_j_game_by_game |
| 10  | Decision: initial 250; GM teams | T::test_gm_teams_play_at_initial_psz_and_are_not_rated |
|     | play at the initial PSZ, not | W::test_new_team_psz_250_stored_two_decimals_shown_whole |
|     | rated |  |
| 10  | exact, stored with two decimals | W::test_new_team_psz_250_stored_two_decimals_shown_whole |
|     | (halves up), shown whole | N::test_psz_table_is_published_whole |
| 11  | every keyword German and English, any case, | M::test_every_keyword_of_the_grammar_table |
|     | colon optional |  |
| 11  | team and lineup in one line | M::test_every_keyword_of_the_grammar_table |
|     |  | M::test_team_and_lineup_in_one_line_without_colon |
| 11  | every lineup form; labels in any order, German and English | M::test_every_lineup_form |
| 11  | unknown lines are ignored and listed in the | M::test_unknown_lines_are_ignored_and_listed |
|     | reply | M::test_ordinary_lines_with_numbers_stay_ignored |
| 11  | a line that looks like a lineup | M::test_lineup_like_lines_that_are_invalid_are_errors |
|     | but is not valid is an error |  |
| 11  | the subject is read; Re:/AW:/WG:/Fwd: | M::test_subject_is_read_without_reply_prefixes |
|     | ignored |  |

Deviations the audit found and fixed (each proved by the tests named):

* A line that looks like a lineup but is not valid (``10-10-15-15-20x``,
  ``T10 A10 V15 M15 S20 X5``, ``10-10-15-15-20 bitte``) was ignored instead
  of being an error, so the rest of such a mail was applied:
  M::test_lineup_like_lines_that_are_invalid_are_errors,
  M::test_a_lineup_error_changes_nothing.
* ``Lineup T: 10, A: 10, ...`` (the keyword without its optional colon before
  a labelled lineup) was an error: M::test_every_lineup_form.
* A mail that arrived before a deadline but was read after it counted for
  the next round (now IMAP's INTERNALDATE decides):
  M::test_mail_that_arrived_before_the_deadline_is_on_time.
* ``NAME T10 A10 V15 M15 S20`` (team and labelled lineup without a colon) was
  not read as a lineup: M::test_team_and_lineup_in_one_line_without_colon.
* Replies said "Zeile 0" for an error in the subject, and German replies gave
  the reason in English ("4 numbers instead of five"):
  M::test_an_error_in_the_subject_names_the_subject,
  M::test_line_errors_are_explained_in_german_and_english.
"""

from __future__ import annotations

import itertools
import math
import random
import re
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.rules import Lineup, correct, odds
from bot.rules.errors import InvalidLineupError
from bot.rules.match import chances, goal_distribution, play, play_chances
from bot.rules.wp import INITIAL_WP, budget
from tests.rules.test_examples import CORRECTION_EXAMPLES

# --------------------------------------------------------------------------- §2


def test_cost_is_2t_2a_v_m_s() -> None:
    assert Lineup.parse("10-10-15-15-20").cost == 90
    assert Lineup(1, 2, 3, 4, 5).cost == 2 + 4 + 3 + 4 + 5
    assert Lineup(0, 0, 0, 0, 0).cost == 0


def test_budget_is_floor_of_wp_and_new_team_has_90() -> None:
    assert Decimal(90) == INITIAL_WP
    assert budget(Decimal("90")) == 90
    assert budget(Decimal("90.99")) == 90  # never rounded up
    assert budget(Decimal("91.50")) == 91
    assert budget("92.32") == 92


@pytest.mark.parametrize(("sent", "wp", "played"), CORRECTION_EXAMPLES)
def test_correction_examples_of_the_rules(sent: str, wp: int, played: str) -> None:
    assert str(correct(Lineup.parse(sent), budget(Decimal(wp))).lineup) == played


def test_corrections_apply_in_the_order_of_the_rules() -> None:
    # 12-3-10-40-50 at 95: the cap first (T 12 -> 10), then 3:1 (M, S -> 30),
    # then the budget (S 30 -> 29). In another order the result would differ:
    # shortening 12-3-10-40-50 (cost 130) to 95 first would cut every row.
    result = correct(Lineup.parse("12-3-10-40-50"), 95)
    assert [(c.rule, c.row, c.before, c.after) for c in result.corrections] == [
        ("back_cap", "T", 12, 10),
        ("three_to_one", "M", 40, 30),
        ("three_to_one", "S", 50, 30),
        ("budget", "S", 30, 29),
    ]


def test_back_caps_cut_to_ten_and_the_excess_is_lost() -> None:
    # 15-12 in the back line: cut to 10-10; the 14 WP are not spent elsewhere.
    result = correct(Lineup.parse("15-12-20-20-20"), 200)
    assert str(result.lineup) == "10-10-20-20-20"
    assert result.lineup.cost == 100 < 200


def test_three_to_one_cuts_and_loses_the_excess() -> None:
    result = correct(Lineup.parse("0-0-10-40-40"), 90)
    assert str(result.lineup) == "0-0-10-30-30"
    assert result.lineup.cost == 70  # the 20 WP cut are lost, not moved to V


lineups = st.builds(
    Lineup,
    st.integers(0, 14), st.integers(0, 14),
    st.integers(0, 90), st.integers(0, 90), st.integers(0, 90),
)


@given(lineups, st.integers(0, 200))
def test_an_empty_field_row_cuts_the_other_two_to_zero(lineup: Lineup, wp: int) -> None:
    lineup = lineup.replace(M=0)
    result = correct(lineup, wp).lineup
    assert (result.v, result.m, result.s) == (0, 0, 0)


def _three_to_one(v: int, m: int, s: int) -> bool:
    return max(v, m, s) <= 3 * min(v, m, s)


def reference_correct(values: tuple[int, ...], wp_floor: int) -> tuple[int, ...]:
    """RULES.md §2.1 read literally, written independently of bot.rules."""
    t, a, v, m, s = values
    t, a = min(t, 10), min(a, 10)  # 1. back caps
    limit = 3 * min(v, m, s)  # 2. the 3:1 rule
    v, m, s = min(v, limit), min(m, limit), min(s, limit)
    rows = (t, a, v, m, s)
    prices = (2, 2, 1, 1, 1)
    cost = sum(p * x for p, x in zip(prices, rows, strict=True))
    if cost <= wp_floor:  # 4. cheap enough: unchanged
        return rows
    f = Fraction(wp_floor, cost)  # 3. the budget
    ideal = [x * f for x in rows]
    best: tuple | None = None
    for combo in itertools.product(*({math.floor(x), math.ceil(x)} for x in ideal)):
        spent = sum(p * x for p, x in zip(prices, combo, strict=True))
        if spent > wp_floor or combo[0] > 10 or combo[1] > 10:
            continue
        if not _three_to_one(*combo[2:]):
            continue
        squares = sum((p * (x - i)) ** 2 for p, x, i in zip(prices, combo, ideal, strict=True))
        key = (spent, -squares, combo)
        if best is None or key > best:
            best = key
    if best is None:
        floors = [math.floor(x) for x in ideal]
        limit = 3 * min(floors[2:])
        return (*floors[:2], *(min(x, limit) for x in floors[2:]))
    return best[2]


@settings(max_examples=400)
@given(lineups, st.integers(0, 200))
def test_budget_shortening_is_the_decided_algorithm(lineup: Lineup, wp_floor: int) -> None:
    assert correct(lineup, wp_floor).lineup.values == reference_correct(lineup.values, wp_floor)


@given(lineups, st.integers(0, 200))
def test_a_legal_cheap_lineup_is_never_changed(lineup: Lineup, wp_floor: int) -> None:
    legal = lineup.t <= 10 and lineup.a <= 10 and _three_to_one(lineup.v, lineup.m, lineup.s)
    result = correct(lineup, wp_floor).lineup
    if legal and lineup.cost <= wp_floor:
        assert correct(lineup, wp_floor).corrections == () and result == lineup
    # whatever was sent, what plays is legal and affordable
    assert result.t <= 10 and result.a <= 10 and _three_to_one(result.v, result.m, result.s)
    assert result.cost <= wp_floor


@given(lineups, st.integers(0, 200))
def test_every_correction_is_reported_with_rule_and_values(lineup: Lineup, wp_floor: int) -> None:
    result = correct(lineup, wp_floor)
    rules = [c.rule for c in result.corrections]
    assert rules == sorted(rules, key=["back_cap", "three_to_one", "budget"].index)
    replay = dict(zip("TAVMS", lineup.values, strict=True))
    for c in result.corrections:
        assert replay[c.row] == c.before != c.after  # old value as it stood, new value
        replay[c.row] = c.after
    assert tuple(replay.values()) == result.lineup.values
    assert result.changed == (result.lineup != lineup)
    for item in result.to_json()["corrections"]:
        assert set(item) == {"rule", "row", "from", "to"}


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("10-8.5-15-15-20", "8.5 is not a whole number"),
        ("10 8,5 15 15 20", "8,5 is not a whole number"),
        ("T10 A8.5 V15 M15 S20", "8.5 is not a whole number"),
        ("10--1-15-15-20", "is negative"),
        ("T10 A-1 V15 M15 S20", "-1 is negative"),
        ("10-10-15-15", "4 numbers instead of five"),
        ("10-10-15-15-20-5", "6 numbers instead of five"),
        ("T10 A10 V15 M15", "S missing"),
    ],
)
def test_malformed_lineups_are_rejected_with_a_clear_error(text: str, reason: str) -> None:
    with pytest.raises(InvalidLineupError) as info:
        Lineup.parse(text)
    message = str(info.value)
    assert reason in message and repr(text) in message and "10-10-15-15-20" in message


# --------------------------------------------------------------------------- §3


def test_the_three_parts_of_the_chances() -> None:
    y = Lineup(0, 3, 10, 10, 10)
    # attack only: S_X - (A_Y + V_Y) = 20 - 13 = 7
    assert chances(Lineup(0, 0, 0, 10, 20), y) == 7
    # midfield only: (M_X - M_Y) / 2 = 8 / 2 = 4
    assert chances(Lineup(0, 0, 0, 18, 0), y) == 4
    # defence only: (V_X - S_Y) / 4 = 12 / 4 = 3
    assert chances(Lineup(0, 0, 22, 0, 0), y) == 3
    # nothing when not superior
    assert chances(Lineup(0, 0, 10, 10, 13), y) == 0


def test_each_part_is_rounded_on_its_own_halves_up() -> None:
    y = Lineup(0, 0, 10, 10, 10)
    # midfield 5/2 = 2.5 -> 3 (Python's round would give 2)
    assert chances(Lineup(0, 0, 0, 15, 0), y) == 3
    # defence 10/4 = 2.5 -> 3; 2/4 = 0.5 -> 1 (round: 2 and 0)
    assert chances(Lineup(0, 0, 20, 0, 0), y) == 3
    assert chances(Lineup(0, 0, 12, 0, 0), y) == 1
    # midfield 1/2 -> 1 and defence 2/4 -> 1 separately: 2 (the sum 1.0 would give 1)
    assert chances(Lineup(0, 0, 12, 11, 0), y) == 2
    # defence 3/4 = 0.75 -> 1, 1/4 -> 0
    assert chances(Lineup(0, 0, 13, 0, 0), y) == 1
    assert chances(Lineup(0, 0, 11, 0, 0), y) == 0


class ScriptedDice(random.Random):
    """A generator whose ``randint`` returns scripted rolls and records the dice."""

    def __init__(self, rolls: list[int]) -> None:
        super().__init__(0)
        self.rolls = list(rolls)
        self.dice: list[tuple[int, int]] = []

    def randint(self, a: int, b: int) -> int:
        self.dice.append((a, b))
        return self.rolls.pop(0)


def test_dice_are_played_chance_by_chance() -> None:
    defender = Lineup(7, 5, 10, 10, 10)
    # chance 1: d15=5 <= A=5 foiled; chance 2: d15=6 shot, d14=7 <= T=7 saved;
    # chance 3: d15=6 shot, d14=8 goal; chance 4: d15=15, d14=14 goal
    dice = ScriptedDice([5, 6, 7, 6, 8, 15, 14])
    assert play_chances(4, defender, dice) == 2
    assert dice.dice == [(1, 15), (1, 15), (1, 14), (1, 15), (1, 14), (1, 15), (1, 14)]
    assert dice.rolls == []
    # a sweeper and keeper of 0 let every chance through
    assert play_chances(3, Lineup(0, 0, 1, 1, 1), ScriptedDice([1, 1, 1, 1, 1, 1])) == 3


def test_play_rolls_the_chances_of_both_sides() -> None:
    x, y = Lineup(0, 0, 10, 10, 30), Lineup(0, 0, 10, 10, 14)
    assert (chances(x, y), chances(y, x)) == (20, 4)
    gx, gy = play(x, y, random.Random(3))
    assert (gx, gy) == (20, 4)  # no sweeper, no keeper: every chance is a goal


@settings(max_examples=60, deadline=None)
@given(
    st.builds(Lineup, st.integers(0, 10), st.integers(0, 10), st.integers(0, 30),
              st.integers(0, 30), st.integers(0, 30)),
    st.builds(Lineup, st.integers(0, 10), st.integers(0, 10), st.integers(0, 30),
              st.integers(0, 30), st.integers(0, 30)),
)
def test_exact_odds_are_the_binomial_law(x: Lineup, y: Lineup) -> None:
    def law(n: int, defender: Lineup) -> list[Fraction]:
        p = Fraction(15 - defender.a, 15) * Fraction(14 - defender.t, 14)
        return [math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]

    gx, gy = law(chances(x, y), y), law(chances(y, x), x)
    win = sum(px * py for i, px in enumerate(gx) for j, py in enumerate(gy) if i > j)
    draw = sum(px * py for i, px in enumerate(gx) for j, py in enumerate(gy) if i == j)
    result = odds(x, y)
    assert (result.win, result.draw, result.loss) == (win, draw, 1 - win - draw)
    assert list(goal_distribution(chances(x, y), result.goal_probability[0])) == gx


@pytest.mark.parametrize(
    ("x", "y", "cx", "cy", "wdl"),
    [
        ("10-10-15-15-20", "0-10-30-20-20", 0, 6, ("0", "0.548537", "0.451463")),
        ("10-10-11-11-28", "0-0-20-20-50", 8, 34, ("0.987186", "0.009108", "0.003707")),
    ],
)
def test_odds_examples_of_the_rules(x: str, y: str, cx: int, cy: int, wdl: tuple) -> None:
    result = odds(Lineup.parse(x), Lineup.parse(y))
    assert result.chances == (cx, cy)
    for exact, shown in zip((result.win, result.draw, result.loss), wdl, strict=True):
        assert abs(exact - Fraction(shown)) <= Fraction(1, 2_000_000)


# --------------------------------------------------------------------------- the checklist


def test_the_checklist_names_only_tests_that_exist() -> None:
    """Every test the table names exists, and every compliance test is named."""
    root = Path(__file__).resolve().parents[2]
    here = Path(__file__).resolve().parent
    aliases = {"R": "test_rules_md", "T": "test_tournament_md", "W": "test_wp_psz_md",
               "L": "test_league_md", "N": "test_newsletter_md", "M": "test_mail_md"}
    table = [line for line in (__doc__ or "").splitlines() if line.startswith("| ")][1:]
    assert len(table) > 100
    named: set[tuple[str, str]] = set()
    sections = set()
    for line in table:
        section, _sentence, test = (cell.strip() for cell in line.strip("|").split("|"))
        sections.add(section.split(".")[0])
        if not test:
            continue
        where, name = test.split("::")
        path = here / f"{aliases[where]}.py" if where in aliases else root / where
        assert re.search(rf"^def {name}\(", path.read_text(encoding="utf-8"), re.M), test
        named.add((path.name, name))
    assert {str(n) for n in range(1, 12)} <= sections
    for path in here.glob("test_*.py"):
        for name in re.findall(r"^def (test_\w+)\(", path.read_text(encoding="utf-8"), re.M):
            if name != "test_the_checklist_names_only_tests_that_exist":
                assert (path.name, name) in named, f"{path.name}::{name} is not in the checklist"
