"""Mistyped keywords (RULES.md §11): ``Aufstelung`` read as ``Aufstellung``.

A word at the start of a line that is no keyword but within one edit
(insertion, deletion, substitution, swap of two neighbours: the optimal
string alignment distance, ``rapidfuzz.distance.OSA``) of exactly one
keyword - two edits for keywords of eight letters or more - is read as that
keyword. Never when the word (or the text before the first colon) is the
name of one of the sender's teams. Words shorter than three letters are
never corrected. Two-word keywords (``Neues Team``) are compared with the
first two words. Work per line is bounded: only the first two words are
looked at, against a fixed list of spellings.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

from rapidfuzz.distance import OSA

__all__ = ["Correction", "correct_keyword", "edits_allowed", "team_key"]

#: The first word (letters, one inner hyphen allowed) and, after one space, the second.
_FIRST_WORDS = re.compile(r"([^\W\d_]++(?:-[^\W\d_]++)?+)(?: ([^\W\d_]++))?+")
_SHORTEST = 3
#: The most edits any keyword allows (``edits_allowed``).
_MOST_EDITS = 2


@dataclass(frozen=True, slots=True)
class Correction:
    """``written`` (as in the line) is read as the keyword ``spelling``;
    ``line`` is the line with the keyword in place of the word."""

    written: str
    spelling: str
    line: str


def edits_allowed(spelling: str) -> int:
    """One edit, two for keywords of eight letters or more."""
    return 2 if len(spelling.replace(" ", "")) >= 8 else 1


def team_key(name: str) -> str:
    """Case-folded, spaces folded: how a word is compared with team names."""
    return " ".join(name.casefold().split())


@lru_cache(maxsize=16)
def _table(spellings: tuple[str, ...]) -> dict[tuple[bool, int], list[tuple[str, int]]]:
    """The spellings made of letters by (two words?, length): (spelling, edits
    allowed); a word is compared with those of about its length only."""
    table: dict[tuple[bool, int], list[tuple[str, int]]] = {}
    for spelling in spellings:
        if _FIRST_WORDS.fullmatch(spelling):
            key = (" " in spelling, len(spelling))
            table.setdefault(key, []).append((spelling, edits_allowed(spelling)))
    return table


def correct_keyword(
    line: str, spellings: Mapping[str, str], team_keys: Iterable[str] = ()
) -> Correction | None:
    """The correction of the first word(s) of ``line`` (a normalised line:
    single spaces) to a keyword, or None. ``spellings`` maps each keyword
    spelling (lower case) to its command; the correction must be unambiguous
    (all close spellings belong to one command)."""
    match = _FIRST_WORDS.match(line)
    if match is None:
        return None
    teams = set(team_keys)
    one = match.group(1)
    two = f"{one} {match.group(2)}" if match.group(2) else None
    before_colon = team_key(line.split(":", 1)[0]) if ":" in line[:200] else None
    if team_key(one) in teams or (two and team_key(two) in teams) or before_colon in teams:
        return None
    found: list[tuple[int, str, str]] = []  # (distance, spelling, written)
    table = _table(tuple(spellings))
    for pair, written in ((False, one), (True, two)):
        if written is None or len(written) < _SHORTEST:
            continue
        folded = written.casefold()
        size = len(folded)
        for length in range(size - _MOST_EDITS, size + _MOST_EDITS + 1):
            for spelling, allowed in table.get((pair, length), ()):
                if abs(size - length) > allowed:
                    continue  # more insertions or deletions than allowed
                distance = OSA.distance(folded, spelling, score_cutoff=allowed)
                if 0 < distance <= allowed:
                    found.append((distance, spelling, written))
    if not found or len({spellings[s] for _, s, _ in found}) != 1:
        return None
    _, spelling, written = min(found, key=lambda f: (f[0], -len(f[1])))
    return Correction(written=written, spelling=spelling, line=spelling + line[len(written):])
