"""Why a line could not be read, and how it was read, in the reader's language.

The rules core (``InvalidLineupError.reason``) and the mail grammar
(``LineError.reason``) explain an unreadable line in English, e.g.
``4 numbers instead of five``. A German reply says it in German; every
wording they produce has one pattern here (``tests/compliance`` feeds them
all through). A wording without a pattern is shown as it is rather than
hidden.

Beside the reasons: the notes of the grammar (``ReadNote``: a typo read as
a keyword, a comment skipped, a signature, a too-long text line;
``note_text``), the suggestion of an error (``suggestion_text``) and the
refusals of a team name that only looks new (``name_refusal``: a GM
look-alike, a look-alike of an existing team), each in German and English.
"""

from __future__ import annotations

import re

from bot.render.formatting import check_language
from bot.rules.requests import ReadNote

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


#: ``ReadNote.kind`` -> (German, English) wording; ``{text}`` and ``{value}``
#: are the note's fields.
NOTES: dict[str, tuple[str, str]] = {
    "typo": ("„{text}“ als „{value}“ gelesen", 'read "{text}" as "{value}"'),
    "comment": ("Kommentar übergangen: {text}", "Comment skipped: {text}"),
    "signature": ("Gruß und Name nicht als Befehl gelesen: „{text}“",
                  'Sign-off and name not read as commands: "{text}"'),
    "long_text": ("„{text}“: die Zeile ist zu lang und wurde nicht gelesen (höchstens {value} "
                  "Zeichen je Zeile)",
                  '"{text}": the line is too long and was not read (at most {value} '
                  "characters a line)"),
}

#: Refusals of a team name that only looks new -> (German, English) wording.
NAME_REFUSALS: dict[str, tuple[str, str]] = {
    "gm_look_alike": (
        "Der Teamname „{name}“ liest sich wie ein Team der Spielleitung („GM“ und eine "
        "Aufstellung); solche Namen sind reserviert. Bitte wähle einen Namen, der nicht mit "
        "GM beginnt.",
        'The team name "{name}" reads like one of the game master\'s teams ("GM" and a '
        "lineup); such names are reserved. Please choose a name that does not start with GM.",
    ),
    "confusable": (
        "Der Teamname „{name}“ sieht genauso aus wie das Team „{other}“ (gleich aussehende "
        "Zeichen wie ein kyrillisches „о“ statt „o“ zählen als gleich). Bitte wähle einen "
        "Namen, der anders aussieht.",
        'The team name "{name}" looks the same as the team "{other}" (look-alike '
        'characters such as a Cyrillic "о" for an "o" count as equal). Please choose a name '
        "that looks different.",
    ),
}


def _pick(pair: tuple[str, str], language: str) -> str:
    return pair[0] if check_language(language) == "de" else pair[1]


def note_text(kind: str, text: str, value: str | None, language: str) -> str:
    """The sentence of a grammar note (``ReadNote.kind``, ``.text``, ``.value``)."""
    return _pick(NOTES[kind], language).format(text=text, value=value or "")


def suggestion_text(suggestion: str, language: str) -> str:
    """The player's own numbers in the right form, offered after an error."""
    return _pick((f"Meintest du {suggestion}?", f"Did you mean {suggestion}?"), language)


def name_refusal(kind: str, name: str, language: str, other: str | None = None) -> str:
    """Why a new team name is refused (``gm_look_alike`` or ``confusable``)."""
    return _pick(NAME_REFUSALS[kind], language).format(name=name, other=other or "")


def describe_note(note: ReadNote, language: str) -> str:
    """``note_text`` of a grammar note."""
    return note_text(note.kind, note.text, note.value, language)
