"""Reading the table of a league taken over (RULES.md §14): bytes -> rows of
text with their line numbers, or the problems that keep it from being read.

A table comes from another program or a spreadsheet, so its form varies;
every form is either read exactly or refused with a line that says why,
never guessed at:

* **Encoding**, decided explicitly: a byte-order mark names it (UTF-8 or
  UTF-16); else the bytes must be valid UTF-8, or else they are read as
  Windows-1252 (the German spreadsheet export; it agrees with Latin-1 on
  every printable character). A byte that Windows-1252 does not define, a
  NUL byte (UTF-16 without its mark, or no text at all) and text that was
  already garbled once (``KÃ¶ln``: UTF-8 read as Latin-1 by the exporting
  program) are refused with their line. ``encoding`` forces one.
* **Dialect**: the standard library's ``csv`` module with a sniffed
  dialect; the separator (``,`` ``;`` or a tab) is the one that makes the
  first line the header of known columns. Quotes, Windows line ends and
  fields spanning lines are the ``csv`` module's job; a row is numbered by
  the line it starts on.
* **Columns**: the header names each column of ``COLUMNS`` once, in any
  order, nothing else. Rows with another number of values are refused (a
  decimal comma in a comma-separated file without quotes is the usual
  cause, and the problem says so); empty lines, rows of empty values and
  empty columns after the last one (a spreadsheet's trailing separators,
  on the header too) are skipped.

Nothing here checks a value; ``bot.league.import_check`` does.
"""

from __future__ import annotations

import codecs
import csv
import io
import re
from dataclasses import dataclass, field

#: The columns of the table, in the order RULES.md §14 names them.
COLUMNS: tuple[str, ...] = (
    "team", "short", "manager", "address", "language", "wp", "psz", "last_round",
)
#: Separators a table may use.
SEPARATORS = ",;\t"
ENCODINGS = ("auto", "utf-8", "utf-16", "cp1252", "latin-1")
_NAMES = {"cp1252": "Windows-1252", "latin-1": "Latin-1", "utf-8": "UTF-8",
          "utf-8-sig": "UTF-8", "utf-16": "UTF-16"}
#: ``Ã`` or ``Â`` followed by what the second byte of a UTF-8 letter becomes
#: when read as Windows-1252: text garbled once already.
_GARBLED = re.compile(
    "[\u00c2\u00c3][\u00a0-\u00bf\u0152\u0153\u0160\u0161\u0178\u017d\u017e\u0192"
    "\u02c6\u02dc\u2013\u2014\u2018-\u201e\u2020-\u2022\u2026\u2030\u2039\u203a\u20ac\u2122]"
)
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


@dataclass(frozen=True, slots=True)
class Problem:
    """Why (part of) the table cannot be imported: ``code`` names the kind,
    ``line`` the line of the file (0: the file as a whole), ``params`` the
    values the sentence quotes."""

    line: int
    code: str
    params: dict[str, object] = field(default_factory=dict)

    def __str__(self) -> str:
        detail = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        where = f"line {self.line}: " if self.line else ""
        return f"{where}{self.code}" + (f" ({detail})" if detail else "")


@dataclass(frozen=True, slots=True)
class Row:
    """One team's row: its line and its values by column (stripped text)."""

    line: int
    values: dict[str, str]


@dataclass(frozen=True, slots=True)
class Table:
    rows: tuple[Row, ...]
    problems: tuple[Problem, ...]
    #: How the bytes were read (``UTF-8``, ``Windows-1252``, ...) and the separator.
    encoding: str
    separator: str


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def decode(data: bytes, encoding: str = "auto") -> tuple[str | None, str, list[Problem]]:
    """The text of ``data``, the encoding's name, and the problems (text None
    when it cannot be read at all)."""
    if encoding not in ENCODINGS:
        raise ValueError(f"encoding {encoding!r}: expected one of {', '.join(ENCODINGS)}")
    if encoding == "auto":
        if data.startswith(codecs.BOM_UTF8):
            encoding = "utf-8-sig"
        elif data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
            encoding = "utf-16"
        elif b"\0" in data:
            return None, "?", [Problem(_line_of(data, data.index(b"\0")), "nul_byte")]
        else:
            try:
                data.decode("utf-8")
                encoding = "utf-8"
            except UnicodeDecodeError:
                encoding = "cp1252"
    elif encoding == "utf-8" and data.startswith(codecs.BOM_UTF8):
        encoding = "utf-8-sig"
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        byte = data[exc.start:exc.start + 1].hex().upper()
        return None, _NAMES[encoding], [Problem(_line_of(data, exc.start), "undecodable",
                                                {"byte": f"0x{byte}",
                                                 "encoding": _NAMES[encoding]})]
    return text.lstrip("\ufeff"), _NAMES[encoding], []


