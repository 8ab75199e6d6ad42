"""Reading a lineup value out of the text of one mail line (RULES.md §11).

Whether a text is a lineup attempt at all, the lineup or the reason it is not
one (``Candidate``), where a team name ends and its lineup begins
(``NAME: L``, ``NAME 10-10-15-15-20``, ``NAME T10 A10 ...``), and the
player's numbers in the right form for an error message. Pure text work, no
state: ``bot.mail.grammar`` turns the results into requests and errors.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from bot.mail.keywords import (
    DOTTED,
    GLUED,
    LABELLED_PAIR,
    LETTER,
    LINEUP_CHARS,
    LINEUP_LEFT,
    LINEUP_RUN,
    LINEUP_WORD,
    MAX_COLONS,
    MAX_LINEUP_CHARS,
    NUMBER,
    NUMBER_RUN,
    QUOTED_CHARS,
    QUOTES,
    SEPARATOR_CHAR,
    SPACED_TAIL,
    TAIL_LINEUP,
    TEAM_LEFT,
    UNLABELLED,
    WORD,
)
from bot.rules.errors import InvalidLineupError
from bot.rules.lineup import LABELS, Lineup

Candidate = Lineup | InvalidLineupError
#: Separators and spaces stripped from the end of a team name before its lineup.
NAME_END = " :=–—-"


def quote_start(line: str) -> str:
    return line[:QUOTED_CHARS].rstrip() + "…"



def lineup_shape_error(text: str) -> str | None:
    """Why ``text`` is no valid lineup although it looks like one (four or more
    numbers joined by ``-`` or ``/``, or four or more labelled rows such as
    ``T10 A10 V15 M15``), or None when it does not look like a lineup."""
    run = LINEUP_RUN.search(text)
    if run is not None:
        attempt = attempt_lineup(run.group(0))
        if isinstance(attempt, InvalidLineupError):
            return attempt.reason
        junk = text[run.end():].strip() or text[: run.start()].strip()
        return f"cannot read {junk!r} next to the lineup {run.group(0)}" if junk else None
    pairs = [m for m in LABELLED_PAIR.finditer(text) if m.group(1).lower() in LABELS]
    if len({LABELS[m.group(1).lower()] for m in pairs}) < 4:
        return None
    attempt = attempt_lineup(text[pairs[0].start():])
    if isinstance(attempt, InvalidLineupError):
        return attempt.reason
    junk = text[: pairs[0].start()].strip()
    return f"cannot read {junk!r} before the lineup" if junk else None



def suggest_lineup(part: str, reason: str) -> str | None:
    """The player's five numbers in the right form, when ``part`` holds
    exactly five of at most three digits, unlabelled and none negative."""
    if "negative" in reason or any(w.lower() in LABELS for w in WORD.findall(part)):
        return None
    numbers = NUMBER_RUN.findall(part)
    if len(numbers) != 5 or any(len(n) > 3 for n in numbers) or GLUED.search(part):
        return None  # "2x" or "x5": which number was meant is not recognisable
    suggestion = "-".join(str(int(n)) for n in numbers)
    return suggestion if suggestion != part.strip() else None



def clean_name(text: str) -> str:
    return " ".join(text.split()).strip(QUOTES).strip()


def strip_for(rest: str) -> str:
    return re.sub(r"^(?:für|fuer|for|von|of)\s+", "", rest, flags=re.IGNORECASE)


def attempt_lineup(text: str) -> Candidate:
    """``text`` is meant as a lineup: the lineup, or why it is not one."""
    if len(text) > MAX_LINEUP_CHARS:
        if UNLABELLED.fullmatch(text):
            count = len(NUMBER_RUN.findall(text))
            return InvalidLineupError(text, f"{count} numbers instead of five")
        return InvalidLineupError(
            text, f"cannot read {quote_start(text)!r}: too long for a lineup "
            f"({len(text)} characters, at most {MAX_LINEUP_CHARS})")
    try:
        return Lineup.parse(text)
    except InvalidLineupError as error:
        return error


def lineup_candidate(text: str, *, guard: bool = True) -> Candidate | None:
    """The lineup in ``text``, an ``InvalidLineupError`` if it looks like a
    lineup but is not one, None if it is no lineup attempt at all
    (``guard``: see ``looks_like_lineup``)."""
    return attempt_lineup(text) if looks_like_lineup(text, guard=guard) else None


def looks_like_lineup(text: str, *, guard: bool = True) -> bool:
    """Only row labels, numbers and separators, at least three numbers; with
    ``guard`` also none with four or more digits (years, postcodes, phone
    numbers) and no leading ``+``."""
    stripped = text.strip().rstrip(".").strip()
    if not stripped or not LINEUP_CHARS.match(stripped):
        return False
    if guard and stripped.startswith("+"):
        return False
    if DOTTED.search(stripped):
        return False  # a date, an IP address or a status code such as 5.1.1
    if any(word.lower() not in LABELS for word in WORD.findall(stripped)):
        return False
    numbers = NUMBER.findall(stripped)
    return len(numbers) >= 3 and (not guard or all(len(n) < 4 for n in numbers))


def split_team_lineup(text: str) -> tuple[str | None, Candidate] | None:
    """``"NAME: L"`` split at a separator (RULES.md §11: ``:`` ``=`` ``–``
    ``—`` or ``-`` before a space) after which a lineup candidate follows; the name must
    not itself be part of a labelled lineup. The first separator followed by
    a valid lineup wins (``Hannover 96 - 10-10-15-15-20``); without one, the
    first followed by a broken lineup, but never a separator inside a
    lineup (``Rote Teufel 10 - 10 - 15 - 15 - 20`` is the name and a lineup
    written with spaced dashes, ``tail_lineup``; ``Rote Teufel T=10, A=10,
    ...`` a labelled one, ``labelled_tail``)."""
    broken: tuple[str | None, Candidate] | None = None
    for tried, (start, end) in enumerate(_separators(text), start=1):
        if tried > MAX_COLONS:
            break
        left, right = text[:start].strip(), text[end:].strip()
        if not left or not right or not LETTER.search(left):
            continue
        if looks_like_lineup(left + " 0 0 0"):
            continue  # "T: 10 A: 10 ..." - the colon belongs to the lineup
        candidate = lineup_candidate(right)
        if isinstance(candidate, Lineup):
            return team_from_left(left), candidate
        if candidate is not None and broken is None and not _inside_lineup(
                left, text[start:end].strip(), right):
            broken = team_from_left(left), candidate
    return broken


def _inside_lineup(left: str, separator: str, right: str) -> bool:
    """The separator belongs to the lineup: ``10 - 10`` (a spaced dash between
    numbers) or ``T=10`` / ``T: 10`` (a row label before it)."""
    if not right[:1].isdigit():
        return False
    if separator == "-" and left[-1:].isdigit():
        return True
    last = WORD.findall(left[-20:])
    return bool(last) and left[-len(last[-1]):] == last[-1] and last[-1].lower() in LABELS


def _separators(text: str) -> Iterable[tuple[int, int]]:
    """(start, end) of each separator of ``text``, left to right."""
    for match in SEPARATOR_CHAR.finditer(text):
        start, end = match.start(), match.end()
        while start > 0 and text[start - 1].isspace():
            start -= 1
        while end < len(text) and text[end].isspace():
            end += 1
        yield start, end


def tail_lineup(text: str) -> tuple[str | None, Candidate] | None:
    """``"NAME 10-10-15-15-20"``: a name followed by four to six numbers
    separated by ``-`` or ``/`` (five: a lineup; otherwise an error); or a
    name followed by five numbers separated by spaces (``NAME 10 10 15 15
    20``; more numbers before them belong to the name: ``Hannover 96 10 10
    15 15 20``)."""
    if not text.rstrip(" .")[-1:].isdigit():
        return None  # both forms end with a number
    match = TAIL_LINEUP.search(text)
    if match is None:
        return _spaced_tail(text)
    name = text[: match.start()].strip().rstrip(NAME_END)
    if not LETTER.search(name):
        return None
    if looks_like_lineup(name + " 0 0 0"):
        return None
    if any(len(n) >= 4 for n in NUMBER.findall(match.group("lineup"))):
        return None  # a phone number such as "Tel. 0171-123-45-67"
    return team_from_left(name), attempt_lineup(match.group("lineup"))


def _spaced_tail(text: str) -> tuple[str | None, Candidate] | None:
    match = SPACED_TAIL.search(text)
    if match is None:
        return None
    numbers = match.group("lineup").split()
    if len(numbers) < 5:
        return None
    name = (text[: match.start()] + " ".join(numbers[:-5])).strip().rstrip(NAME_END)
    if not LETTER.search(name) or looks_like_lineup(name + " 0 0 0"):
        return None
    return team_from_left(name), attempt_lineup(" ".join(numbers[-5:]))


def labelled_tail(text: str) -> tuple[str | None, Candidate] | None:
    """``"NAME T10 A10 V15 M15 S20"``: a name followed by a labelled lineup
    (four or more rows labelled, in any order)."""
    pairs = [m for m in LABELLED_PAIR.finditer(text) if m.group(1).lower() in LABELS]
    if len({LABELS[m.group(1).lower()] for m in pairs}) < 4:
        return None
    name = text[: pairs[0].start()].strip().rstrip(NAME_END)
    if not LETTER.search(name) or looks_like_lineup(name + " 0 0 0"):
        return None
    return team_from_left(name), attempt_lineup(text[pairs[0].start():])


def team_from_left(left: str) -> str | None:
    left = clean_name(left)
    match = LINEUP_LEFT.match(left)
    if match:
        return clean_name(match.group("team")) or None
    if LINEUP_WORD.search(left):
        return None  # "Hier meine Aufstellung: ..." - no team named
    match = TEAM_LEFT.match(left)
    if match:
        return clean_name(match.group("team")) or None
    return left or None

