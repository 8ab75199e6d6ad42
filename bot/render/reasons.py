"""Why a line could not be read, in the reader's language.

The rules core (``InvalidLineupError.reason``) and the mail grammar
(``LineError.reason``) explain an unreadable line in English, e.g.
``4 numbers instead of five``. A German reply says it in German; every
wording they produce has one pattern here (``tests/compliance`` feeds them
all through). A wording without a pattern is shown as it is rather than
hidden. The patterns stay in Python, not in the message catalog: they
translate text the rules core made (its groups are parts of the player's
line), and the command-line calculators use them without a template.

The words around a reason (the notes of the grammar, the suggestion after an
error, the refusals of a team name that only looks new) are the reply's own
and stand in the message catalog (``templates/shared/reasons.j2``).
"""

from __future__ import annotations

import re

from bot.render.formatting import check_language

#: (English wording as a full-match pattern, German template with its groups).
_GERMAN: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), german)
    for pattern, german in (
        (r"(?P<x>\S+) is not a whole number", "{x} ist keine ganze Zahl"),
        (r"(?P<x>\S+) is negative(?P<v> \(-?\d+\))?", "{x} ist negativ{v}"),
        (r"(?P<n>\d+) numbers instead of five", "{n} Zahlen statt fünf"),
        (r"(?P<n>\d+) values instead of five", "{n} Werte statt fünf"),
        (r"not text", "kein Text"),
        (r"empty", "leer"),
        (r"mixed separators \((?P<s>.+)\); use one kind throughout",
         "gemischte Trennzeichen ({s}); bitte nur eine Sorte verwenden"),
        (r"unknown row label (?P<x>.+) \(known: .*\)",
         "unbekannte Reihe {x} (bekannt: T/A/V/M/S, G/SW/D/M/F und die ausgeschriebenen "
         "Namen wie Torwart oder Sturm)"),
        (r"row (?P<r>\S+) given twice", "Reihe {r} doppelt angegeben"),
        (r"row\(s\) (?P<r>.+) missing", "es fehlt: {r}"),
        (r"cannot read (?P<x>.+) between the numbers", "{x} zwischen den Zahlen ist nicht lesbar"),
        (r"cannot read (?P<x>.+) next to the lineup (?P<l>.+)",
         "{x} neben der Aufstellung {l} ist nicht lesbar"),
        (r"cannot read (?P<x>.+) before the lineup", "{x} vor der Aufstellung ist nicht lesbar"),
        (r"cannot read (?P<x>.+): too long for a lineup \((?P<n>\d+) characters, "
         r"at most (?P<l>\d+)\)",
         "{x} ist zu lang für eine Aufstellung ({n} Zeichen, höchstens {l})"),
        (r"the line is too long \((?P<n>\d+) characters, at most (?P<l>\d+) are read\)",
         "die Zeile ist zu lang ({n} Zeichen; gelesen werden höchstens {l}) – bitte nur den "
         "Befehl in die Zeile schreiben"),
        (r"the subject is too long \((?P<n>\d+) characters, at most (?P<l>\d+) are read\)",
         "der Betreff ist zu lang ({n} Zeichen; gelesen werden höchstens {l}) – bitte den "
         "Befehl in eine eigene Zeile im Text schreiben"),
        (r"cannot read (?P<x>.+)", "{x} ist nicht lesbar"),
        (r"no team name after the keyword", "nach dem Stichwort fehlt der Teamname"),
        (r"no name for the new team after the keyword",
         "nach dem Stichwort fehlt der Name des neuen Teams"),
        (r"no short name after the keyword", "nach dem Stichwort fehlt der Kurzname"),
        (r"no password after the keyword", "nach dem Stichwort fehlt das Passwort"),
        (r"no manager name after the keyword", "nach dem Stichwort fehlt der Managername"),
    )
)


def german_reason(reason: str) -> str | None:
    """The German wording of ``reason``, or None if it has no pattern."""
    for pattern, german in _GERMAN:
        match = pattern.fullmatch(reason)
        if match is not None:
            return german.format(**{k: v or "" for k, v in match.groupdict().items()})
    return None


def reason(text: str, language: str) -> str:
    """``text`` (an English reason) in ``language``; English stays as it is."""
    if check_language(language) == "de":
        return german_reason(text) or text
    return text
