"""RULES.md §4 (the tournament), §5 (GM teams) and the tournament's side of
§6, §8 and §10, through ``play_tournament`` / ``build_report``."""

from __future__ import annotations

import random
from collections import Counter
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.rules.analytics import expectation_table
from bot.rules.corrections import correct
from bot.rules.gm_teams import all_gm_lineups, split_rest
from bot.rules.lineup import Lineup
from bot.rules.match import odds
from bot.rules.psz import Result, game_points
from bot.rules.report import build_report, public_report
from bot.rules.tournament import (
    Entrant,
    Game,
    Points,
    field_groups,
    group_table,
    play_tournament,
)

GM_LINEUPS = set(all_gm_lineups())


def field(n: int, seed: int = 0) -> list[Entrant]:
    """``n`` player teams with legal lineups none of which a GM team can field
    (T is odd), PSZ around 250."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        t = rng.choice((1, 3, 5, 7, 9))
        a = rng.randint(0, 10)
        rest = 90 - 2 * t - 2 * a
        v = rng.randint(rest // 4, rest // 2)
        m = rng.randint(rest // 5, rest - v - rest // 5)
        lineup = correct(Lineup(t, a, v, m, rest - v - m), 90).lineup
        out.append(Entrant(f"Spieler {i:02d}", lineup, Fraction(rng.randint(230, 270))))
    return out


# --------------------------------------------------------------------------- §4 field


def test_group_count_for_every_field_size() -> None:
    expected = {0: 0, 1: 4, 16: 4, 17: 8, 32: 8, 33: 16, 64: 16, 65: 32, 128: 32, 129: 64}
    for n, groups in expected.items():
        assert field_groups(n) == groups, n
    for n in range(1, 300):
        g = field_groups(n)
        assert 4 * g >= n and (g == 4 or 4 * (g // 2) < n) and g & (g - 1) == 0


def test_no_entrants_no_tournament() -> None:
    result = play_tournament([], random.Random(1))
    assert result.empty and result.stages == () and result.knockout == ()
    assert result.wp_gain == {} and result.psz == {}
    report = build_report([], 7, simulations=10)
    assert report["empty"] is True and report["teams"] == [] and report["knockout"] == []


@pytest.mark.parametrize("n", [1, 5, 16, 17, 33])
def test_free_places_are_filled_with_gm_teams(n: int) -> None:
    result = play_tournament(field(n, n), random.Random(n))
    assert len(result.players) == n
    assert len(result.teams) == 4 * field_groups(n)
    assert len(result.gm_teams) == 4 * field_groups(n) - n


def test_first_draw_is_by_lot() -> None:
    entrants = field(16, 3)
    draws = {
        tuple(tuple(g) for g in play_tournament(entrants, random.Random(seed)).first_groups)
        for seed in range(12)
    }
    assert len(draws) == 12  # a different lot gives a different draw
    for draw in draws:
        assert sorted(name for group in draw for name in group) == sorted(e.name for e in entrants)
        assert all(len(group) == 4 for group in draw)


@pytest.mark.parametrize("seed", [0, 1])
def test_every_group_is_a_double_round_robin(seed: int) -> None:
    result = play_tournament(field(20, seed), random.Random(seed))
    for stage in result.stages:
        for group in stage.groups:
            assert len(group.games) == 12
            pairs = Counter(frozenset((g.home, g.away)) for g in group.games)
            assert len(pairs) == 6 and set(pairs.values()) == {2}
            homes = Counter((g.home, g.away) for g in group.games)
            assert set(homes.values()) == {1}  # home and away, once each
            for row in group.table:
                assert row.played == 6 == row.won + row.drawn + row.lost


@pytest.mark.parametrize("points", [Points(), Points(2, 1, 0)])
def test_points_are_3_1_0_and_configurable(points: Points) -> None:
    assert (Points().win, Points().draw, Points().loss) == (3, 1, 0)
    result = play_tournament(field(9, 4), random.Random(4), points=points)
    for stage in result.stages:
        for group in stage.groups:
            for row in group.table:
                own = [g for g in group.games if row.team in (g.home, g.away)]
                won = sum(1 for g in own if g.goals_of(row.team)[0] > g.goals_of(row.team)[1])
                drawn = sum(1 for g in own if g.goals_of(row.team)[0] == g.goals_of(row.team)[1])
                assert (row.won, row.drawn) == (won, drawn)
                assert row.points == points.win * won + points.draw * drawn + points.loss * (
                    6 - won - drawn)


def test_table_order_points_then_difference_then_lot() -> None:
    # C: 10 points. A and B: 7 points and difference +3 each, but A scored 5
    # goals and B 4. D: 4 points. Who of A and B advances is a lot.
    names = ["A", "B", "C", "D"]
    games = [
        Game("A", "B", (0, 0)), Game("B", "A", (0, 0)),
        Game("A", "C", (0, 1)), Game("C", "A", (0, 0)),
        Game("A", "D", (5, 1)), Game("D", "A", (0, 0)),
        Game("B", "C", (0, 0)), Game("C", "B", (1, 0)),
        Game("B", "D", (4, 0)), Game("D", "B", (0, 0)),
        Game("C", "D", (0, 0)), Game("D", "C", (0, 0)),
    ]
    second = Counter()
    for seed in range(40):
        group = group_table("A", names, games, Points(), random.Random(seed))
        keys = [(r.points, r.goal_difference) for r in group.table]
        assert keys == sorted(keys, reverse=True)
        rows = {r.team: r for r in group.table}
        assert (rows["A"].points, rows["A"].goal_difference, rows["A"].goals_for) == (7, 3, 5)
        assert (rows["B"].points, rows["B"].goal_difference, rows["B"].goals_for) == (7, 3, 4)
        assert [r.team for r in group.table][::3] == ["C", "D"]
        assert rows["A"].by_lot and rows["B"].by_lot and not rows["C"].by_lot
        assert group.qualification_by_lot and group.qualifiers[0] == "C"
        second[group.table[1].team] += 1
    # goals scored do not count: the lot puts either of them through
    assert set(second) == {"A", "B"} and min(second.values()) >= 8


def test_first_two_advance_and_are_redrawn_until_four_remain() -> None:
    for n, stages in ((3, 2), (20, 3), (40, 4), (70, 5)):
        result = play_tournament(field(n, n), random.Random(n))
        assert len(result.stages) == stages
        for before, after in zip(result.stages, result.stages[1:], strict=False):
            qualified = [r.team for g in before.groups for r in g.table[:2]]
            assert all(r.qualified == (i < 2) for g in before.groups
                       for i, r in enumerate(g.table))
            assert sorted(t for g in after.groups for t in g.teams) == sorted(qualified)
            assert all(len(g.teams) == 4 for g in after.groups)
        last = [r.team for g in result.stages[-1].groups for r in g.table[:2]]
        assert len(last) == 4 and sorted(result.semi_finalists) == sorted(last)


def test_semis_by_lot_third_place_and_final() -> None:
    entrants = field(8, 2)
    pairings = set()
    for seed in range(30):
        result = play_tournament(entrants, random.Random(seed))
        semi1, semi2, third, final = result.knockout
        assert [g.stage for g in result.knockout] == ["semi_final", "semi_final",
                                                      "third_place", "final"]
        assert {third.home, third.away} == {semi1.loser, semi2.loser}
        assert {final.home, final.away} == {semi1.winner, semi2.winner}
        assert result.placings == (final.winner, final.loser, third.winner, third.loser)
        pairings.add(frozenset((semi1.home, semi1.away)))
    assert len(pairings) > 3  # the semi-final pairs are drawn, not fixed


def test_level_knockout_games_are_lots_and_draws() -> None:
    # Sixteen teams that create no chance at all: every game ends 0:0, so the
    # tables and every knock-out game are decided by lot.
    entrants = [Entrant(f"Null {i:02d}", Lineup(0, 0, 0, 0, 0)) for i in range(16)]
    winners = Counter()
    for seed in range(20):
        result = play_tournament(entrants, random.Random(seed))
        assert not result.gm_teams
        for game in result.knockout:
            assert game.goals == (0, 0) and game.by_lot
            assert game.winner in (game.home, game.away)
        winners[result.knockout[-1].winner] += 1
        for name in result.semi_finalists:
            record = result.record[name]
            assert (record.won, record.drawn, record.lost) == (0, 14, 0)  # 6 + 6 + 2 draws
            assert result.wp_gain[name] == Decimal("1.4")
            assert result.psz[name].after == result.psz[name].before  # draws at equal PSZ
        report = build_report(entrants, seed, simulations=0)
        assert all(k["by_lot"] for k in report["knockout"])
    assert len(winners) > 5


def test_one_seeded_generator_replays_bit_for_bit() -> None:
    entrants = field(11, 8)
    first = build_report(entrants, 123456789, simulations=300)
    again = build_report(entrants, 123456789, simulations=300)
    other = build_report(entrants, 123456790, simulations=300)
    assert first == again and first["seed"] == 123456789
    assert first != other


# --------------------------------------------------------------------------- §5 GM teams


def test_gm_split_by_largest_remainder() -> None:
    assert split_rest(50, (2, 2, 5)) == (11, 11, 28)
    assert split_rest(70, (3, 3, 3)) == (24, 23, 23)
    assert split_rest(70, (2, 2, 5)) == (16, 15, 39)
    for rest in (50, 70, 90):
        for tactic in ((2, 2, 5), (2, 4, 3), (3, 3, 3), (5, 2, 2)):
            rows = split_rest(rest, tactic)
            assert sum(rows) == rest
            assert all(abs(Fraction(rest * k, 9) - r) < 1 for r, k in zip(rows, tactic,
                                                                          strict=True))


def test_gm_lineups_come_from_the_forty() -> None:
    assert len(GM_LINEUPS) == 40
    assert {(g.t, g.a) for g in GM_LINEUPS} == {(0, 0), (0, 10), (10, 0), (10, 10)}
    result = play_tournament(field(2, 1), random.Random(9))
    assert all(t.lineup in GM_LINEUPS for t in result.gm_teams)


def test_gm_teams_spend_90_and_never_gain() -> None:
    assert {g.cost for g in GM_LINEUPS} == {90}
    result = play_tournament(field(5, 5), random.Random(5))
    gm = {t.name for t in result.gm_teams}
    assert gm and not gm & set(result.wp_gain) and not gm & set(result.psz)
    assert set(result.wp_gain) == {t.name for t in result.players}
    assert any(result.record[name].won for name in gm)  # they do win games, and gain nothing


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 30), st.integers(0, 2**32))
def test_gm_names_are_their_lineups_with_suffixes(n: int, seed: int) -> None:
    result = play_tournament(field(n, seed % 97), random.Random(seed))
    shared = Counter(t.lineup for t in result.gm_teams)
    names = [t.name for t in result.gm_teams]
    assert len(set(names)) == len(names)
    for team in result.gm_teams:
        base = f"GM {team.lineup}"
        if shared[team.lineup] == 1:
            assert team.name == base
        else:
            assert team.name[: len(base)] == base and team.name[len(base):].isalpha()
            assert team.name[len(base):].islower()


def test_public_report_has_gm_lineups_and_no_player_lineup() -> None:
    entrants = field(6, 6)
    report = build_report(entrants, 66, simulations=0)
    public = public_report(report)
    text = repr(public)
    for entrant in entrants:
        assert str(entrant.lineup) not in text
    gm = [t for t in public["teams"] if t["gm"]]
    assert gm and all(t["lineup"] == t["name"][3:3 + len(t["lineup"])] for t in gm)
    assert public["gm_teams"] == report["gm_teams"]


def test_gm_teams_play_at_initial_psz_and_are_not_rated() -> None:
    entrants = field(3, 12)
    result = play_tournament(entrants, random.Random(12), initial_psz=Fraction(300))
    for team in result.gm_teams:
        assert team.psz == 300
    start = {t.name: t.psz for t in result.teams}
    for entrant in entrants:
        games = result.games_of(entrant.name)
        points = sum(game_points(entrant.psz, start[opp], res) for opp, _, _, res in games)
        update = result.psz[entrant.name]
        assert update.games == len(games) and update.points == points
        assert update.after == entrant.psz + points / len(games)


# --------------------------------------------------------------------------- §6, §8


def test_wp_gain_counts_every_game_including_knockout() -> None:
    result = play_tournament(field(16, 21), random.Random(21))
    for name in result.semi_finalists:
        games = result.games_of(name)
        assert len(games) == 6 * len(result.stages) + 2
    for team in result.players:
        games = result.games_of(team.name)
        wins = sum(1 for g in games if g[3] is Result.WIN)
        draws = sum(1 for g in games if g[3] is Result.DRAW)
        assert result.wp_gain[team.name] == Decimal("0.2") * wins + Decimal("0.1") * draws


def test_expectation_table_is_exact_and_ordered() -> None:
    entrants = field(5, 30)
    report = build_report(entrants, 30, simulations=0)
    lineups = {t["name"]: Lineup.parse(t["lineup"]) for t in report["teams"]}
    rows = {r.team: r for r in expectation_table(lineups)}
    some, other = sorted(lineups)[:2]
    assert rows[some].games == 2 * (len(lineups) - 1)  # every other team, twice
    expected = sum(
        2 * (3 * odds(lineups[some], lineups[y]).win + odds(lineups[some], lineups[y]).draw)
        for y in lineups if y != some
    )
    assert rows[some].points == expected
    table = report["expectation_table"]
    points = [Fraction(r["points"]) for r in table]
    assert points == sorted(points, reverse=True)
    public = public_report(report)
    assert public["expectation_table"] == table
    assert not any(str(e.lineup) in repr(public) for e in entrants)
    assert other in {r["team"] for r in table}
