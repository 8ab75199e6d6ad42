"""The message catalogs: the words of every mail, in German and English.

Each template exists once (``templates/mail/``); its sentences stand in
``{% trans %}`` blocks and ``_()`` calls of Jinja's i18n extension, written
in English, which is the catalogs' source language (the message ids). The
German words are in the Babel catalog ``bot/locale/de/LC_MESSAGES/
messages.po``; ``messages.pot`` beside it is the extracted template
(``scripts/i18n`` extracts and updates both with Babel's ``pybabel``).

The ``.po`` file is the only form kept: it is compiled in memory with
Babel the first time a language is asked for (about 30 ms for the whole
catalog, once per process), so a checkout, an editable install and a wheel
read the same file and no compiled ``.mo`` can go stale. An entry marked
fuzzy or left empty is not compiled (gettext then shows the English id);
``tests/render/test_catalogs.py`` fails on either, and on a message of a
template that the catalog lacks.
"""

from __future__ import annotations

import gettext
from functools import cache
from io import BytesIO
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from bot.render.formatting import check_language

#: The catalogs shipped with the bot (inside the package, so a wheel has them).
LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"
#: The one catalog domain.
DOMAIN = "messages"
#: The language the templates are written in: it needs no catalog.
SOURCE_LANGUAGE = "en"


def catalog_path(language: str, locale_dir: Path | None = None) -> Path:
    """The ``.po`` file of ``language``."""
    root = locale_dir if locale_dir is not None else LOCALE_DIR
    return root / language / "LC_MESSAGES" / f"{DOMAIN}.po"


@cache
def translations(language: str, locale_dir: Path | None = None) -> gettext.NullTranslations:
    """The gettext translations of ``language`` (``de`` or ``en``), compiled
    once per process from its ``.po`` file. English, the source language,
    gets ``NullTranslations`` (the ids themselves, with English plurals).
    Raises ``FileNotFoundError`` naming the file if a catalog is missing."""
    language = check_language(language)
    if language == SOURCE_LANGUAGE:
        return gettext.NullTranslations()
    path = catalog_path(language, locale_dir)
    if not path.is_file():
        raise FileNotFoundError(
            f"the {language} message catalog is missing: {path}; "
            "reinstall the package (pip install turnited) or run from a full checkout"
        )
    with path.open("rb") as handle:
        catalog = read_po(handle, locale=language, domain=DOMAIN)
    compiled = BytesIO()
    write_mo(compiled, catalog, use_fuzzy=False)
    compiled.seek(0)
    return gettext.GNUTranslations(compiled)


#: How Babel reads the templates: the options of the bot's environment
#: (``bot.render.environment``), so extraction sees the very same messages.
JINJA_OPTIONS = {
    "extensions": "jinja2.ext.do,jinja2.ext.i18n",
    "trim_blocks": "true",
    "lstrip_blocks": "true",
    "trimmed": "true",
    "newstyle_gettext": "true",
    "silent": "false",
}

MessageId = str | tuple[str, ...] | list[str]
#: A message as the catalog keys it: its id (the singular of a plural) and
#: its context (``pgettext``), None for most.
MessageKey = tuple[str, str | None]


def message_key(message: MessageId, context: str | None = None) -> MessageKey:
    """The catalog's key of an extracted message."""
    return (message if isinstance(message, str) else message[0]), context


#: The modules that mark messages with ``N_`` (the reasons of an unreadable
#: line, which the rules core words in English; the examples of a keyword
#: line, which a reply shows in the mail's language), relative to ``bot/``;
#: a pattern stands for every module it matches (``babel.cfg`` names the same).
PYTHON_SOURCES: tuple[str, ...] = (
    "render/reasons.py", "mail/keywords.py", "service/commands/*.py",
)


def template_messages(templates_dir: Path) -> dict[MessageKey, tuple[MessageId, list[str]]]:
    """Every message of the templates under ``templates_dir`` and of
    ``PYTHON_SOURCES``, as Babel's extractor reads them: by catalog key, the
    message (with its plural) and the files it stands in."""
    from babel.messages.extract import extract, extract_from_dir

    found: dict[MessageKey, tuple[MessageId, list[str]]] = {}
    for filename, _lineno, message, _comments, context in extract_from_dir(
        str(templates_dir),
        method_map=[("**.j2", "jinja2")],
        options_map={"**.j2": JINJA_OPTIONS},
    ):
        found.setdefault(message_key(message, context), (message, []))[1].append(filename)
    package = Path(__file__).resolve().parent.parent
    for pattern in PYTHON_SOURCES:
        for path in sorted(package.glob(pattern)):
            source = path.relative_to(package).as_posix()
            with path.open("rb") as handle:
                for _lineno, message, _comments, context in extract("python", handle):
                    found.setdefault(message_key(message, context),
                                     (message, []))[1].append(source)
    return found


def catalog_problems(language: str, templates_dir: Path,
                     locale_dir: Path | None = None) -> list[str]:
    """What is wrong with the catalog of ``language`` against the templates:
    a message with no entry, an entry left empty or marked fuzzy, a
    translation whose ``%(name)s`` placeholders differ from the message's,
    and an entry no template uses any more. Empty when the catalog is
    complete. The source language (English) has nothing to check."""
    import re

    language = check_language(language)
    if language == SOURCE_LANGUAGE:
        return []
    placeholder = re.compile(r"%\((\w+)\)s")
    with catalog_path(language, locale_dir).open("rb") as handle:
        catalog = read_po(handle, locale=language, domain=DOMAIN)
    used = template_messages(templates_dir)
    problems: list[str] = []
    for (key, context), (message, where) in used.items():
        entry = catalog.get(key, context=context)
        shown = (f"{key!r}" + (f" (context {context!r})" if context else "")
                 + f" ({', '.join(sorted(set(where)))})")
        if entry is None:
            problems.append(f"no {language} translation of {shown}")
            continue
        strings: tuple[str, ...] = (
            tuple(entry.string) if isinstance(entry.string, (tuple, list))
            else (entry.string or "",))
        if entry.fuzzy:
            problems.append(f"the {language} translation of {shown} is marked fuzzy")
        if not all(strings):
            problems.append(f"the {language} translation of {shown} is empty")
        ids = (message,) if isinstance(message, str) else tuple(message)
        wanted = {name for text in ids for name in placeholder.findall(text)}
        for text in strings:
            if text and set(placeholder.findall(text)) != wanted:
                problems.append(
                    f"the {language} translation of {shown} has the placeholders "
                    f"{sorted(set(placeholder.findall(text)))}, the message {sorted(wanted)}")
    for entry in catalog:
        if entry.id and message_key(entry.id, entry.context) not in used:
            problems.append(f"the {language} catalog has an entry no template uses: {entry.id!r}")
    return problems
