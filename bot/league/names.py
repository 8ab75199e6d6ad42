"""Team names (RULES.md §7): cleaning, the uniqueness key, shortening, short names.

Names are at most ``name_max`` characters, short names at most
``short_max``; longer ones are shortened (at a word boundary where that
keeps at least half, else cut) and the reply says so. Uniqueness ignores
case, Unicode width variants and runs of spaces. Names starting with
``GM `` are reserved for the GM teams.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from bot.rules.tournament import GM_PREFIX

#: Club abbreviations left out when a short name is derived from a long name.
CLUB_WORDS = frozenset({
    "fc", "sc", "sv", "tsv", "vfb", "vfl", "tsg", "fsv", "spvgg", "sg", "ssv", "bsc",
    "afc", "cf", "ac", "as", "ssc", "club", "e.v.", "ev", "1.", "08", "04", "05", "09",
})

#: Small words a shortened name must not end with (German and English).
LINKING_WORDS = frozenset({
    "aus", "vom", "von", "der", "die", "das", "des", "den", "dem", "am", "an", "im", "in",
    "bei", "und", "zu", "zum", "zur", "auf", "mit", "of", "the", "and", "at", "on", "de",
    "&", "+", "-", "/",
})


def clean(text: str) -> str:
    """NFKC-normalized, stripped, inner whitespace folded to single spaces."""
    return " ".join(unicodedata.normalize("NFKC", text).split())


def name_key(text: str) -> str:
    """The key under which names must be unique: clean, case-folded (after
    upper-casing, so that e.g. dotless and dotted i fold alike)."""
    return clean(clean(text).upper().casefold())


def is_reserved(name: str) -> bool:
    """True for names that would look like a GM team (``GM ...`` or ``GM``)."""
    key = name_key(name)
    prefix = GM_PREFIX.casefold()
    return key.startswith(prefix) or key == prefix.strip()


def shorten(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters: whole words if that keeps at least
    half of the limit, else a hard cut; trailing punctuation dropped."""
    text = clean(text)
    if len(text) <= limit:
        return text
    words, kept = text.split(" "), []
    for word in words:
        if len(" ".join([*kept, word])) > limit:
            break
        kept.append(word)
    if len(" ".join(kept)) * 2 < limit:
        return text[:limit].rstrip(" -/,.;:&+") or text[:limit]
    while len(kept) > 1 and kept[-1].casefold().rstrip(".,") in LINKING_WORDS:
        kept.pop()  # "Red Devils of Dover and" -> "Red Devils of Dover"
    return " ".join(kept).rstrip(" -/,.;:&+") or text[:limit]


def derive_short_name(name: str, limit: int) -> str:
    """A short name for ``name``: the name itself if it fits; else the name
    without club abbreviations if that fits; else its first words (at least
    two) if they fill half the limit; else its longest word that fits; else
    the name cut to ``limit``."""
    name = clean(name)
    if len(name) <= limit:
        return name
    core = [w for w in name.split(" ") if w.casefold() not in CLUB_WORDS]
    joined = " ".join(core)
    if core and len(joined) <= limit:
        return joined
    by_words = shorten(joined, limit) if core else ""
    if by_words and " " in by_words and joined.startswith(by_words):
        return by_words
    fitting = [w for w in core if len(w) <= limit]
    if fitting:
        return max(fitting, key=len)
    return shorten(name, limit)


@dataclass(frozen=True, slots=True)
class NameChoice:
    """The outcome of choosing a team's names from what the manager wrote."""

    name: str
    short_name: str
    key: str
    name_shortened: bool
    short_derived: bool
    short_shortened: bool
    given_short: str | None


def choose_names(
    given: str, given_short: str | None, *, name_max: int, short_max: int
) -> NameChoice:
    """Apply the length rules; raises nothing (emptiness and reservation are
    checked by the caller, which knows the line to quote)."""
    full = clean(given)
    name = shorten(full, name_max)
    short_text = clean(given_short) if given_short else ""
    if short_text:
        short = shorten(short_text, short_max)
        derived = False
    else:
        short = derive_short_name(name, short_max)
        derived = True
    return NameChoice(
        name=name,
        short_name=short,
        key=name_key(name),
        name_shortened=name != full,
        short_derived=derived and short != name,
        short_shortened=bool(short_text) and short != short_text,
        given_short=short_text or None,
    )
