"""Why a line could not be read, in the reader's language.

The rules core (``InvalidLineupError.reason``) and the mail grammar
(``LineError.reason``) explain an unreadable line in English, e.g.
``4 numbers instead of five``. A German reply says it in German; every
wording they produce has one pattern here (``tests/compliance`` feeds them
all through). A wording without a pattern is shown as it is rather than
hidden. The patterns are here, their German words in the message catalog
(each pattern's wording is marked ``N_`` and extracted with the templates'
messages): they translate text the rules core made (its groups are parts of
the player's line), and the command-line calculators use them without a
template.

The words around a reason (the notes of the grammar, the suggestion after an
error, the refusals of a team name that only looks new) are the reply's own
and stand in the message catalog (``templates/shared/reasons.j2``).
"""

from __future__ import annotations

import re

from bot.errors import N_
from bot.render.formatting import check_language
from bot.render.i18n import translations

#: (English wording as a full-match pattern, the same wording as a message of the
#: catalog, its groups as placeholders): the German words are in the catalog.
_REASONS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), message)
    for pattern, message in (
        (r"(?P<x>\S+) is not a whole number",
         N_("%(x)s is not a whole number")),
        (r"(?P<x>\S+) is negative(?P<v> \(-?\d+\))?",
         N_("%(x)s is negative%(v)s")),
        (r"(?P<n>\d+) numbers instead of five",
         N_("%(n)s numbers instead of five")),
        (r"(?P<n>\d+) values instead of five",
         N_("%(n)s values instead of five")),
        (r"not text",
         N_("not text")),
        (r"empty",
         N_("empty")),
        (r"mixed separators \((?P<s>.+)\); use one kind throughout",
         N_("mixed separators (%(s)s); use one kind throughout")),
        (r"unknown row label (?P<x>.+) \(known: .*\)",
         N_("unknown row label %(x)s (known: T/A/V/M/S, G/SW/D/M/F and the written-out "
            "names such as goalkeeper or attack)")),
        (r"row (?P<r>\S+) given twice",
         N_("row %(r)s given twice")),
        (r"row\(s\) (?P<r>.+) missing",
         N_("row(s) %(r)s missing")),
        (r"cannot read (?P<x>.+) between the numbers",
         N_("cannot read %(x)s between the numbers")),
        (r"cannot read (?P<x>.+) next to the lineup (?P<l>.+)",
         N_("cannot read %(x)s next to the lineup %(l)s")),
        (r"cannot read (?P<x>.+) before the lineup",
         N_("cannot read %(x)s before the lineup")),
        (r"cannot read (?P<x>.+): too long for a lineup \((?P<n>\d+) characters, "
         r"at most (?P<l>\d+)\)",
         N_("cannot read %(x)s: too long for a lineup (%(n)s characters, at most %(l)s)")),
        (r"the line is too long \((?P<n>\d+) characters, at most (?P<l>\d+) are read\)",
         N_("the line is too long (%(n)s characters, at most %(l)s are read)")),
        (r"the subject is too long \((?P<n>\d+) characters, at most (?P<l>\d+) are read\)",
         N_("the subject is too long (%(n)s characters, at most %(l)s are read)")),
        (r"cannot read (?P<x>.+)",
         N_("cannot read %(x)s")),
        (r"no team name after the keyword",
         N_("no team name after the keyword")),
        (r"no name for the new team after the keyword",
         N_("no name for the new team after the keyword")),
        (r"no short name after the keyword",
         N_("no short name after the keyword")),
        (r"no password after the keyword",
         N_("no password after the keyword")),
        (r"no manager name after the keyword",
         N_("no manager name after the keyword")),
    )
)


def german_reason(reason: str) -> str | None:
    """The German wording of ``reason``, or None if it has no pattern."""
    for pattern, message in _REASONS:
        match = pattern.fullmatch(reason)
        if match is not None:
            german = translations("de").gettext(message)
            return german % {k: v or "" for k, v in match.groupdict().items()}
    return None


def reason(text: str, language: str) -> str:
    """``text`` (an English reason) in ``language``; English stays as it is. A
    reason that is itself a message of the catalog (a command's, marked ``N_``
    where the command is declared) is translated as it is."""
    if check_language(language) == "de":
        return german_reason(text) or translations("de").gettext(text)
    return text