def _column_name(text: str) -> str:
    """A header field as a column name: ``Last Round`` -> ``last_round``."""
    return text.strip().lstrip("\ufeff").lower().replace(" ", "_").replace("-", "_")


def _header_fields(line: str, separator: str) -> list[str]:
    fields = next(csv.reader([line], delimiter=separator, skipinitialspace=True), [])
    return [_column_name(f) for f in fields]


def choose_separator(text: str) -> str | None:
    """The separator that makes the first line a header of known columns
    (the sniffed one first, then ``,`` ``;`` tab); None if none does."""
    first = text.splitlines()[0] if text.strip() else ""
    try:
        sniffed = csv.Sniffer().sniff(text[:8192], delimiters=SEPARATORS).delimiter
    except csv.Error:
        sniffed = ","
    best, score = None, 0
    for separator in dict.fromkeys([sniffed, *SEPARATORS]):
        known = sum(1 for f in _header_fields(first, separator) if f in COLUMNS)
        if known > score:
            best, score = separator, known
    return best


def _header(fields: list[str]) -> list[Problem]:
    problems = []
    missing = [c for c in COLUMNS if c not in fields]
    unknown = [f for f in fields if f not in COLUMNS]
    twice = sorted({f for f in fields if f in COLUMNS and fields.count(f) > 1})
    if missing:
        problems.append(Problem(1, "missing_columns", {"columns": ", ".join(missing)}))
    if unknown:
        problems.append(Problem(1, "unknown_columns", {"columns": ", ".join(unknown)}))
    if twice:
        problems.append(Problem(1, "columns_twice", {"columns": ", ".join(twice)}))
    return problems


def _garbled(row: Row) -> list[Problem]:
    out = []
    for column, value in row.values.items():
        found = _GARBLED.search(value)
        if found:
            out.append(Problem(row.line, "garbled", {"column": column, "value": value,
                                                      "sample": found.group(0)}))
        elif _CONTROL.search(value):
            out.append(Problem(row.line, "control_character", {"column": column,
                                                               "value": value}))
    return out


def read_table(data: bytes, encoding: str = "auto") -> Table:
    """The rows of the table in ``data`` and every problem found reading it."""
    text, name, problems = decode(data, encoding)
    if text is None:
        return Table((), tuple(problems), name, "")
    if not text.strip():
        return Table((), (Problem(0, "no_rows"),), name, "")
    separator = choose_separator(text)
    if separator is None:
        return Table((), (Problem(1, "no_header", {"columns": ",".join(COLUMNS)}),), name, "")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=separator,
                        skipinitialspace=True, strict=True)
    rows: list[Row] = []
    header: list[str] | None = None
    width = 0
    line = 1
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            problems.append(Problem(line, "bad_quotes", {"detail": str(exc)}))
            break
        start, line = line, reader.line_num + 1
        if header is None:
            header = [_column_name(f) for f in fields]
            width = len(header)  # with a spreadsheet's empty columns at the end
            while header and not header[-1]:
                header.pop()
            problems += _header(header)
            if problems:
                break
            continue
        values = [f.strip() for f in fields]
        if not any(values):
            continue
        if len(values) <= width and not any(values[len(header):]):
            values = values[:len(header)]  # the empty columns at the end
        if len(values) != len(header):
            code = "too_many_values" if len(values) > len(header) else "too_few_values"
            problems.append(Problem(start, code, {
                "found": len(values), "expected": len(header),
                "decimal_comma": separator == "," and len(values) > len(header)}))
            continue
        row = Row(start, dict(zip(header, values, strict=True)))
        problems += _garbled(row)
        rows.append(row)
    if header is not None and not problems and not rows:
        problems.append(Problem(0, "no_rows"))
    return Table(tuple(rows), tuple(problems), name, separator)


__all__ = ["COLUMNS", "ENCODINGS", "Problem", "Row", "Table", "decode", "read_table"]
