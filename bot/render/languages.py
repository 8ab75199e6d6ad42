"""The languages players read: German (the default) and English.

Its own small module so that the message catalogs (``bot.render.i18n``) and
the number and date formats (``bot.render.formatting``, which takes its
words from those catalogs) can both check a language without importing
each other.
"""

from __future__ import annotations

from bot.render.errors import UnknownLanguageError

LANGUAGES: tuple[str, ...] = ("de", "en")
DEFAULT_LANGUAGE = "de"


def check_language(language: object) -> str:
    """Return ``language`` if templates exist for it, else raise."""
    if language not in LANGUAGES:
        raise UnknownLanguageError(language, LANGUAGES)
    return language
