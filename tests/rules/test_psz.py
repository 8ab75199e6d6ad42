"""PSZ (RULES.md §10): every number of the tables of seed 001, draws, properties."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules.errors import InvalidResultError
from bot.rules.psz import (
    INITIAL_PSZ,
    Result,
    batch_psz,
    game_points,
    period_update,
)
from tests.rules.psz_tables import (
    J_GAMES,
    J_MEANS,
    J_START,
    J_SUMS,
    KB,
    RECORDS,
    START,
    STRONG_WEAK_OPPONENTS,
    TABLE1,
    TABLE1_BATCH,
    TABLE1_OPPONENTS,
    TABLE2_UNBOUNDED,
    TABLE3_BOUNDED,
    Row,
)

PLAYERS = sorted(RECORDS)
W, D, L = Result.WIN, Result.DRAW, Result.LOSS


def games_of(player: str, opponents: tuple[int, int, int]) -> list[tuple[int, Result]]:
    """The games a player of the original played: per Paarkreuz, wins then losses."""
    games: list[tuple[int, Result]] = []
    for (wins, losses), opponent in zip(RECORDS[player], opponents, strict=True):
        games += [(opponent, W)] * wins + [(opponent, L)] * losses
    return games


def check_row(row: Row, player: str, opponents: tuple[int, int, int], bound: bool) -> None:
    games = games_of(player, opponents)
    n = len(games)
    wins = sum(r is W for _, r in games)
    losses = sum(r is L for _, r in games)
    assert row.s_minus_n == wins - losses
    assert row.times_40 == 40 * (wins - losses)
    update = period_update(START[player], games, bound=bound)
    assert update.before == START[player]
    assert update.games == n
    assert update.after == row.psz
    assert update.points == (row.psz - START[player]) * n
    assert n * update.after == row.total
    # SuPSZG: the opponents' sum (unbounded), the sum the bounded points imply.
    assert row.total - row.times_40 == row.su_pszg
    if not bound:
        assert sum(opp for opp, _ in games) == row.su_pszg
        assert batch_psz(games) == row.psz


@pytest.mark.parametrize("player", PLAYERS)
def test_table1_psz_batch_and_period(player: str) -> None:
    games = games_of(player, TABLE1_OPPONENTS)
    _lpz_points, _lpz, psz_points, su_pszg_avg, psz = TABLE1[player]
    assert batch_psz(games) == psz
    assert Fraction(sum(o for o, _ in games), len(games)) == su_pszg_avg
    assert batch_psz(games) - su_pszg_avg == psz_points  # Pu. = (S-N) x 40 / AS
    for bound in (True, False):
        assert period_update(START[player], games, bound=bound).after == psz
        check_row(TABLE1_BATCH[player], player, TABLE1_OPPONENTS, bound)


@pytest.mark.parametrize("player", PLAYERS)
def test_table1_lpz_columns(player: str) -> None:
    """The LPZ of table 1: KB + weighted points x HF (HF = 20 / AS; Schleswig-Holstein
    weights: a win counts 3/2/1 and a loss -1/-2/-3 in the upper/middle/lower
    Paarkreuz). The PSZ formula with fixed Paarkreuz values gives the same LPZ."""
    lpz_points, lpz, *_ = TABLE1[player]
    weights = ((3, -1), (2, -2), (1, -3))
    record = RECORDS[player]
    n = sum(w + lo for w, lo in record)
    weighted = sum(w * ww + lo * wl for (w, lo), (ww, wl) in zip(record, weights, strict=True))
    assert Fraction(20, n) * weighted == lpz_points
    assert KB + lpz_points == lpz
    assert batch_psz(games_of(player, TABLE1_OPPONENTS)) == lpz


def test_table1_j_from_250_gives_the_same() -> None:
    # J's start in table 1 is not printed; 230 and 250 both give 246.
    games = games_of("J", TABLE1_OPPONENTS)
    assert period_update(250, games).after == period_update(230, games).after == 246


@pytest.mark.parametrize("player", PLAYERS)
def test_table2_without_bound(player: str) -> None:
    check_row(TABLE2_UNBOUNDED[player], player, STRONG_WEAK_OPPONENTS, bound=False)


@pytest.mark.parametrize("player", PLAYERS)
def test_table3_with_bound(player: str) -> None:
    check_row(TABLE3_BOUNDED[player], player, STRONG_WEAK_OPPONENTS, bound=True)


def test_text_claims_about_c_and_g() -> None:
    # "Spieler C [hätte] 10 Punkte gewonnen, obwohl er alle Spiele verloren hat",
    # "Spieler G [...] hätte doch 10 Punkte verloren" - without the bound only.
    c, g = games_of("C", STRONG_WEAK_OPPONENTS), games_of("G", STRONG_WEAK_OPPONENTS)
    assert period_update(270, c, bound=False).after - 270 == 10
    assert period_update(230, g, bound=False).after - 230 == -10
    assert period_update(270, c).after == 270
    assert period_update(230, g).after == 230


def test_the_bound_changes_exactly_b_c_g_h_j() -> None:
    changed = {
        p for p in PLAYERS if TABLE2_UNBOUNDED[p].psz != TABLE3_BOUNDED[p].psz
    }
    assert changed == {"B", "C", "G", "H", "J"}


@pytest.mark.parametrize("index", range(len(J_GAMES)))
def test_j_game_by_game(index: int) -> None:
    game = J_GAMES[index]
    result = W if game.won else L
    assert game.pszg - J_START == game.diff
    assert game_points(J_START, game.pszg, result) == game.points
    # PSZneu with AS = 1: max(40 + PSZG; PSZalt) for a win, min(-40 + PSZG; PSZalt).
    assert period_update(J_START, [(game.pszg, result)]).after == game.psz
    # The LPZ columns: the same formula against the fixed Paarkreuz values.
    assert game.lpzg - J_START == game.lpz_diff
    assert game_points(J_START, game.lpzg, result) == game.lpz_points
    assert period_update(J_START, [(game.lpzg, result)]).after == game.lpz


def test_j_sums_and_new_psz() -> None:
    games = [(g.pszg, W if g.won else L) for g in J_GAMES]
    lpz_games = [(g.lpzg, W if g.won else L) for g in J_GAMES]
    update = period_update(J_START, games)
    assert update.points == J_SUMS["points"] == 30
    assert update.points / update.games == J_MEANS["points"]
    assert update.after == J_MEANS["psz"] == 233
    assert sum(period_update(J_START, [g]).after for g in games) == J_SUMS["psz"]
    assert J_SUMS["psz"] / len(games) == J_MEANS["psz"]
    lpz = period_update(J_START, lpz_games)
    assert lpz.points == J_SUMS["lpz_points"]
    assert lpz.after == J_MEANS["lpz"] == 246
    assert sum(period_update(J_START, [g]).after for g in lpz_games) == J_SUMS["lpz"]
    # J's games are those of table 3 (same opponents, same start, same bound).
    def key(game: tuple[int, Result]) -> tuple[int, str]:
        return game[0], game[1].value

    assert sorted(games, key=key) == sorted(games_of("J", STRONG_WEAK_OPPONENTS), key=key)


# Draws (RULES.md §10 Decision): points = DIFF, never bounded.
@pytest.mark.parametrize(("own", "opponent", "points"), [
    (250, 300, 50), (300, 250, -50), (250, 250, 0), (230, 180, -50),
    (Fraction(501, 2), 250, Fraction(-1, 2)),
])
def test_draw_scores_the_difference_unbounded(own, opponent, points) -> None:
    for bound in (True, False):
        assert game_points(own, opponent, D, bound=bound) == points


def test_draws_in_a_period_match_the_batch_form() -> None:
    games = [(300, D), (200, D), (260, W), (240, L)]
    # (1 - 1) x 40 + 1000 = 1000 / 4 = 250 whatever the start (no bound applies here
    # from 250: win 40 + 10, loss -40 - 10).
    assert batch_psz(games) == 250
    assert period_update(250, games).after == 250
    assert period_update(250, games).points == 50 - 50 + 50 - 50


def test_no_games_leaves_the_psz_and_the_batch_form_needs_games() -> None:
    update = period_update(INITIAL_PSZ, [])
    assert (update.games, update.points, update.after) == (0, 0, 250)
    with pytest.raises(ValueError, match="at least one game"):
        batch_psz([])


@pytest.mark.parametrize(("text", "result"), [
    ("1", W), ("0", L), ("0.5", D), ("0,5", D), ("W", W), ("d", D), ("L", L),
    ("S", W), ("U", D), ("N", L), (" Sieg ", W), ("remis", D), ("Niederlage", L),
])
def test_result_words(text: str, result: Result) -> None:
    assert Result.parse(text) is result


@pytest.mark.parametrize("text", ["2", "x", "", "1:0", "0.4"])
def test_invalid_result_quotes_the_input(text: str) -> None:
    with pytest.raises(InvalidResultError) as info:
        Result.parse(text)
    assert repr(text) in str(info.value)
    assert "W/D/L" in str(info.value)


psz_values = st.fractions(min_value=0, max_value=1000, max_denominator=100)
game_lists = st.lists(st.tuples(psz_values, st.sampled_from(list(Result))), max_size=12)


@given(psz_values, game_lists.filter(bool))
def test_unbounded_period_update_is_the_batch_form(own: Fraction, games: list) -> None:
    assert period_update(own, games, bound=False).after == batch_psz(games)


@given(psz_values, psz_values, st.sampled_from(list(Result)))
def test_bound_only_cuts_wins_below_and_losses_above_zero(own, opponent, result) -> None:
    bounded = game_points(own, opponent, result)
    free = game_points(own, opponent, result, bound=False)
    if result is W:
        assert bounded == max(free, 0) >= 0
    elif result is L:
        assert bounded == min(free, 0) <= 0
    else:
        assert bounded == free == opponent - own


@given(psz_values, game_lists)
def test_period_points_are_the_sum_of_game_points(own: Fraction, games: list) -> None:
    update = period_update(own, games)
    assert update.points == sum((game_points(own, o, r) for o, r in games), Fraction(0))
    if games:
        assert update.after == own + update.points / len(games)
