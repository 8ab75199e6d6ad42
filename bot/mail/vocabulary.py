"""The keywords the mail grammar knows: its own and the ones the commands bring.

The grammar (``bot.mail.grammar``) reads the shapes of the lineup language
itself (``NAME: LINEUP``, ``Team:``, ``Aufstellung:``, ``Neues Team:``,
``Kurzname:``, ``Passwort:``; their spellings are ``keywords.CORE_KEYWORDS``).
Every other command is a ``KeywordCommand``: its spellings per language,
whether a value follows the keyword, and how the value becomes a request.
The commands are declared with their handlers (``bot.service.commands``),
which hands the grammar a ``Vocabulary`` of them; this layer only reads them.

A ``Vocabulary`` is made once per set of commands and keeps what the grammar
looks up on every line: each spelling's command and language, the one
keyword pattern (longer spellings first, so ``Passwort vergessen`` wins over
``Passwort``), and the spelling table the typo correction searches.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from bot.mail.keywords import CORE_KEYWORDS
from bot.mail.keywords import N_ as N_  # the commands mark their examples with it
from bot.rules.requests import Request


class Value(StrEnum):
    """What may follow a command's keyword."""

    #: Nothing (``Abmelden``); a line with more text after the keyword is no
    #: command but text (``Abmelden möchte ich mich nicht``).
    NONE = "none"
    #: Nothing or a value (``Ergebnisse`` / ``Ergebnisse Runde 12``); ``Status``
    #: and ``Hilfe`` take any text after them as part of the question.
    OPTIONAL = "optional"
    #: A value (``Sprache: Englisch``); with a colon but no value the line is
    #: an error that names ``missing``.
    REQUIRED = "required"


#: Builds the request of a keyword line: ``(line, value)`` -> the request. It
#: raises ``ValueError`` with a reason (an English message of the catalog,
#: e.g. ``N_("no language after the keyword")``) for a value it cannot read.
Build = Callable[[str, str], Request]


@dataclass(frozen=True, slots=True)
class KeywordCommand:
    """A command the grammar reads from a keyword line (see module doc).

    ``spellings`` maps a language ('de', 'en', or None for both) to the
    keyword's spellings in lower case; a spelling's language counts as the
    language of the mail. ``example`` is the right form of the line (an
    English message of the catalog, shown in the reader's language), and
    ``missing`` the reason when a required value is missing.
    """

    name: str
    spellings: Mapping[str | None, tuple[str, ...]]
    value: Value
    build: Build
    example: str = ""
    missing: str = ""

    def __post_init__(self) -> None:
        if self.value is Value.REQUIRED and not (self.example and self.missing):
            raise ValueError(f"command {self.name!r} takes a value: it needs an example "
                             "and the reason for a missing value")


@dataclass(frozen=True, slots=True)
class Vocabulary:
    """The grammar's keywords: the core ones and ``commands`` (module doc)."""

    commands: tuple[KeywordCommand, ...] = ()
    #: spelling -> (command name, language or None)
    spelling: dict[str, tuple[str, str | None]] = field(init=False, repr=False)
    #: spelling -> command name (what the typo correction searches)
    command_of: dict[str, str] = field(init=False, repr=False)
    keyword: re.Pattern[str] = field(init=False, repr=False)
    _by_name: dict[str, KeywordCommand] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        table: list[tuple[str, str | None, tuple[str, ...]]] = list(CORE_KEYWORDS)
        by_name: dict[str, KeywordCommand] = {}
        core_names = {name for name, _, _ in CORE_KEYWORDS}
        for command in self.commands:
            if command.name in core_names or command.name in by_name:
                raise ValueError(f"two commands are called {command.name!r}")
            by_name[command.name] = command
            table.extend((command.name, language, spellings)
                         for language, spellings in command.spellings.items())
        spelling: dict[str, tuple[str, str | None]] = {}
        for name, language, spellings in table:
            for written in spellings:
                if written != written.lower() or written.strip() != written:
                    raise ValueError(f"keyword {written!r} of {name!r} must be lower case")
                other = spelling.get(written)
                if other is not None and other[0] != name:
                    raise ValueError(f"the keyword {written!r} belongs to both "
                                     f"{other[0]!r} and {name!r}")
                spelling[written] = (name, language)
        object.__setattr__(self, "spelling", spelling)
        object.__setattr__(self, "command_of", {s: c for s, (c, _) in spelling.items()})
        object.__setattr__(self, "keyword", _keyword_pattern(spelling))
        object.__setattr__(self, "_by_name", by_name)

    def command(self, name: str) -> KeywordCommand | None:
        """The command called ``name``; None for a core keyword of the grammar."""
        return self._by_name.get(name)

    def lookup(self, written: str) -> tuple[str, str | None]:
        """(command, language) of a keyword as matched (any case, any spaces)."""
        return self.spelling[" ".join(written.lower().split())]

    def display(self, spelling: str) -> str:
        """How a keyword is shown in a reply: ``aufstellung`` -> ``Aufstellung``,
        ``neues team`` -> ``Neues Team``, ``short name`` -> ``Short name``."""
        _, language = self.spelling[spelling]
        if language == "de":
            return " ".join(w[:1].upper() + w[1:] for w in spelling.split(" "))
        return spelling[:1].upper() + spelling[1:]

    def with_commands(self, commands: Iterable[KeywordCommand]) -> Vocabulary:
        return Vocabulary((*self.commands, *commands))


def _keyword_pattern(spelling: Mapping[str, object]) -> re.Pattern[str]:
    """A keyword at the start of a line, then its separator and the rest.
    Longer spellings first; a keyword is a whole word (``Statusbericht`` is
    not ``Status``); the separator is a colon or ``=`` (with spaces), spaces,
    or nothing when only ``?``, ``!`` or ``.`` follow."""
    return re.compile(
        r"^(?P<kw>"
        + "|".join(
            re.escape(s).replace(r"\ ", r"\s+")
            for s in sorted(spelling, key=len, reverse=True)
        )
        + r")(?![\w-])(?P<sep>\s*[:=]\s*|\s+|(?=[?!.]*$))(?P<rest>.*)$",
        re.IGNORECASE,
    )


#: The grammar's own keywords only (a mail read without any command).
CORE = Vocabulary()
