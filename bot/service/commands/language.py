"""``Sprache: Englisch`` / ``Language: German`` (RULES.md §12): the manager's
language from now on.

Replies, newsletters and reminders are then in that language, whatever
language his later mails are written in (without this command they follow
the language of his latest mail that showed one; ``runner``). The reply to
this very mail is in the chosen language already. Known names: German
``Deutsch``/``German``/``de``, English ``Englisch``/``English``/``en`` (any
case, ``auf``/``in`` before them). Any other word is an error of the line
that names the two: the mail changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.errors import N_
from bot.league.outcome import Code
from bot.mail.vocabulary import KeywordCommand, Value
from bot.rules.requests import Request
from bot.service.commands.base import Access, Command, Session
from bot.storage import managers as manager_rows

LANGUAGE_SET = "language_set"

#: What a player may write for each language, in lower case.
NAMES = {
    "de": ("deutsch", "german", "de", "ger", "deu"),
    "en": ("englisch", "english", "en", "eng"),
}
_LANGUAGE_OF = {name: code for code, names in NAMES.items() for name in names}
#: Why a value is no language (the reply shows it in the reader's language).
UNKNOWN = N_("unknown language; write German (Deutsch) or English (Englisch)")


@dataclass(frozen=True, slots=True)
class ChooseLanguage(Request):
    """The manager's language from now on: 'de' or 'en'."""

    language: str


def language_code(value: str) -> str:
    """'de' or 'en' for what a player wrote (``Englisch``, ``in English``, ``EN.``);
    ``ValueError`` naming the two languages otherwise."""
    words = value.casefold().strip(" .!-–—:=").split()  # "Language - de" too (RULES.md §11)
    if len(words) == 2 and words[0] in ("auf", "in"):
        words = words[1:]
    if len(words) != 1 or words[0] not in _LANGUAGE_OF:
        raise ValueError(UNKNOWN)
    return _LANGUAGE_OF[words[0]]


def choose_language(s: Session, request: ChooseLanguage) -> None:
    s.language = request.language  # the reply's already
    if s.manager is None:  # nothing to store for a stranger: how to play, in his language
        s.note(Code.NOT_REGISTERED, address=s.address)
        return
    manager_rows.choose_language(s.conn, s.manager.id, request.language, s.now)
    s.note(LANGUAGE_SET, language=request.language)


COMMANDS = (
    Command(
        ChooseLanguage, choose_language, Access.MANAGER,
        codes={LANGUAGE_SET: N_("Language chosen.")},
        keyword=KeywordCommand(
            "language", {"de": ("sprache",), "en": ("language",)}, Value.REQUIRED,
            lambda line, value: ChooseLanguage(line, language_code(value)),
            example=N_("Language: English"), missing=N_("no language after the keyword"),
        ),
    ),
)
