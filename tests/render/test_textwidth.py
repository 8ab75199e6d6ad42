"""Fixed-width plain text: display width, tables, wrapping (bot.render.textwidth)."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.render.textwidth import clean, table, width, wrap


def test_width_counts_columns_not_code_points() -> None:
    assert width("Grüne Jäger") == 11
    decomposed = unicodedata.normalize("NFD", "Grüne Jäger")
    assert len(decomposed) == 13 and width(decomposed) == 11
    assert width("東京") == 4


def test_clean_removes_line_breaks_and_controls() -> None:
    assert clean("Rote\r\nTeufel\x1b[31m") == "Rote  Teufel [31m"
    assert clean(unicodedata.normalize("NFD", "Ö")) == "Ö"


def test_table_aligns_umlauts_and_decomposed_names() -> None:
    names = ["Grüne Jäger", unicodedata.normalize("NFD", "Dynamo Ölberg"), "TSV Straße", "東京 FC"]
    text = table(["Team", "Pkt"], [[n, i * 10] for i, n in enumerate(names)], "lr")
    lines = text.split("\n")
    assert lines[0] == "  Team           Pkt"
    assert set(lines[1].strip()) == {"-"}
    # every row ends in the same display column
    assert {width(line) for line in lines} == {width(lines[0])}


def test_table_checks_its_shape() -> None:
    with pytest.raises(ValueError, match="row 1 has 1 cells"):
        table(["a", "b"], [["x"]], "ll")
    with pytest.raises(ValueError, match="may only contain"):
        table(["a"], [["x"]], "c")


names = st.text(
    alphabet=st.characters(
        whitelist_categories=("Lu", "Ll", "Nd", "Zs", "Mn"), whitelist_characters="-.'"
    ),
    min_size=1,
    max_size=30,
).filter(lambda s: s.strip())


@given(st.lists(st.tuples(names, st.integers(0, 999)), min_size=1, max_size=12))
def test_table_columns_line_up(rows: list[tuple[str, int]]) -> None:
    text = table(["Team", "Pkt"], rows, "lr", indent=0)
    lines = text.split("\n")
    end = width(lines[0])
    for line, (_, points) in zip(lines[2:], rows, strict=True):
        assert line.endswith(str(points))
        assert width(line) == end


words = st.text(alphabet="abcdefghijklmnopqrstuvwxyzäöüß", min_size=1, max_size=12)


@given(st.lists(words, min_size=1, max_size=60), st.integers(20, 80))
def test_wrap_keeps_words_and_width(ws: list[str], columns: int) -> None:
    text = wrap(" ".join(ws), columns)
    assert text.split() == ws
    for line in text.split("\n"):
        assert width(line) <= columns


def test_wrap_keeps_paragraphs_and_indents() -> None:
    text = wrap("eins zwei drei\n\nvier", 9, indent="- ", hanging="  ")
    assert text == "- eins\n  zwei\n  drei\n\n- vier"
