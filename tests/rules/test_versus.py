"""The odds of one side against another (``bot.rules.versus``, RULES.md §12):
a lineup as it plays for its budget, or the GM field averaged exactly over
the GM teams' scheme as the tournament draws it (RULES.md §5)."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.rules.corrections import correct
from bot.rules.gm_teams import BACK_LINES, GM_WP, TACTICS, draw_gm_lineup
from bot.rules.lineup import Lineup
from bot.rules.match import odds
from bot.rules.versus import (
    GM_FIELD,
    GM_LINEUPS,
    lineup_side,
    match_as_played,
    odds_of,
)
from bot.rules.wp import budget

#: Any lineup a player may write (the back caps and the 3:1 rule included).
written = st.builds(
    Lineup,
    st.integers(0, 14), st.integers(0, 14),
    st.integers(0, 70), st.integers(0, 70), st.integers(0, 70),
)
wps = st.decimals(min_value=Decimal(0), max_value=Decimal(140), places=2)


class _Draw:
    """A random generator that answers ``randrange`` with the given choices:
    with it ``draw_gm_lineup`` yields the lineup of one (back line, tactic)."""

    def __init__(self, *choices: int) -> None:
        self.choices = list(choices)

    def randrange(self, stop: int) -> int:
        choice = self.choices.pop(0)
        assert 0 <= choice < stop
        return choice


def every_gm_draw() -> list[Lineup]:
    """The lineup of each of the equally likely draws a GM team makes."""
    return [draw_gm_lineup(_Draw(b, k))  # type: ignore[arg-type]
            for b in range(len(BACK_LINES)) for k in range(len(TACTICS))]


def test_the_gm_field_is_every_draw_of_the_scheme_once() -> None:
    assert list(GM_LINEUPS) == every_gm_draw()
    assert len(GM_LINEUPS) == 40
    for lineup in GM_LINEUPS:  # 90 WP, and they play as they are
        assert lineup.cost == GM_WP and not correct(lineup, GM_WP).changed


@given(written, wps)
@settings(deadline=None, max_examples=60)
def test_against_gm_is_the_exact_average_over_the_draws(x: Lineup, wp: Decimal) -> None:
    played = correct(x, budget(wp)).lineup
    games = [odds(played, gm) for gm in every_gm_draw()]
    result = odds_of(lineup_side(x, wp), GM_FIELD)
    assert result.win == sum((g.win for g in games), Fraction(0)) / 40
    assert result.draw == sum((g.draw for g in games), Fraction(0)) / 40
    assert result.loss == sum((g.loss for g in games), Fraction(0)) / 40
    assert result.expected_goals == (
        sum((g.chances[0] * g.goal_probability[0] for g in games), Fraction(0)) / 40,
        sum((g.chances[1] * g.goal_probability[1] for g in games), Fraction(0)) / 40,
    )
    assert result.pairing is None
    mirrored = odds_of(GM_FIELD, lineup_side(x, wp))
    assert (mirrored.win, mirrored.draw, mirrored.loss) == (result.loss, result.draw,
                                                            result.win)
    assert mirrored.expected_goals == result.expected_goals[::-1]


@given(written, written, wps, wps)
@settings(deadline=None)
def test_two_lineups_are_the_one_game_as_they_play(
    x: Lineup, y: Lineup, wp_x: Decimal, wp_y: Decimal
) -> None:
    result = odds_of(lineup_side(x, wp_x), lineup_side(y, wp_y))
    played, game = match_as_played(x, y, wp_x, wp_y)
    assert played == (correct(x, budget(wp_x)), correct(y, budget(wp_y)))
    assert game == odds(played[0].lineup, played[1].lineup) == result.pairing
    assert (result.win, result.draw, result.loss) == (game.win, game.draw, game.loss)
    assert result.expected_goals == game.expected_goals
    assert result.win + result.draw + result.loss == 1


def test_the_gm_field_against_itself_is_even() -> None:
    result = odds_of(GM_FIELD, GM_FIELD)
    assert result.win == result.loss and result.win + result.draw + result.loss == 1
    assert result.expected_goals[0] == result.expected_goals[1]


def test_the_rules_package_still_exports_the_odds_function() -> None:
    """The modules of an odds question are not called ``bot.rules.odds``: a
    submodule of that name would replace the package's ``odds`` function
    (``from bot.rules import odds``) once imported."""
    import bot.render.odds
    import bot.service.commands.odds
    from bot.rules import odds as exported

    assert bot.render.odds and bot.service.commands.odds
    assert exported is odds
