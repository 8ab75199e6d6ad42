"""The message catalogs: the words of every mail, in German and English.

Each template exists once (``templates/mail/``); its sentences stand in
``{% trans %}`` blocks and ``_()`` calls of Jinja's i18n extension, written
in English, which is the catalogs' source language (the message ids). The
German words are in the Babel catalog ``bot/locale/de/LC_MESSAGES/
messages.po``; ``messages.pot`` beside it is the extracted template
(``scripts/i18n`` extracts and updates both with Babel's ``pybabel``).

The ``.po`` file is the only form shipped: it is compiled with Babel the
first time a language is asked for, so a checkout, an editable install and
a wheel read the same file. The compiled form is kept in the user's cache
(``$XDG_CACHE_HOME/turnited``, else ``~/.cache/turnited``) under the
SHA-256 of the ``.po`` file's bytes, so a command that only needs a few
words (the console starts in a tenth of a second) reads it with the
standard library instead of loading Babel and compiling 700 messages; it
cannot go stale (another catalog has another name), and a cache that
cannot be written or read is simply not used. An entry marked
fuzzy or left empty is not compiled (gettext then shows the English id);
``tests/render/test_catalogs.py`` fails on either, and on a message of a
template that the catalog lacks.
"""

from __future__ import annotations

import gettext
import hashlib
import os
import tempfile
from functools import cache
from io import BytesIO
from pathlib import Path

from bot.render.languages import check_language

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
    source = path.read_bytes()
    cached = _cache_file(language, source)
    if cached is not None:
        try:
            return gettext.GNUTranslations(BytesIO(cached.read_bytes()))
        except Exception:  # missing, unreadable or damaged: compile it again
            pass
    compiled = compile_catalog(source, language)
    if cached is not None:
        _keep(cached, compiled)
    return gettext.GNUTranslations(BytesIO(compiled))


def compile_catalog(source: bytes, language: str) -> bytes:
    """The ``.mo`` bytes of the ``.po`` text ``source`` (fuzzy entries left out)."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    catalog = read_po(BytesIO(source), locale=language, domain=DOMAIN)
    compiled = BytesIO()
    write_mo(compiled, catalog, use_fuzzy=False)
    return compiled.getvalue()


def cache_dir() -> Path:
    """Where compiled catalogs are kept (``$XDG_CACHE_HOME/turnited``)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "turnited"


def _cache_file(language: str, source: bytes) -> Path | None:
    try:
        folder = cache_dir()
    except RuntimeError:  # no home directory
        return None
    return folder / f"{DOMAIN}-{language}-{hashlib.sha256(source).hexdigest()[:32]}.mo"


def _keep(path: Path, compiled: bytes) -> None:
    """Store ``compiled`` at ``path`` (whole or not at all); a cache that
    cannot be written is not used."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(compiled)
        os.replace(tmp, path)
    except OSError:
        Path(tmp).unlink(missing_ok=True)


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


#: The modules whose messages are in the catalog, relative to ``bot/`` (glob
#: patterns): the reasons of an unreadable line, which the rules core words in
#: English (marked ``N_``), the units of a duration, everything the console
#: says (``_``, ``ngettext`` of ``bot.render.words.Words``; errors marked
#: ``N_``), the grammar's examples, the connection check's lines, the worker's notices, and the
#: commands' examples, reasons and digest sentences.
PYTHON_SOURCES: tuple[str, ...] = (
    "render/notices.py",
    "render/reasons.py",
    "mail/keywords.py",
    "render/words.py",
    "render/connection_words.py",
    "render/formatting.py",
    "config/errors.py",
    "worker/notices.py",
    "cli/*.py",
    "demo/runner.py",
    "league/service.py",
    "schedule.py",
    "service/broadcast.py",
    "service/commands/*.py",
    "service/console.py",
    "service/deadlines.py",
    "service/health.py",
    "service/preview.py",
    "service/remind.py",
    "service/roster.py",
    "service/rollback.py",
    "service/status.py",
    "service/webroot.py",
    "storage/backup.py",
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
                    key = message_key(message, context)
                    found.setdefault(key, (message, []))[1].append(source)
    return found


def catalog_problems(language: str, templates_dir: Path,
                     locale_dir: Path | None = None) -> list[str]:
    """What is wrong with the catalog of ``language`` against the templates:
    a message with no entry, an entry left empty or marked fuzzy, a
    translation whose ``%(name)s`` placeholders differ from the message's,
    and an entry no template uses any more. Empty when the catalog is
    complete. The source language (English) has nothing to check."""
    import re

    from babel.messages.pofile import read_po

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
