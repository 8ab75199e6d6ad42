"""The shape of the tournament (RULES.md §4): field size, groups, games,
tables, knock-out, placings, WP, for every field size 0..70."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.rules.lineup import Lineup
from bot.rules.tournament import (
    Entrant,
    Points,
    TournamentError,
    draw_gm_teams,
    field_groups,
    group_name,
    play_tournament,
)

from .fields import check_structure, random_field


@pytest.mark.parametrize(
    ("players", "groups"),
    [(0, 0), (1, 4), (16, 4), (17, 8), (32, 8), (33, 16), (64, 16), (65, 32), (128, 32),
     (129, 64), (256, 64), (257, 128)],
)
def test_field_size(players, groups):
    assert field_groups(players) == groups


def test_field_size_rejects_negative():
    with pytest.raises(TournamentError, match="negative"):
        field_groups(-1)


@pytest.mark.parametrize(
    ("index", "name"), [(0, "A"), (7, "H"), (25, "Z"), (26, "AA"), (27, "AB"), (701, "ZZ"),
                        (702, "AAA")],
)
def test_group_names(index, name):
    assert group_name(index) == name


def test_every_field_size_up_to_70():
    for n in range(71):
        entrants = random_field(n, seed=1000 + n)
        result = play_tournament(entrants, random.Random(n))
        check_structure(result, entrants)


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(0, 40),
    seed=st.integers(0, 2**32),
    points=st.sampled_from([Points(), Points(2, 1, 0), Points(3, 1, -1)]),
)
def test_structure_holds_for_any_field_and_seed(n, seed, points):
    entrants = random_field(n, seed)
    result = play_tournament(entrants, random.Random(seed), points=points)
    check_structure(result, entrants)
    assert result.points == points


def test_gm_teams_share_lineups_get_letter_suffixes():
    # Draw many GM teams: with 40 possible lineups most are shared.
    teams = draw_gm_teams(120, random.Random(5), Fraction(250))
    names = [t.name for t in teams]
    assert len(set(names)) == 120
    by_lineup: dict[Lineup, list[str]] = {}
    for t in teams:
        by_lineup.setdefault(t.lineup, []).append(t.name)
    for lineup, group in by_lineup.items():
        if len(group) > 1:
            # a, b, c, ... in draw order
            assert group == [f"GM {lineup}{chr(ord('a') + i)}" for i in range(len(group))]
        else:
            assert group == [f"GM {lineup}"]
    assert all(t.gm and t.psz == 250 for t in teams)


def test_gm_suffixes_go_on_past_z():
    # 1040 draws from 40 lineups: some lineup is drawn more than 26 times.
    teams = draw_gm_teams(1040, random.Random(1), Fraction(250))
    assert len({t.name for t in teams}) == 1040
    assert any(t.name.endswith("aa") for t in teams)


class TestInvalidEntrants:
    lineup = Lineup(10, 10, 15, 15, 20)

    def test_duplicate_names_case_and_space_folded(self):
        entrants = [Entrant("Rote Teufel", self.lineup), Entrant("rote  teufel", self.lineup)]
        with pytest.raises(TournamentError, match=r"'rote  teufel' is used twice.*'Rote Teufel'"):
            play_tournament(entrants, random.Random(1))

    def test_gm_prefix_is_reserved(self):
        with pytest.raises(TournamentError, match=r"'gm 10-0-16-15-39'.*marks GM teams"):
            play_tournament([Entrant("gm 10-0-16-15-39", self.lineup)], random.Random(1))

    def test_uncorrected_lineup(self):
        with pytest.raises(TournamentError, match=r"'Wild'.*three_to_one.*correct"):
            play_tournament([Entrant("Wild", Lineup(0, 0, 10, 40, 40))], random.Random(1))
        with pytest.raises(TournamentError, match=r"back_cap"):
            play_tournament([Entrant("Wild", Lineup(12, 0, 20, 20, 20))], random.Random(1))

    def test_empty_name_and_wrong_types(self):
        with pytest.raises(TournamentError, match="empty"):
            Entrant("  ", self.lineup)
        with pytest.raises(TournamentError, match="not a Lineup"):
            Entrant("X", "10-10-15-15-20")  # type: ignore[arg-type]
        with pytest.raises(TournamentError, match="binary floats"):
            Entrant("X", self.lineup, 250.5)  # type: ignore[arg-type]
        with pytest.raises(TournamentError, match="not an Entrant"):
            play_tournament([("X", self.lineup)], random.Random(1))  # type: ignore[list-item]

    def test_psz_accepts_exact_numbers(self):
        from decimal import Decimal

        assert Entrant("X", self.lineup, Decimal("251.37")).psz == Fraction(25137, 100)
        assert Entrant("X", self.lineup, 240).psz == 240

    def test_points_must_be_ordered_whole_numbers(self):
        with pytest.raises(TournamentError, match="at least as many"):
            Points(1, 3, 0)
        with pytest.raises(TournamentError, match="whole numbers"):
            Points(3.0, 1, 0)  # type: ignore[arg-type]
