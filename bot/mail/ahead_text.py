"""Reading a lineup sent for several rounds (RULES.md §12): the suffix
``für 3 Runden`` / ``for 3 rounds`` at the end of a lineup line.

``split_ahead`` finds the suffix (a number in digits or as a word from one to
ten, ``Runde``/``Runden``/``Spielrunden``, ``round``/``rounds``, optionally
``die nächsten`` / ``the next``); ``mark_ahead`` turns the lineups read from
the rest of the line into ``SetLineupAhead`` requests. Whether the number is
allowed is the handler's to say (``MAX_ROUNDS_AHEAD``): the grammar reads
``für 6 Runden`` as written so the reply can name the limit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from bot.rules.requests import LineError, Request, SetLineup, SetLineupAhead

_NUMBERS = {
    "ein": 1, "eine": 1, "einer": 1, "eins": 1, "zwei": 2, "drei": 3, "vier": 4, "fünf": 5,
    "fuenf": 5, "sechs": 6, "sieben": 7, "acht": 8, "neun": 9, "zehn": 10,
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10,
}
_SUFFIX = re.compile(
    r"\s(?:(?P<de>für|fuer)(?:\s+die\s+nächsten|\s+die\s+naechsten)?"
    r"|(?P<en>for)(?:\s+the\s+next)?)\s+(?P<n>\d{1,3}|[^\W\d_]{3,6})\s+"
    r"(?P<unit>(?:spiel)?runden?|rounds?)\s*\.?$",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Ahead:
    """A line without its suffix, the number of rounds, the suffix's language."""

    body: str
    rounds: int
    language: str


def split_ahead(line: str) -> Ahead | None:
    """``"Rote Teufel: 10-10-15-15-20 für 3 Runden"`` -> the line before the
    suffix and 3; None without such a suffix (or with a word that is no number)."""
    match = _SUFFIX.search(line)
    if match is None:
        return None
    word = match.group("n").lower()
    rounds = int(word) if word.isdigit() else _NUMBERS.get(word)
    unit = match.group("unit").lower()
    german = match.group("de") is not None
    if rounds is None or german != unit.startswith(("runde", "spielrunde")):
        return None
    return Ahead(line[: match.start()].rstrip(), rounds, "de" if german else "en")


def mark_ahead(
    requests: list[Request], errors: list[LineError], first: tuple[int, int], ahead: Ahead,
    line: str,
) -> bool:
    """The requests and errors read from ``ahead.body`` (from the indexes
    ``first``) made the ones of the whole ``line``: each lineup becomes a
    lineup ahead. False (nothing changed) when the body held no lineup and
    no error: then the suffix was no lineup's."""
    made, failed = requests[first[0]:], errors[first[1]:]
    if not failed and not any(isinstance(r, SetLineup) for r in made):
        return False
    for index, request in enumerate(made, start=first[0]):
        if isinstance(request, SetLineup):
            requests[index] = SetLineupAhead(line=line, team=request.team,
                                             lineup=request.lineup, rounds=ahead.rounds)
    for index, error in enumerate(failed, start=first[1]):
        errors[index] = replace(error, line=line)
    return True


__all__ = ["Ahead", "mark_ahead", "split_ahead"]
