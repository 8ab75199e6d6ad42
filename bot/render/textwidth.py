"""Fixed-width plain text: display width, padding, tables and word wrap.

A mail client shows plain text in a monospaced font, where an umlaut takes
one column however it is encoded (``ü`` or ``u`` + combining diaeresis) and
East Asian wide characters take two. Padding by ``len`` breaks tables with
such names, so everything here measures display columns.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

#: Plain text lines are wrapped at this many columns where sensible.
TEXT_WIDTH = 76
#: The characters of the categories Cc, Zl and Zp (control characters, the
#: line and the paragraph separator): fixed sets, so one character class.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def clean(text: object) -> str:
    """User text made safe for a plain text table: NFC, every control
    character (CR, LF, TAB, escape sequences ...) replaced by a space."""
    value = str(text)
    if value.isascii() and value.isprintable():  # the common case, already clean
        return value
    return _CONTROL.sub(" ", unicodedata.normalize("NFC", value))


def char_width(ch: str) -> int:
    """Columns a character takes in a monospaced font."""
    if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
        return 0
    if unicodedata.east_asian_width(ch) in ("W", "F"):
        return 2
    return 1


def width(text: str) -> int:
    """Display width of ``text`` in columns."""
    if text.isascii() and text.isprintable():  # one column each, the common case
        return len(text)
    return sum(char_width(ch) for ch in text)


def fits(text: str, columns: int = TEXT_WIDTH) -> bool:
    """Whether every line of ``text`` is at most ``columns`` wide."""
    return all(width(line) <= columns for line in text.split("\n"))


def ljust(text: str, columns: int) -> str:
    """Pad on the right to ``columns`` display columns."""
    return text + " " * max(0, columns - width(text))


def rjust(text: str, columns: int) -> str:
    """Pad on the left to ``columns`` display columns."""
    return " " * max(0, columns - width(text)) + text


def table(
    headers: Sequence[object] | None,
    rows: Sequence[Sequence[object]],
    align: str,
    *,
    indent: int = 2,
    gap: int = 2,
) -> str:
    """A fixed-width table: a header line and a rule of dashes (unless
    ``headers`` is None), then the rows.

    ``align`` has one letter per column, ``l`` or ``r``. Cells are cleaned
    (no control characters) and padded by display width; trailing spaces
    are stripped so mail clients do not wrap on them.
    """
    if set(align) - {"l", "r"}:
        raise ValueError(f"align {align!r} may only contain 'l' and 'r'")
    columns = len(align)
    cells = [[clean(c) for c in row] for row in rows]
    if headers is not None:
        cells.insert(0, [clean(h) for h in headers])
    for number, row in enumerate(cells):
        if len(row) != columns:
            raise ValueError(f"row {number} has {len(row)} cells, expected {columns} ({align!r})")
    if not cells:
        return ""
    widths = [max(width(row[i]) for row in cells) for i in range(columns)]
    pad = " " * indent
    sep = " " * gap

    def line(row: list[str]) -> str:
        parts = [
            ljust(cell, w) if a == "l" else rjust(cell, w)
            for cell, w, a in zip(row, widths, align, strict=True)
        ]
        return (pad + sep.join(parts)).rstrip()

    lines = [line(row) for row in cells]
    if headers is not None:
        lines.insert(1, pad + "-" * (sum(widths) + gap * (columns - 1)))
    return "\n".join(lines)


#: A paragraph that starts with this is not wrapped (``wrap``).
VERBATIM = "    "


def wrap(text: str, columns: int = TEXT_WIDTH, *, indent: str = "", hanging: str = "") -> str:
    """Greedy word wrap by display width. Paragraphs (blank-line separated)
    are kept; a word longer than a line stands on its own line. ``indent``
    starts each paragraph's first line, ``hanging`` the following lines. A
    paragraph indented by four spaces (a line to copy, such as a password)
    stays as it is."""
    paragraphs = text.split("\n\n")
    out = []
    for paragraph in paragraphs:
        if paragraph.startswith(VERBATIM):
            out.append("\n".join(clean(line).rstrip() for line in paragraph.split("\n")))
            continue
        words = clean(paragraph).split()
        lines: list[str] = []
        current = indent
        used = width(indent)  # the width of ``current``, kept as words are added
        fresh = True
        for word in words:
            columns_of_word = width(word)
            if fresh:
                current, used = current + word, used + columns_of_word
            elif used + 1 + columns_of_word > columns:
                lines.append(current)
                current, used = hanging + word, width(hanging) + columns_of_word
            else:
                current, used = current + " " + word, used + 1 + columns_of_word
            fresh = False
        if not fresh:
            lines.append(current)
        out.append("\n".join(lines))
    return "\n\n".join(out)


#: The line that opens a mail's signature.
SIGNATURE_DELIMITER = "-- "


def tidy_text(text: str) -> str:
    """Plain text as mailed: no trailing spaces, at most one blank line in a
    row, exactly one newline at the end. The signature delimiter ``-- ``
    keeps its space (RFC 3676 §4.3), so mail clients grey out the signature
    and leave it out of a quoted reply."""
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
    lines = [SIGNATURE_DELIMITER if line == "--" else line for line in lines]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip("\n") + "\n"
