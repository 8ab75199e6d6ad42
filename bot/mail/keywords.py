"""The mail grammar's vocabulary (RULES.md §11): keyword spellings and their
commands, the reading limits, the text patterns a line is classified by, and
the word lists the language of a mail is guessed from.

Tables and patterns only, plus the small helpers that read them directly
(``strip_subject_prefixes``, ``normalise``); what a line means is decided in
``bot.mail.grammar``, and the keywords of the commands beyond the lineup
language come from ``bot.mail.vocabulary``.
"""

from __future__ import annotations

import re
import unicodedata

from bot.errors import N_

EXAMPLE_LINEUP = "10-10-15-15-20"
#: Longest body line that is read (a command line is far shorter).
MAX_LINE_CHARS = 1000
#: Longest Subject that is read (after reply/forward prefixes).
MAX_SUBJECT_CHARS = 1000
#: Longest text handed to ``Lineup.parse`` (the longest written-out lineup
#: has about 65 characters).
MAX_LINEUP_CHARS = 200
#: At most this many colons are tried when a line is split into NAME: LINEUP.
MAX_COLONS = 12
#: A too-long line is quoted with this many characters and an ellipsis.
QUOTED_CHARS = 60

#: The grammar's own keywords (``bot.mail.vocabulary`` adds the commands'):
#: (command, language or None for both, spellings in lower case).
CORE_KEYWORDS: tuple[tuple[str, str | None, tuple[str, ...]], ...] = (
    ("register", "de", ("neues team", "neue mannschaft")),
    ("register", "en", ("new team",)),
    ("short", "de", ("kurzname", "kürzel", "kuerzel")),
    ("short", "en", ("short name", "shortname", "short-name")),
    ("password", "de", ("passwort", "kennwort")),
    ("password", "en", ("password",)),
    ("lineup", "de", ("aufstellung",)),
    ("lineup", "en", ("lineup", "line-up", "line up")),
    ("team", "de", ("mannschaft", "mein team", "meine mannschaft")),
    ("team", "en", ("my team",)),
    ("team", None, ("team",)),
)
#: The right form of a core keyword line (an English message of the catalog: a reply
#: shows it in the mail's language), and why one without its value is unreadable.
EXAMPLES = {
    "team": N_("Team: Red Devils"),
    "register": N_("New team: FC Wanderers Altona / Wanderers"),
    "short": N_("Short name: Wanderers"),
    "password": N_("Password: k7f-x2q"),
}
MISSING = {
    "team": "no team name after the keyword",
    "register": "no name for the new team after the keyword",
    "short": "no short name after the keyword",
    "password": "no password after the keyword",
}

