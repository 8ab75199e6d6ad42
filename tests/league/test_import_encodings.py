"""A table in the forms a spreadsheet or another program writes it is read
exactly or refused with a clear line, never misread (RULES.md §14):
byte-order marks, Windows line ends, ``;`` and tab separators, Latin-1 and
Windows-1252 text, quoted decimal commas, fields over two lines, text
garbled once already, UTF-16 without its mark."""

from __future__ import annotations

import codecs
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.league.import_check import check_table, parse_number
from bot.league.import_table import read_table
from bot.league.settings import LeagueSettings

HEADER = ["team", "short", "manager", "address", "language", "wp", "psz", "last_round"]
ROWS = [
    ["Fortuna Köln", "Fortuna", "Jürgen Öztürk", "juergen@example.de", "de", "92,35", "251,5",
     "30"],
    ["Preußen Münster", "", "Åsa Ström", "asa@example.se", "en", "90,00", "", ""],
]
EXPECTED = {
    "Fortuna Köln": (Decimal("92.35"), Decimal("251.5"), 30, "Jürgen Öztürk"),
    "Preußen Münster": (Decimal("90.00"), Decimal("250"), 30, "Åsa Ström"),
}


def table_text(separator: str, newline: str = "\n", quote_all: bool = False) -> str:
    def field(value: str) -> str:
        needs = quote_all or separator in value
        return f'"{value}"' if needs else value
    lines = [separator.join(field(v) for v in row) for row in [HEADER, *ROWS]]
    return newline.join(lines) + newline


def imported(data: bytes, encoding: str = "auto") -> dict[str, tuple]:
    table = read_table(data, encoding)
    checked = check_table(table, season=7, round_in_season=1, settings=LeagueSettings())
    assert not checked.problems, checked.problems
    assert checked.plan is not None
    return {t.name: (t.wp, t.psz, t.last_round,
                     next(m.name for m in checked.plan.managers if t in m.teams))
            for t in checked.plan.teams}


FORMS = {
    "utf-8 ;": (table_text(";").encode("utf-8"), "UTF-8", ";"),
    "utf-8 with BOM, CRLF, ; (Excel 'CSV UTF-8')":
        (codecs.BOM_UTF8 + table_text(";", "\r\n").encode("utf-8"), "UTF-8", ";"),
    "windows-1252, CRLF, ; (Excel 'CSV (Trennzeichen-getrennt)')":
        (table_text(";", "\r\n").encode("cp1252"), "Windows-1252", ";"),
    "latin-1 ;": (table_text(";").encode("latin-1"), "Windows-1252", ";"),
    "utf-8 , with quoted decimal commas": (table_text(",").encode("utf-8"), "UTF-8", ","),
    "utf-8 , everything quoted, CRLF":
        (table_text(",", "\r\n", quote_all=True).encode("utf-8"), "UTF-8", ","),
    "utf-16 with BOM, tabs (Excel 'Unicode text')":
        (table_text("\t", "\r\n").encode("utf-16"), "UTF-16", "\t"),
}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_every_form_is_read_exactly(form: str) -> None:
    data, encoding, separator = FORMS[form]
    table = read_table(data)
    assert (table.encoding, table.separator) == (encoding, separator)
    assert imported(data) == EXPECTED


def test_a_name_over_two_lines_keeps_the_line_it_starts_on() -> None:
    text = ("team;short;manager;address;language;wp;psz;last_round\r\n"
            '"Fortuna\r\nKöln";;J;j@x.de;de;90;;\r\n'
            "Kiel;;K;k@x.de;de;9x;;\r\n")
    table = read_table(text.encode("utf-8"))
    checked = check_table(table, season=7, round_in_season=1, settings=LeagueSettings())
    assert [(p.line, p.code) for p in checked.problems] == [(4, "wp_not_number")]
    assert table.rows[0].values["team"] == "Fortuna\r\nKöln"


@pytest.mark.parametrize("data, line, code", [
    # UTF-8 text garbled once by the exporting program: "KÃ¶ln" for "Köln"
    ("team;short;manager;address;language;wp;psz;last_round\nFortuna KÃ¶ln;;J;j@x.de;de;90;;\n"
     .encode(), 2, "garbled"),
    # UTF-16 without its byte-order mark
    (table_text(";").encode("utf-16-le"), 1, "nul_byte"),
    # a byte Windows-1252 does not define (0x81): no text encoding it knows
    (b"team;short;manager;address;language;wp;psz;last_round\nK\x81ln;;J;j@x.de;de;90;;\n",
     2, "undecodable"),
    # a decimal comma in a comma-separated table without quotes: 9 values
    (b"team,short,manager,address,language,wp,psz,last_round\nKiel,,K,k@x.de,de,92,35,,\n",
     2, "too_many_values"),
    # a quote left open
    (b'team,short,manager,address,language,wp,psz,last_round\n"Kiel,,K,k@x.de,de,92,,\n',
     2, "bad_quotes"),
    # no header: the table starts with a team
    (b"Kiel;;K;k@x.de;de;92;;\n", 1, "no_header"),
    # only the header
    (b"team;short;manager;address;language;wp;psz;last_round\r\n", 0, "no_rows"),
])
def test_unreadable_forms_are_refused_with_a_clear_line(data: bytes, line: int, code: str) -> None:
    table = read_table(data)
    checked = check_table(table, season=7, round_in_season=1, settings=LeagueSettings())
    assert checked.plan is None
    assert (checked.problems[0].line, checked.problems[0].code) == (line, code)


def test_a_forced_encoding_that_does_not_fit_is_refused() -> None:
    table = read_table(table_text(";").encode("cp1252"), "utf-8")
    assert [(p.line, p.code, p.params["byte"]) for p in table.problems] == [
        (2, "undecodable", "0xF6")]
    assert imported(table_text(";").encode("cp1252"), "latin-1") == EXPECTED


def test_trailing_separators_and_blank_rows_of_a_spreadsheet_are_skipped() -> None:
    text = table_text(";").replace("\n", ";;\n") + ";;;;;;;;\n\n"
    assert imported(text.encode("utf-8")) == EXPECTED


@given(st.integers(min_value=0, max_value=99_999), st.sampled_from([".", ","]),
       st.integers(min_value=0, max_value=2))
@settings(max_examples=200, deadline=None)
def test_wp_is_kept_to_the_hundredth(cents: int, mark: str, places: int) -> None:
    whole, part = divmod(cents, 100)
    text = str(whole) if places == 0 else f"{whole}{mark}{part:02d}"[: len(str(whole)) + 1 + places]
    value, problem = parse_number(text, negative=False)
    assert problem is None and value is not None
    assert value == Decimal(text.replace(",", "."))
    assert parse_number(f"{whole}{mark}{part:02d}5", negative=False) == (None, "decimals")
