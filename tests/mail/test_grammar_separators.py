"""Separators (RULES.md §11): between a keyword or a team name and its value
any of ``:`` ``=`` ``-`` ``–`` ``—`` (with or without spaces) or plain spaces.

A lineup itself is written with dashes and team names hold hyphens, so a
``-`` is a separator only with a space after it; negative numbers stay
errors."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules.lineup import Lineup
from bot.rules.requests import GivePassword, RegisterTeam, SelectTeam, SetLineup, SetShortName
from tests.support.grammar import parse_moves

L = Lineup.parse


def read(line: str) -> tuple:
    moves = parse_moves("", line)
    return moves.requests, tuple(e.reason for e in moves.errors), moves.ignored


@pytest.mark.parametrize("sep", [":", " : ", "=", " = ", " - ", "- ", " – ", "–", " — ", "—"])
def test_every_separator_after_a_team_name(sep: str) -> None:
    for name in ("Westfalia Altona", "Exeter", "Blau-Weiß Lübeck", "Hannover 96"):
        line = f"{name}{sep}10-5-13-40-13"
        assert read(line) == ((SetLineup(line, name, L("10-5-13-40-13")),), (), ())


@pytest.mark.parametrize("sep", [":", " : ", "=", " = ", " - ", "- ", " – ", "–", " — ", "—", " "])
def test_every_separator_after_a_keyword(sep: str) -> None:
    cases = [
        (f"Aufstellung{sep}10-8-25-20-20", SetLineup, {"team": None, "lineup": L("10-8-25-20-20")}),
        (f"Lineup{sep}10/8/25/20/20", SetLineup, {"team": None, "lineup": L("10-8-25-20-20")}),
        (f"neues team{sep}Concordia Moorburg / Moorburg", RegisterTeam,
         {"name": "Concordia Moorburg", "short_name": "Moorburg"}),
        (f"Team{sep}Rote Teufel", SelectTeam, {"team": "Rote Teufel"}),
        (f"Kurzname{sep}Moorburg", SetShortName, {"short_name": "Moorburg"}),
        (f"Passwort{sep}k7f-x2q-m4p", GivePassword, {"password": "k7f-x2q-m4p"}),
    ]
    for line, kind, fields in cases:
        (request,), errors, ignored = read(line)
        assert errors == () and ignored == ()
        assert request == kind(line=line, **fields), line


def test_a_named_team_with_an_en_dash_and_a_lineup_of_labels() -> None:
    line = "Westfalia Altona — T10 A10 V15 M15 S20"
    assert read(line)[0] == (SetLineup(line, "Westfalia Altona", L("10-10-15-15-20")),)


def test_registration_and_lineup_in_one_line_with_dashes() -> None:
    line = "Neues Team – Concordia Moorburg / Moorburg – 10-10-15-15-20"
    assert read(line)[0] == (
        RegisterTeam(line, "Concordia Moorburg", "Moorburg"),
        SetLineup(line, "Concordia Moorburg", L("10-10-15-15-20")),
    )


def test_a_lineup_written_with_spaced_dashes_keeps_its_team() -> None:
    line = "Rote Teufel 10 - 10 - 15 - 15 - 20"
    assert read(line)[0] == (SetLineup(line, "Rote Teufel", L("10-10-15-15-20")),)


def test_a_hyphen_inside_a_name_is_no_separator() -> None:
    line = "Team-Rot: 10-10-15-15-20"
    assert read(line)[0] == (SetLineup(line, "Team-Rot", L("10-10-15-15-20")),)


@pytest.mark.parametrize("line", [
    "Rote Teufel -10-10-15-15-20",
    "Aufstellung -10-10-15-15-20",
    "Aufstellung - -10-10-15-15-20",
    "Aufstellung: -10-10-15-15-20",
    "Exeter = -10-10-15-15-20",
    "Westfalia Altona – 10-5-13-40--13",
])
def test_negative_numbers_stay_errors(line: str) -> None:
    requests, errors, _ = read(line)
    assert requests == ()
    (reason,) = errors
    assert "negative" in reason or "cannot read" in reason


def test_a_broken_lineup_after_a_dash_is_an_error_of_that_team() -> None:
    moves = parse_moves("", "Exeter Wanderers - 10-10-15-15")
    (error,) = moves.errors
    assert error.reason == "4 numbers instead of five" and moves.requests == ()


@pytest.mark.parametrize("line", [
    "Mein Team: London Lions", "Meine Mannschaft = London Lions", "My team - London Lions",
    "my team: London Lions",
])
def test_my_team_names_the_team(line: str) -> None:
    assert read(line)[0] == (SelectTeam(line, "London Lions"),)


@pytest.mark.parametrize("line", [
    "Mein Team hat diesmal keine Chance.", "My team is the best", "Team ist super!",
    "Ich bin weg - 3 Tage Urlaub", "Hallo – hier ist Ole",
])
def test_sentences_with_dashes_or_team_words_are_no_commands(line: str) -> None:
    requests, errors, _ = read(line)
    assert requests == () and errors == ()


@given(st.lists(st.integers(0, 99), min_size=5, max_size=5),
       st.sampled_from([":", "=", " - ", " – ", "—", " = "]))
def test_any_lineup_after_any_separator(numbers: list[int], sep: str) -> None:
    text = "-".join(map(str, numbers))
    line = f"Hertha Köpenick{sep}{text}"
    assert read(line)[0] == (SetLineup(line, "Hertha Köpenick", L(text)),)