_SUBJECT_PREFIX = re.compile(
    r"^\s*+(?:(?:re|aw|wg|fwd|fw|antw|antwort|sv|vs|tr|wtr|rif|enc)\s*+(?:\[\d+\]|\(\d+\))?+"
    r"\s*+:\s*+)+",
    re.IGNORECASE,
)
GERMAN_PREFIX = re.compile(r"^\s*(?:aw|wg|antw|antwort)\s*:", re.IGNORECASE)
_BULLET = re.compile(r"^[-*•·–]\s+(?=\S)")  # not "1." - think of "1. FC Köln"
_SPACES = re.compile(r"[\s\u00a0\u2000-\u200b\u202f\u205f\u3000]+")
LETTER = re.compile(r"[^\W\d_]")
WORD = re.compile(r"[^\W\d_]+")
NUMBER = re.compile(r"\d+")
DOTTED = re.compile(r"\d\.\d+\.\d")
LINEUP_CHARS = re.compile(r"^[\w\s\-/,;:=.+]*$")
#: The lineup at the end of ``NAME 10-10-15-15-20`` (searched, leftmost start
#: after a space: the name is what comes before it; lines have single spaces).
TAIL_LINEUP = re.compile(
    r"(?<=\s)(?P<lineup>[+-]?\d++(?:[.,]\d++)?+(?:\s?[-/]\s?[+-]?\d++(?:[.,]\d++)?+){3,5})"
    r"\s?\.?$"
)
#: Numbers of at most three digits separated by single spaces at the end of a
#: line, after a space (``Dublin Harps 0 10 30 20 20``; at least five are needed).
SPACED_TAIL = re.compile(r"(?<=\s)(?P<lineup>\d{1,3}+(?: \d{1,3}+)++)\.?$")
#: Four or more numbers of at most three digits joined by ``-`` or ``/``
#: (``10-10-15-15-20``; not a phone number's ``0171-...`` or a date).
LINEUP_RUN = re.compile(
    r"(?<![\w.,+/-])(?!0\d)\d{1,3}(?:\s*[-/]\s*\d{1,3}){3,}(?!\d|\s*[-/]\s*\d)"
)
LABELLED_PAIR = re.compile(r"(?<![^\W\d_])([^\W\d_]+)\s*[=:]?\s*\d+")
LINEUP_WORD = re.compile(r"\b(?:aufstellung|line-?\s?up)\b", re.IGNORECASE)
LINEUP_LEFT = re.compile(
    r"^(?:aufstellung|line-?\s?up)\b\s*(?:(?:für|fuer|for|von|of)\b\s*)?(?P<team>.*)$",
    re.IGNORECASE,
)
FOR_TEAM = re.compile(r"^(?:für|fuer|for)\s++(?P<team>[^:]++):\s*+(?P<lineup>.+)$", re.IGNORECASE)
#: A comment to the end of the line: ``#`` or ``//`` at the start or after a space.
LINE_COMMENT = re.compile(r"(?:^|(?<=\s))(?:#|//)")
NUMBER_RUN = re.compile(r"\d+")
GLUED = re.compile(r"\d[^\W\d_]|[^\W\d_]\d")
UNLABELLED = re.compile(r"[\d\s\-/,;:.]+")
TEAM_LEFT = re.compile(
    r"^(?:team|mannschaft|mein\s+team|meine\s+mannschaft|my\s+team)\s*(?:[:=–—]|-(?=\s))\s*"
    r"(?P<team>.+)$",
    re.IGNORECASE,
)
#: A separator between a team name and its lineup (RULES.md §11): ``:``, ``=``,
#: ``–``, ``—``, or ``-`` before a space (the spaces around it belong to it).
SEPARATOR_CHAR = re.compile(r"[:=–—]|-(?=\s)")
QUOTES = "\"'„“”‚‘’»«"

EN_ROW_WORDS = frozenset(
    {"goalkeeper", "keeper", "goalie", "sweeper", "defence", "defense", "midfield",
     "attack", "forward", "forwards", "striker"}
)
DE_ROW_WORDS = frozenset(
    {"torwart", "torhüter", "torhueter", "ausputzer", "libero", "verteidigung", "abwehr",
     "mittelfeld", "sturm", "angriff"}
)
EN_WORDS = frozenset(
    {"hello", "hi", "dear", "thanks", "thank", "regards", "cheers", "best", "please", "my",
     "the", "and", "is", "for", "with", "here", "this", "yours", "sincerely", "kind"}
)
DE_WORDS = frozenset(
    {"hallo", "liebe", "lieber", "danke", "dank", "gruß", "grüße", "gruss", "gruesse",
     "grüßen", "viele", "mfg", "lg", "vg", "bitte", "mein", "meine", "und", "ist", "für",
     "mit", "hier", "die", "der", "das", "ich", "anbei", "moin", "servus", "schöne", "beste"}
)

def strip_subject_prefixes(subject: str) -> str:
    """``"AW: Re: Fwd: Aufstellung"`` -> ``"Aufstellung"``."""
    return _SUBJECT_PREFIX.sub("", subject or "").strip()

def normalise(line: str) -> str:
    line = _SPACES.sub(" ", unicodedata.normalize("NFC", line)).strip()
    return _BULLET.sub("", line).strip()

