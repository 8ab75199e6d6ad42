"""The words of everything the program says outside a mail template: the
console's output and errors, and the text of the game master's use cases'
results (the same text a mail reply can carry).

``Words(language, timezone)`` says a message of the Babel catalog (the one
of the mails, ``bot.render.i18n``) in ``language``: ``w._(message,
**values)``, its plural ``w.ngettext(singular, plural, count, **values)``
(``%(num)s`` is the count). Messages are English with ``%(name)s``
placeholders; ``scripts/i18n`` extracts the calls (their modules are listed
in ``bot.render.i18n.PYTHON_SOURCES``) and the German stands in the catalog.
Numbers and moments are written as the language writes them, with
``bot.render.formatting``: ``w.when(moment)`` is the newsletter's deadline
form in ``timezone``, an ``OSError`` value the system's reason in words.
``w.error(exc)`` says an error: its ``words`` (``bot.errors.TurnitedError``)
if it has them, else ``str(exc)``.
"""

from __future__ import annotations

import errno
from dataclasses import dataclass
from datetime import datetime

from bot.render.formatting import check_language, datetime_long, fixed, integer, psz, wp
from bot.render.i18n import translations

__all__ = ["Words"]


@dataclass(frozen=True, slots=True)
class Words:
    language: str
    #: The IANA time zone moments are shown in.
    timezone: str = "UTC"

    def __post_init__(self) -> None:
        check_language(self.language)

    def _(self, message: str, /, **values: object) -> str:
        """``message`` in the language, its ``%(name)s`` placeholders filled
        (a moment as ``when`` writes it)."""
        text = translations(self.language).gettext(message)
        return text % self._values(values) if values else text

    def ngettext(self, singular: str, plural: str, count: int, /, **values: object) -> str:
        """The singular or plural form for ``count`` (``%(num)s``) in the language."""
        text = translations(self.language).ngettext(singular, plural, count)
        return text % {"num": count, **self._values(values)}

    def _values(self, values: dict[str, object]) -> dict[str, object]:
        """Moments as ``when`` writes them, a system error as ``os_error`` says it."""
        return {k: self.when(v) if isinstance(v, datetime)
                else self.os_error(v) if isinstance(v, OSError) else v
                for k, v in values.items()}

    def os_error(self, exc: OSError) -> str:
        """Why the system refused a file, in the language (the common reasons;
        another one as the system says it)."""
        match exc.errno:
            case errno.ENOENT:
                return self._("no such file or directory")
            case errno.EACCES | errno.EPERM:
                return self._("permission denied")
            case errno.EISDIR:
                return self._("it is a directory")
            case errno.ENOTDIR:
                return self._("a part of the path is not a directory")
            case errno.ENOSPC:
                return self._("the disk is full")
            case errno.EROFS:
                return self._("the file system is read-only")
        return exc.strerror or str(exc)

    def error(self, exc: BaseException) -> str:
        """The error as one line in the language (its ``words``, else as it is)."""
        words = getattr(exc, "words", None)
        if words is None:
            return str(exc)
        message, values = words
        return self._(message, **values)

    def when(self, moment: datetime) -> str:
        """A moment with weekday, time and zone, as the newsletter writes a deadline."""
        return datetime_long(moment, self.timezone, self.language)

    def wp(self, value: object) -> str:
        return wp(value, self.language)

    def psz(self, value: object) -> str:
        return psz(value, self.language)

    def number(self, value: object, places: int = 0) -> str:
        """A number with ``places`` decimals (halves up), the language's decimal mark."""
        if places:
            return fixed(value, places, self.language)
        return integer(value, self.language)
