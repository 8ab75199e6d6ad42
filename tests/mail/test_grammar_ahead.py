"""A lineup for several rounds in the mail grammar (RULES.md §12): the suffix
``für N Runden`` / ``for N rounds`` on any lineup line."""

from __future__ import annotations

import pytest

from bot.mail.ahead_text import split_ahead
from bot.rules.lineup import Lineup
from bot.rules.requests import SelectTeam, SetLineup, SetLineupAhead
from tests.support.grammar import parse_moves

L = Lineup.parse("10-10-15-15-20")


@pytest.mark.parametrize(("line", "team", "rounds", "language"), [
    ("Rote Teufel: 10-10-15-15-20 für 3 Runden", "Rote Teufel", 3, "de"),
    ("Rote Teufel 10-10-15-15-20 fuer 2 Runden.", "Rote Teufel", 2, "de"),
    ("Aufstellung: 10-10-15-15-20 für die nächsten drei Spielrunden", None, 3, "de"),
    ("Aufstellung für Rote Teufel: T10 A10 V15 M15 S20 für 5 Runden", "Rote Teufel", 5, "de"),
    ("10/10/15/15/20 für 1 Runde", None, 1, "de"),
    ("Lineup: 10-10-15-15-20 for 3 rounds", None, 3, "en"),
    ("Red Devils: 10-10-15-15-20 for the next two rounds", "Red Devils", 2, "en"),
    ("Red Devils: 10-10-15-15-20 FOR 6 ROUNDS", "Red Devils", 6, "en"),  # the handler refuses
])
def test_the_suffix_makes_a_lineup_ahead(
    line: str, team: str | None, rounds: int, language: str
) -> None:
    moves = parse_moves("", line)
    assert moves.requests == (SetLineupAhead(line=line, team=team, lineup=L, rounds=rounds),)
    assert moves.errors == () and moves.ignored == () and moves.language == language


def test_with_a_selected_team_and_a_comment() -> None:
    moves = parse_moves("", "Team: Rote Teufel\n"
                            "Aufstellung: 10-10-15-15-20 für 3 Runden (Urlaub)")
    assert moves.requests == (
        SelectTeam(line="Team: Rote Teufel", team="Rote Teufel"),
        SetLineupAhead(line="Aufstellung: 10-10-15-15-20 für 3 Runden (Urlaub)", team=None,
                       lineup=L, rounds=3),
    )
    assert [n.text for n in moves.notes] == ["(Urlaub)"]


def test_in_the_subject_too() -> None:
    moves = parse_moves("AW: Rote Teufel: 10-10-15-15-20 für 2 Runden", "")
    assert moves.requests == (SetLineupAhead(line="Rote Teufel: 10-10-15-15-20 für 2 Runden",
                                             team="Rote Teufel", lineup=L, rounds=2),)


def test_a_broken_lineup_with_the_suffix_is_the_lineups_error() -> None:
    moves = parse_moves("", "Rote Teufel: 10-10-15-15 für 3 Runden")
    (error,) = moves.errors
    assert moves.requests == ()
    assert error.line == "Rote Teufel: 10-10-15-15 für 3 Runden"
    assert error.reason == "4 numbers instead of five"


@pytest.mark.parametrize("line", [
    "Ich bin für 3 Runden im Urlaub",
    "Urlaub für drei Runden",
    "Rote Teufel: 10-10-15-15-20 für viele Runden",
])
def test_text_that_only_ends_alike_is_no_lineup_ahead(line: str) -> None:
    moves = parse_moves("", line)
    assert not any(isinstance(r, SetLineupAhead) for r in moves.requests)


def test_without_the_suffix_a_lineup_is_for_one_round() -> None:
    (request,) = parse_moves("", "Rote Teufel: 10-10-15-15-20").requests
    assert type(request) is SetLineup


@pytest.mark.parametrize(("line", "expected"), [
    ("a für 3 Runden", ("a", 3, "de")),
    ("a for one round", ("a", 1, "en")),
    ("a für 3 rounds", None),  # one language per suffix
    ("a für elf Runden", None),
    ("für 3 Runden", None),  # a suffix needs something before it
])
def test_split_ahead(line: str, expected: tuple[str, int, str] | None) -> None:
    found = split_ahead(line)
    assert (None if found is None else (found.body, found.rounds, found.language)) == expected
