"""Lineup.parse reads every form of RULES.md §11 and rejects everything else."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules import InvalidLineupError, Lineup
from bot.rules.lineup import LABELS

STD = Lineup(10, 10, 15, 15, 20)

SAME_LINEUP = [
    "10-10-15-15-20",
    "10/10/15/15/20",
    "10 10 15 15 20",
    "10,10,15,15,20",
    "10;10;15;15;20",
    "10 - 10 - 15 - 15 - 20",
    "10, 10, 15, 15, 20",
    "  10\t10  15 15   20 ",
    "10-10-15-15-20.",
    "T10 A10 V15 M15 S20",
    "T=10, A=10, V=15, M=15, S=20",
    "T: 10 A: 10 V: 15 M: 15 S: 20",
    "Torwart 10 Ausputzer 10 Verteidigung 15 Mittelfeld 15 Sturm 20",
    "torwart 10, ausputzer 10, verteidigung 15, mittelfeld 15, sturm 20",
    "G10 SW10 D15 M15 F20",
    "goalkeeper 10 sweeper 10 defence 15 midfield 15 attack 20",
    "Goalkeeper=10; Sweeper=10; Defence=15; Midfield=15; Forward=20",
    "T10A10V15M15S20",
    "t10 a10 v15 m15 s20",
]


@pytest.mark.parametrize("text", SAME_LINEUP)
def test_every_form_of_section_11(text: str) -> None:
    assert Lineup.parse(text) == STD


def test_labelled_in_any_order() -> None:
    items = ["T10", "A10", "V15", "M15", "S20"]
    for order in itertools.permutations(items):
        assert Lineup.parse(" ".join(order)) == STD
        assert Lineup.parse(", ".join(i[0] + "=" + i[1:] for i in order)) == STD


@pytest.mark.parametrize(
    ("de", "en"),
    [("Torwart", "goalkeeper"), ("Ausputzer", "sweeper"), ("Verteidigung", "defence"),
     ("Mittelfeld", "midfield"), ("Sturm", "forward")],
)
def test_german_and_english_labels_name_the_same_row(de: str, en: str) -> None:
    assert LABELS[de.lower()] == LABELS[en.lower()]


def test_english_short_labels() -> None:
    assert [LABELS[k] for k in ("g", "sw", "d", "m", "f", "attack")] == [
        "T", "A", "V", "M", "S", "S"
    ]


def test_canonical_form_and_cost() -> None:
    assert str(STD) == "10-10-15-15-20"
    assert STD.cost == 90
    assert STD.values == (10, 10, 15, 15, 20)
    assert [STD.row(r) for r in "TAVMS"] == [10, 10, 15, 15, 20]
    assert STD.replace(S=25) == Lineup(10, 10, 15, 15, 25)
    assert eval(repr(STD), {"Lineup": Lineup}) == STD


values = st.tuples(*(st.integers(0, 10**6) for _ in range(5)))


@given(values)
def test_str_round_trip(vals: tuple[int, int, int, int, int]) -> None:
    lineup = Lineup(*vals)
    assert Lineup.parse(str(lineup)) == lineup
    assert str(Lineup.parse(str(lineup))) == str(lineup)


@given(values, st.sampled_from(["-", "/", ",", ";", " ", " - ", ", "]))
def test_every_separator_round_trips(vals: tuple[int, ...], sep: str) -> None:
    assert Lineup.parse(sep.join(map(str, vals))).values == vals


@given(values, st.permutations(range(5)), st.sampled_from(["", " ", "=", ": "]))
def test_labelled_round_trip(vals: tuple[int, ...], order: list[int], glue: str) -> None:
    text = " ".join(f"{'TAVMS'[i]}{glue}{vals[i]}" for i in order)
    assert Lineup.parse(text).values == vals


INVALID = [
    ("8.5-10-15-15-20", "8.5 is not a whole number"),
    ("10-8.5-15-15-20", "8.5 is not a whole number"),
    ("10 8,5 15 15 20", "8,5 is not a whole number"),
    ("T10 A8.5 V15 M15 S20", "8.5 is not a whole number"),
    ("-5-10-15-15-20", "-5 is negative"),
    ("10/-5/15/15/20", "-5 is negative"),
    ("10 -5 15 15 20", "-5 is negative"),
    ("T10 A-5 V15 M15 S20", "-5 is negative"),
    ("10-10-15-15", "4 numbers instead of five"),
    ("10-10-15-15-20-5", "6 numbers instead of five"),
    ("8,5,10,15,15,20", "6 numbers instead of five"),
    ("zehn-zehn-15-15-20", "cannot read"),
    ("abc", "cannot read"),
    ("", "empty"),
    ("   ", "empty"),
    ("T10 A10 V15 M15 T20", "row T given twice"),
    ("T10 G10 V15 M15 S20", "row T given twice"),
    ("T10 A10 V15 M15", "row(s) S missing"),
    ("X10 A10 V15 M15 S20", "unknown row label 'X'"),
    ("10-10 15 15 20", "mixed separators"),
    ("10+10-15-15-20", "cannot read"),
    ("Aufstellung T10 A10 V15 M15 S20", "cannot read 'Aufstellung'"),
]


@pytest.mark.parametrize(("text", "reason"), INVALID)
def test_invalid_lineups_are_rejected_quoting_the_input(text: str, reason: str) -> None:
    with pytest.raises(InvalidLineupError) as info:
        Lineup.parse(text)
    error = info.value
    assert reason in error.reason
    assert error.text == text
    assert repr(text) in str(error)
    assert "10-10-15-15-20" in str(error)  # says what would be right
    assert isinstance(error, ValueError)


@given(values, st.integers(0, 4), st.integers(1, 9))
def test_any_fraction_is_rejected(vals: tuple[int, ...], row: int, tenth: int) -> None:
    parts = [str(v) for v in vals]
    parts[row] += f".{tenth}"
    with pytest.raises(InvalidLineupError, match="not a whole number"):
        Lineup.parse("-".join(parts))


@given(st.lists(st.integers(0, 99), min_size=0, max_size=9).filter(lambda v: len(v) != 5))
def test_not_five_values_are_rejected(vals: list[int]) -> None:
    with pytest.raises(InvalidLineupError):
        Lineup.parse("-".join(map(str, vals)))


@pytest.mark.parametrize("values", [(1, 2, 3, 4), (1, 2, 3, 4, 5, 6), (1, 2, 3, 4, -5), (1.5,)])
def test_direct_construction_is_checked(values: tuple) -> None:
    with pytest.raises(InvalidLineupError):
        Lineup.from_values(values)


def test_non_text_is_rejected() -> None:
    with pytest.raises(InvalidLineupError, match="not text"):
        Lineup.parse(1010151520)  # type: ignore[arg-type]
