"""The command line's own error: a user error said as one line, exit status 2."""

from __future__ import annotations

from bot.errors import TurnitedError


class CliError(TurnitedError):
    """A user error the CLI reports as one line with exit status 2.

    ``message`` is a catalog message (English, ``%(name)s`` placeholders,
    marked with ``N_``), ``values`` fill it in; the console says it in the
    game's language."""

    def __init__(self, message: str, /, **values: object) -> None:
        self.words = (message, values)
        english = {k: v.strerror or v if isinstance(v, OSError) else v
                   for k, v in values.items()}
        super().__init__(message % english if values else message)


__all__ = ["CliError"]
