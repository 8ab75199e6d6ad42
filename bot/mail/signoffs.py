"""Sign-offs (RULES.md §9): ``Viele Grüße`` / ``Lena`` is a signature, not a command.

A closing line - a common German or English sign-off, alone or followed on
the same line by a short name (``Gruß Hans``, ``Cheers, Tom``) - and the
few short lines after it (the name, a nickname) are a signature: not read
and not listed as "not understood"; so is a name alone as the mail's last
line (``Sam``; ``is_name_line``). Only lines of at most ``MAX_SIGNOFF``
characters are looked at, so the work per line is bounded.
"""

from __future__ import annotations

import re

__all__ = ["MAX_NAME_LINE", "MAX_NAME_LINES", "MAX_SIGNOFF", "is_name_line", "is_signoff"]

#: Longest line taken for a sign-off.
MAX_SIGNOFF = 60
#: After a sign-off: at most this many lines of at most MAX_NAME_LINE characters.
MAX_NAME_LINES = 3
MAX_NAME_LINE = 40

_GRUESSE = r"gr(?:ü|ue|u)(?:ß|ss)(?:e|en|le)?"
_PHRASES = (
    # German
    rf"(?:viele|liebe|beste|schöne|schoene|herzliche|freundliche|sportliche|sonnige|"
    rf"kollegiale|fußballerische|fussballerische)\s+{_GRUESSE}",
    rf"mit\s+(?:freundlichen|besten|sportlichen|herzlichen|lieben|vielen)\s+{_GRUESSE}",
    rf"(?:liebe\s+|viele\s+|beste\s+)?{_GRUESSE}(?:\s+(?:aus|von)\s+\S+)?",
    r"mfg", r"lg", r"vg", r"bg", r"sg", r"ciao", r"tschüss?", r"tschuess?", r"servus",
    r"bis\s+(?:bald|dann|zum\s+nächsten\s+mal|später)", r"danke(?:\s+schön|schön)?",
    r"(?:vielen|herzlichen|besten)\s+dank", r"euer", r"eure", r"dein", r"deine",
    r"bye", r"tschau", r"adieu",
    # English
    r"cheers", r"best", r"regards", r"(?:best|kind|warm|warmest|kindest|many)\s+regards",
    r"best\s+wishes", r"all\s+the\s+best", r"thanks(?:\s+a\s+lot)?", r"thank\s+you",
    r"many\s+thanks", r"(?:yours\s+)?sincerely", r"yours(?:\s+truly)?", r"greetings",
    r"take\s+care", r"see\s+you", r"cu",
)
#: A sign-off, then at most three words of a name on the same line.
_SIGNOFF = re.compile(
    r"(?:" + "|".join(_PHRASES) + r")"
    r"(?:[\s,;.!-]+[^\W\d_][^\W\d_.'-]*\.?){0,3}[\s,;.!:)-]*",
    re.IGNORECASE,
)


#: A name as the last line of a mail without a sign-off (``Sam``, ``Mike O'Brien``,
#: ``Lena B.``): one to three capitalised words.
_NAME_LINE = re.compile(r"[^\W\d_a-zß][^\W\d_]*+(?:[.'’-][^\W\d_]*+)*+\.?"
                        r"(?: [^\W\d_a-zß][^\W\d_]*+(?:[.'’-][^\W\d_]*+)*+\.?){0,2}")


def is_name_line(line: str) -> bool:
    """True when ``line`` reads like a name signed under a mail (the grammar
    asks about the last line only)."""
    return len(line) <= MAX_NAME_LINE and _NAME_LINE.fullmatch(line) is not None


def is_signoff(line: str) -> bool:
    """True when ``line`` (normalised: single spaces, stripped) is a closing line."""
    return len(line) <= MAX_SIGNOFF and _SIGNOFF.fullmatch(line) is not None
