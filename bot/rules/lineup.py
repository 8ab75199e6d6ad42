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

_NUMBER = r"[+-]?\d+(?:[.,]\d+)?"
_SEPARATED = re.compile(
    rf"^\s*({_NUMBER})(?:\s*[-/,;:]\s*|\s+)({_NUMBER})(?:\s*[-/,;:]\s*|\s+)({_NUMBER})"
    rf"(?:\s*[-/,;:]\s*|\s+)({_NUMBER})(?:\s*[-/,;:]\s*|\s+)({_NUMBER})\s*$"
)
_LABELLED_ITEM = re.compile(rf"([^\W\d_]+)\s*[=:]?\s*({_NUMBER})", re.UNICODE)
_ANY_NUMBER = re.compile(r"[+-]?\d+(?:[.,]\d+)?")


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

        Raises ``InvalidLineupError`` (quoting ``text``) for anything that is
        not five whole non-negative numbers.
        """
        if not isinstance(text, str):
            raise InvalidLineupError(repr(text), "not text")
        stripped = text.strip().rstrip(".")
        if not stripped:
            raise InvalidLineupError(text, "empty")
        match = _SEPARATED.match(stripped)
        if match:
            return cls.from_values([_whole(text, g) for g in match.groups()])
        if re.search(r"[^\W\d_]", stripped):
            return _parse_labelled(text, stripped)
        numbers = _ANY_NUMBER.findall(stripped)
        if len(numbers) != 5:
            raise InvalidLineupError(text, f"{len(numbers)} numbers instead of five")
        return cls.from_values([_whole(text, n) for n in numbers])


def _whole(text: str, token: str) -> int:
    token = token.strip()
    if re.fullmatch(r"[+-]?\d+[.,]\d+", token):
        raise InvalidLineupError(text, f"{token} is not a whole number")
    value = int(token)
    if value < 0:
        raise InvalidLineupError(text, f"{token} is negative")
    return value


def _parse_labelled(text: str, stripped: str) -> Lineup:
    found: dict[str, int] = {}
    rest = stripped
    for match in _LABELLED_ITEM.finditer(stripped):
        label = match.group(1).lower()
        row = LABELS.get(label)
        if row is None:
            raise InvalidLineupError(text, f"unknown row label {match.group(1)!r}")
        if row in found:
            raise InvalidLineupError(text, f"row {row} given twice")
        found[row] = _whole(text, match.group(2))
        rest = rest.replace(match.group(0), " ", 1)
    leftover = re.sub(r"[\s,;/-]+", "", rest)
    if leftover:
        raise InvalidLineupError(text, f"cannot read {leftover!r}")
    missing = [r for r in ROWS if r not in found]
    if missing:
        raise InvalidLineupError(text, f"row(s) {', '.join(missing)} missing")
    return Lineup(*(found[r] for r in ROWS))
