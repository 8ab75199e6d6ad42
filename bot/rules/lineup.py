"""The lineup (Reihenwertung) T-A-V-M-S: the type, its cost, parsing and formatting.

``Lineup.parse`` reads every form of RULES.md §11; ``str(lineup)`` is its
exact inverse in the canonical form ``T-A-V-M-S``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.rules.errors import InvalidLineupError

ROWS = ("T", "A", "V", "M", "S")
BACK_ROWS = ("T", "A")
FIELD_ROWS = ("V", "M", "S")
BACK_CAP = 10
#: WP cost of one strength point per row.
ROW_PRICE = {"T": 2, "A": 2, "V": 1, "M": 1, "S": 1}

# Labels (lower case) for the labelled forms, German and English.
LABELS: dict[str, str] = {
    "t": "T", "tw": "T", "tor": "T", "torwart": "T", "torhüter": "T", "torhueter": "T",
    "g": "T", "gk": "T", "goalkeeper": "T", "keeper": "T", "goalie": "T",
    "a": "A", "ausputzer": "A", "libero": "A", "sw": "A", "sweeper": "A",
    "v": "V", "verteidigung": "V", "abwehr": "V", "d": "V", "def": "V",
    "defence": "V", "defense": "V",
    "m": "M", "mittelfeld": "M", "mf": "M", "midfield": "M",
    "s": "S", "sturm": "S", "angriff": "S", "f": "S", "fw": "S", "attack": "S",
    "forward": "S", "forwards": "S", "striker": "S",
}

#: Separators of the unlabelled forms: dash, slash, comma, semicolon or colon
#: (spaces around allowed), or whitespace alone. One lineup uses one kind.
_SEPARATOR = r"(?:\s*[-/,;:]\s*|\s+)"
_PLAIN = re.compile(rf"(\d+){_SEPARATOR}(\d+){_SEPARATOR}(\d+){_SEPARATOR}(\d+){_SEPARATOR}(\d+)")
_SEPARATORS = re.compile(r"(?<=\d)(\s*[-/,;:]\s*|\s+)(?=\d)")
#: A minus sign glued to a number, at the start or after a space or separator.
_NEGATIVE = re.compile(r"(?:^|(?<=[\s/,;:=-]))-\d+(?:[.,]\d+)?")
_DECIMAL_POINT = re.compile(r"\d+\.\d+")
_DECIMAL_COMMA = re.compile(r"\d+,\d+")
_DIGITS = re.compile(r"\d+")
_LETTER = re.compile(r"[^\W\d_]")
_LABELLED_ITEM = re.compile(r"([^\W\d_]+)\s*[=:]?\s*(-?\d+(?:[.,]\d+)?)")
#: What may stand between the labelled items.
_LABELLED_FILLER = re.compile(r"[\s,;/]*")


@dataclass(frozen=True, slots=True, order=True)
class Lineup:
    """Five rows: goalkeeper T and sweeper A (strength 0..10, 2 WP each),
    defence V, midfield M and attack S (1 WP each)."""

    t: int
    a: int
    v: int
    m: int
    s: int

    def __post_init__(self) -> None:
        for row, value in zip(ROWS, self.values, strict=True):
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidLineupError(str(self.values), f"{row} is not a whole number")
            if value < 0:
                raise InvalidLineupError(str(self.values), f"{row} is negative ({value})")

    @property
    def values(self) -> tuple[int, int, int, int, int]:
        return (self.t, self.a, self.v, self.m, self.s)

    @property
    def cost(self) -> int:
        """WP needed: 2T + 2A + V + M + S."""
        return 2 * self.t + 2 * self.a + self.v + self.m + self.s

    def row(self, name: str) -> int:
        return self.values[ROWS.index(name)]

    def replace(self, **rows: int) -> Lineup:
        vals = dict(zip("tavms", self.values, strict=True))
        vals.update({k.lower(): v for k, v in rows.items()})
        return Lineup(**vals)

    def __str__(self) -> str:
        return "-".join(str(v) for v in self.values)

    def __repr__(self) -> str:
        return f"Lineup.parse({str(self)!r})"

    @classmethod
    def from_values(cls, values: tuple[int, ...] | list[int]) -> Lineup:
        if len(values) != 5:
            raise InvalidLineupError(str(values), f"{len(values)} values instead of five")
        return cls(*values)

    @classmethod
    def parse(cls, text: str) -> Lineup:
        """Read a lineup in any form of RULES.md §11.

        Unlabelled: five whole numbers separated by one kind of separator
        (``-``, ``/``, ``,``, ``;``, ``:`` with optional spaces, or spaces
        alone). Labelled: a label (German or English, see ``LABELS``) before
        each number, optionally with ``=`` or ``:``, in any order.

        Raises ``InvalidLineupError`` (quoting ``text``) for anything that is
        not five whole non-negative numbers; nothing is guessed.
        """
        if not isinstance(text, str):
            raise InvalidLineupError(repr(text), "not text")
        stripped = text.strip().rstrip(".").strip()
        if not stripped:
            raise InvalidLineupError(text, "empty")
        if _LETTER.search(stripped):
            return _parse_labelled(text, stripped)
        return _parse_unlabelled(text, stripped)


def _separator_kind(separator: str) -> str:
    return separator.strip() or " "


def _parse_unlabelled(text: str, stripped: str) -> Lineup:
    negative = _NEGATIVE.search(stripped)
    if negative:
        raise InvalidLineupError(text, f"{negative.group(0)} is negative")
    match = _PLAIN.fullmatch(stripped)
    kinds = {_separator_kind(sep) for sep in _SEPARATORS.findall(stripped)}
    if match and len(kinds) == 1:
        return Lineup(*(int(g) for g in match.groups()))
    fraction = _DECIMAL_POINT.search(stripped)
    if fraction is None and kinds - {","}:
        # A comma between digits is a decimal comma when commas are not the separator.
        fraction = _DECIMAL_COMMA.search(stripped)
    if fraction:
        raise InvalidLineupError(text, f"{fraction.group(0)} is not a whole number")
    count = len(_DIGITS.findall(stripped))
    if count != 5:
        raise InvalidLineupError(text, f"{count} numbers instead of five")
    if match:
        shown = " and ".join(repr(k) for k in sorted(kinds))
        raise InvalidLineupError(text, f"mixed separators ({shown}); use one kind throughout")
    junk = re.sub(r"[\d\s]+", " ", stripped).strip()
    raise InvalidLineupError(text, f"cannot read {junk!r} between the numbers")


def _whole(text: str, token: str) -> int:
    if _DECIMAL_POINT.fullmatch(token.lstrip("-")) or _DECIMAL_COMMA.fullmatch(token.lstrip("-")):
        raise InvalidLineupError(text, f"{token} is not a whole number")
    value = int(token)
    if value < 0:
        raise InvalidLineupError(text, f"{token} is negative")
    return value


def _parse_labelled(text: str, stripped: str) -> Lineup:
    found: dict[str, int] = {}
    position = 0
    for match in _LABELLED_ITEM.finditer(stripped):
        _check_filler(text, stripped[position:match.start()])
        position = match.end()
        label = match.group(1)
        row = LABELS.get(label.lower())
        if row is None:
            raise InvalidLineupError(
                text, f"unknown row label {label!r} (known: T/A/V/M/S, G/SW/D/M/F and the words)"
            )
        if row in found:
            raise InvalidLineupError(text, f"row {row} given twice")
        found[row] = _whole(text, match.group(2))
    _check_filler(text, stripped[position:])
    missing = [r for r in ROWS if r not in found]
    if missing:
        raise InvalidLineupError(text, f"row(s) {', '.join(missing)} missing")
    return Lineup(*(found[r] for r in ROWS))


def _check_filler(text: str, between: str) -> None:
    if not _LABELLED_FILLER.fullmatch(between):
        raise InvalidLineupError(text, f"cannot read {between.strip()!r}")
