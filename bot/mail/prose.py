"""Greetings and prose (RULES.md §11): what in a mail is written to a person.

The grammar (``bot.mail.grammar``) asks here about the lines it could not
read as commands:

* a **greeting** (``is_greeting``): a short first line such as ``Hallo
  Spielleitung,`` ``Moin!`` ``Hi GM,``: not read, not listed;
* a line that is plainly a **message** to a person (``MESSAGE``): a
  question (a ``?`` after at least two words), or a sentence of at least
  five words that does not merely go with the mail's commands; the mail is
  then forwarded to the game master (``bot.service.forward``);
* a line that only goes with the commands (``QUIET``): ``Hier meine
  Aufstellung:``, ``Viel Glück allen!``, ``Danke für die Auswertung``, a
  short sentence (``Diesmal volle Offensive!``): not read, not listed, not
  forwarded;
* anything else looks like an **attempted** command (``ATTEMPT``):
  ``Taktik: offensiv``, ``Tabelle bitte``, ``Runde 3 Platz 2``: listed in
  the reply as not understood.

**Decision** (the thresholds): a question needs two words, a message five;
a line that mentions the lineup, the team or the round, thanks or wishes
luck goes with the commands unless it is a question or has ten words or
more (``Ich kann meine Aufstellung diese Woche nicht schicken, bitte nimm
die alte`` is a message). A ``label: value`` line of at most five words and
a line with two numbers or more and at most five words are attempts. Only
the body's lines are judged so; the Subject counts as a message only when
it is a question (``Re: Ergebnisse der Spielrunde 12`` is none). Each line
is read once by a few linear patterns on at most ``MAX_JUDGED`` characters.
"""

from __future__ import annotations

import re
from enum import StrEnum

__all__ = ["MAX_GREETING", "Kind", "is_greeting", "judge"]

#: Longest line taken for a greeting, and the most words after its greeting word.
MAX_GREETING = 50
_GREETING_NAME_WORDS = 4
#: Only the start of a line is judged (a long paragraph is a message anyway).
MAX_JUDGED = 400


class Kind(StrEnum):
    """What a line that is no command is (module doc)."""

    MESSAGE = "message"
    QUIET = "quiet"
    ATTEMPT = "attempt"


_GREETING = re.compile(
    r"(?:hallo|hallöchen|hello|hi|hey|huhu|moin(?:\s+moin)?|servus|tach|salut|ciao|ahoi|"
    r"grüß\s+(?:gott|dich|euch)|gr[üu]ezi|guten\s+(?:morgen|tag|abend)|"
    r"good\s+(?:morning|afternoon|evening|day)|dear|liebe|lieber|liebes|"
    r"sehr\s+geehrte[rs]?|werte[rs]?)"
    r"(?P<rest>(?:[\s,]+[^\W\d_][\w.'’-]*){0," + str(_GREETING_NAME_WORDS) + r"})[\s,.!:;)-]*",
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
_NUMBER = re.compile(r"\d+")
#: ``Taktik: offensiv``, ``Teamname = Blau``: one to three words, then ``:`` or ``=``.
_LABEL = re.compile(r"^[^\W\d_][\w'’.-]*(?:\s[^\W\d_][\w'’.-]*){0,2}\s?[:=]")
#: A line that goes with the commands (module doc) has one of these words, a
#: word that starts with one of the stems, or one of the phrases.
_WITH_WORDS = frozenset({
    "lineup", "lineups", "line-up", "line-ups", "team", "teams", "anbei", "attached",
    "beiliegend", "dank", "thanks", "thank",
})
_WITH_STEMS = ("aufstellung", "mannschaft", "runde", "spielrunde", "round", "danke")
_WITH_PHRASES = ("wie immer", "as always", "as usual", "viel glück", "viel erfolg",
                 "viel spaß", "viel spass", "good luck", "glück auf", "have fun", "line up")


def is_greeting(line: str) -> bool:
    """True when ``line`` (normalised: single spaces, stripped) is a short greeting."""
    return len(line) <= MAX_GREETING and _GREETING.fullmatch(line) is not None


def judge(line: str, *, subject: bool = False) -> Kind:
    """What ``line`` (no command; normalised) is: a message to a person, a
    line that goes with the commands, or an attempted command (module doc)."""
    head = line[:MAX_JUDGED]
    found = _WORD.findall(head)
    words = len(found)
    if "?" in head and words >= 2:
        return Kind.MESSAGE
    if subject:
        return Kind.QUIET
    if len(line) > MAX_JUDGED:
        return Kind.MESSAGE
    if words < 10 and _with_commands(head, found):
        return Kind.QUIET
    if words <= 5 and (_LABEL.match(head) or len(_NUMBER.findall(head)) >= 2):
        return Kind.ATTEMPT
    if words >= 5:
        return Kind.MESSAGE
    if head.endswith((".", "!")) and words >= 2:
        return Kind.QUIET
    return Kind.ATTEMPT


def _with_commands(head: str, words: list[str]) -> bool:
    """Does the line talk about what the mail sends (module doc)?"""
    lowered = [w.lower() for w in words]
    if any(w in _WITH_WORDS or w.startswith(_WITH_STEMS) for w in lowered):
        return True
    text = " ".join(lowered)
    return any(phrase in text for phrase in _WITH_PHRASES)
