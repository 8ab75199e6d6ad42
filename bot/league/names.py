"""Team names (RULES.md §7): cleaning, the uniqueness key, look-alikes, shortening.

Names are at most ``name_max`` characters, short names at most
``short_max``; longer ones are shortened (at a word boundary where that
keeps at least half, else cut) and the reply says so. Uniqueness ignores
case, Unicode width variants and runs of spaces (``name_key``).

Names that only look different (RULES.md §7, issue 11):

* Unicode format characters (category Cf: zero-width spaces and joiners,
  soft hyphens, bidi controls) are removed by ``clean`` before a name is
  compared or stored;
* two names clash when their confusable skeletons (UTS #39 section 4) are
  equal (``confusable_keys``, ``names_clash``, ``find_clash``): ``Rоte
  Teufel`` with a Cyrillic о clashes with ``Rote Teufel``. The skeleton is
  computed from the Unicode Consortium's own data file ``confusables.txt``
  (``bot/data/confusables.txt``, UTS #39 version 13.0.0, unchanged). No
  package on PyPI reachable here implements the skeleton: ``confusables``
  offers a different, exponential normalisation (and installs a top-level
  ``tests`` package over ours), ``confusable-homoglyphs`` keeps the pairs
  without their direction. Case is folded around the skeleton, so both
  ``GM``/``gm`` and Latin ``M``/Cyrillic ``М`` clash;
* a name that reads like a GM team (``GM`` and then nothing, a space, a
  separator or a digit, in any spelling: ``G\u200bM 10-10-16-15-39``,
  ``gm 10/10/16/15/39``, ``G.M.``, a Cyrillic ``М``) is reserved
  (``is_reserved``; ``check_new_name`` raises the typed errors).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from importlib import resources

from bot.errors import TurnitedError
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


class NameRefused(TurnitedError, ValueError):
    """A team name that cannot be registered; ``name`` is the name as given."""

    def __init__(self, name: str, message: str) -> None:
        self.name = name
        super().__init__(message)


class GmLookAlikeName(NameRefused):
    """The name reads like a GM team (``GM`` followed by a lineup, in any spelling)."""

    def __init__(self, name: str) -> None:
        super().__init__(
            name,
            f"team name {name!r} reads like a GM team ('GM' followed by a lineup); "
            "names starting with GM are reserved for the game master's "
            "teams: choose a name that does not start with GM",
        )


class ConfusableName(NameRefused):
    """The name looks like a team that exists or existed (``other``)."""

    def __init__(self, name: str, other: str) -> None:
        self.other = other
        super().__init__(
            name,
            f"team name {name!r} looks the same as the existing team {other!r} "
            "(look-alike letters such as a Cyrillic о for a Latin o count as equal; "
            "every name exists once): choose a name that reads differently",
        )


def strip_format_characters(text: str) -> str:
    """``text`` without Unicode format characters (category Cf: zero-width
    spaces and joiners, soft hyphens, bidi controls, BOM)."""
    if text.isascii():
        return text
    return "".join(c for c in text if unicodedata.category(c) != "Cf")


def clean(text: str) -> str:
    """NFKC-normalized, format characters (Cf) removed, stripped, inner
    whitespace folded to single spaces."""
    return " ".join(strip_format_characters(unicodedata.normalize("NFKC", text)).split())


def name_key(text: str) -> str:
    """The key under which names must be unique: clean, case-folded (after
    upper-casing, so that e.g. dotless and dotted i fold alike). Look-alikes
    are a second check (``confusable_keys``), not part of this stored key."""
    return clean(clean(text).upper().casefold())


# -- confusables (UTS #39) ------------------------------------------------------------

_CONFUSABLES_FILE = "confusables.txt"
_DATA_LINE = re.compile(r"^\s*([0-9A-Fa-f]{4,6})\s*;\s*([0-9A-Fa-f ]+?)\s*;")


@cache
def _prototypes() -> dict[str, str]:
    """Each source character of ``confusables.txt`` -> its prototype string."""
    text = resources.files("bot").joinpath("data", _CONFUSABLES_FILE).read_text("utf-8-sig")
    table: dict[str, str] = {}
    for line in text.splitlines():
        match = _DATA_LINE.match(line)
        if match is not None:
            target = "".join(chr(int(code, 16)) for code in match.group(2).split())
            table[chr(int(match.group(1), 16))] = target
    return table


def skeleton(text: str) -> str:
    """The UTS #39 skeleton of ``text``: NFD, format characters removed,
    every character replaced by its prototype, NFD again. Two strings are
    confusable when their skeletons are equal (case matters here)."""
    table = _prototypes()
    decomposed = strip_format_characters(unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFD", "".join(table.get(c, c) for c in decomposed))


def _fixpoint(text: str, step: Callable[[str], str]) -> str:
    for _ in range(4):  # converges after one or two steps for real text
        following = step(text)
        if following == text:
            break
        text = following
    return " ".join(text.split())


def confusable_keys(name: str) -> tuple[str, str]:
    """Two keys of ``name`` for the look-alike check: the skeleton of the
    case-folded name (so ``ROTE`` and ``rote`` agree) and the case-folded
    skeleton of the name as written (so a Cyrillic capital ``М``, whose small
    letter looks different, agrees with ``M``). Names clash when either key
    is equal."""
    text = clean(name)
    return (
        _fixpoint(text.upper().casefold(), lambda t: skeleton(t).casefold()),
        _fixpoint(text, lambda t: skeleton(t).casefold()),
    )


def names_clash(first: str, second: str) -> bool:
    """True when the names are equal up to case and spaces or look alike (UTS #39)."""
    if name_key(first) == name_key(second):
        return True
    a, b = confusable_keys(first), confusable_keys(second)
    return a[0] == b[0] or a[1] == b[1]


def find_clash(name: str, existing: Iterable[str]) -> str | None:
    """The first of ``existing`` (names of teams that exist or existed) that
    ``name`` clashes with, or None."""
    key = name_key(name)
    keys = confusable_keys(name)
    for other in existing:
        if name_key(other) == key:
            return other
        other_keys = confusable_keys(other)
        if other_keys[0] == keys[0] or other_keys[1] == keys[1]:
            return other
    return None


#: ``GM`` at the start: one or two letters (a separator between them allowed),
#: then the end, or anything but a letter (a space, a digit, punctuation).
_GM_HEAD = re.compile(r"([^\W\d_])([\s._\-·]*)([^\W\d_])(?![^\W\d_])")
#: Three or more numbers with short separators: a lineup after the letters.
_NUMBERS = re.compile(r"\d+(?:\D{1,3}\d+){2,}")


@cache
def _gm_keys() -> tuple[str, str]:
    return confusable_keys(GM_PREFIX.strip())


def is_reserved(name: str) -> bool:
    """True for names that would look like a GM team: ``GM``, ``GM ...`` and
    every spelling that reads the same (case, look-alike letters, format
    characters; a separator between the letters when a lineup follows:
    ``G.M. 10-10-16-15-39``, not ``G M``)."""
    key = name_key(name)
    prefix = GM_PREFIX.casefold()
    if key.startswith(prefix) or key == prefix.strip():
        return True
    text = clean(name)
    head = _GM_HEAD.match(text)
    if head is None:
        return False
    if head.group(2) and _NUMBERS.search(text, head.end()) is None:
        return False  # "G M" alone is a name; "G.M. 10-10-16-15-39" is not
    letters = confusable_keys(head.group(1) + head.group(3))
    gm = _gm_keys()
    return letters[0] == gm[0] or letters[1] == gm[1]


def check_new_name(name: str, existing: Iterable[str] = ()) -> None:
    """Raise ``GmLookAlikeName`` if ``name`` reads like a GM team, or
    ``ConfusableName`` if it clashes with one of ``existing`` (the names of
    all teams that exist or existed)."""
    if is_reserved(name):
        raise GmLookAlikeName(name)
    other = find_clash(name, existing)
    if other is not None:
        raise ConfusableName(name, other)


def shorten(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters: whole words if that keeps at least
    half of the limit, else a hard cut; trailing punctuation dropped."""
    text = clean(text)
    if len(text) <= limit:
        return text
    words, kept = text.split(" "), list[str]()
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


def unique_short_name(short: str, existing: Iterable[str], limit: int) -> tuple[str, str | None]:
    """``short`` made distinct from every one of ``existing`` (the short names
    of the stored teams), RULES.md §7: when it reads the same as one of them
    (``find_clash``: case, spaces, look-alike letters), the first free
    ``"<short> 2"``, ``"<short> 3"``, ... with ``short`` shortened so the
    suffix still fits ``limit``. Returns the short name and the stored one it
    clashed with (None when ``short`` was free)."""
    existing = list(existing)
    other = find_clash(short, existing)
    if other is None:
        return short, None
    number = 2
    while True:
        suffix = f" {number}"
        candidate = f"{shorten(short, max(1, limit - len(suffix)))}{suffix}"
        if find_clash(candidate, existing) is None:
            return candidate, other
        number += 1


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
