"""``ConfigError`` and the rules for which values are never shown.

A ``ConfigError`` names the dotted key (``mail.imap.port``), the value found
(secrets redacted) and what is allowed; all problems of a file travel in one
error (``others``). ``ConfigFileMissing`` is a named configuration file that
does not exist; the console says it in the game master's language (its words
are in the message catalog).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bot.errors import N_, TurnitedError

#: Shown instead of a secret value.
REDACTED = "'***'"
#: Key names whose values are never shown.
_SECRET_NAMES = ("password", "passwd", "pwd", "secret", "token")
#: Word parts of unknown keys whose values are not shown (misspelt secrets).
_SECRET_WORDS = ("pass", "secret", "token", "pwd")



#: A configuration file named with ``--config`` that is not there.
MISSING_FILE = N_("this configuration file does not exist: %(path)s (create one with "
                  "`turnited init DIR`, or name the right file with --config PATH)")

class _Marker:
    def __init__(self, text: str) -> None:
        self._text = text

    def __repr__(self) -> str:
        return self._text


#: The value of a ConfigError about a key that is not there at all.
MISSING: Any = _Marker("<missing>")
#: The value of a ConfigError whose real value is a secret.
HIDDEN: Any = _Marker(REDACTED)


class ConfigError(TurnitedError, ValueError):
    """A configuration value that is not allowed.

    ``key`` is the dotted key (``mail.imap.port``), ``value`` the value found
    (``MISSING`` if the key is absent), ``allowed`` a description of what is
    allowed. When a file has several problems, the first one is raised and
    the others are in ``others``; ``str()`` lists them all.
    """

    def __init__(
        self,
        key: str,
        value: Any,
        allowed: str,
        *,
        reason: str | None = None,
        source: Path | str | None = None,
    ) -> None:
        self.key = key
        self.value = value
        self.allowed = allowed
        self.reason = reason
        self.source = source
        self.others: tuple[ConfigError, ...] = ()
        super().__init__(key, allowed)

    @property
    def secret(self) -> bool:
        """Whether the value must not be shown."""
        return is_secret_key(self.key)

    def describe(self) -> str:
        """This one problem as a sentence (without the file name)."""
        if self.value is MISSING:
            head = f"{self.key} is missing"
        else:
            shown = REDACTED if self.secret else show(self.value)
            head = f"{self.key} = {shown} is invalid"
        if self.reason:
            head += f": {self.reason}"
        return f"{head} (allowed: {self.allowed})"

    def __str__(self) -> str:
        where = f"configuration {self.source}: " if self.source else "configuration: "
        lines = [where + self.describe()]
        if self.others:
            lines[0] += f" (and {len(self.others)} more problem(s))"
            lines.extend(f"  - {other.describe()}" for other in self.others)
        return "\n".join(lines)


class ConfigFileMissing(ConfigError):
    """The configuration file that was named (``--config``) does not exist."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        super().__init__("(file)", str(path), "an existing YAML file", reason="no such file")
        self.words = (MISSING_FILE, {"path": str(self.path)})

    def describe(self) -> str:
        return MISSING_FILE % {"path": self.path}

    def __str__(self) -> str:
        return self.describe()



def is_secret_key(key: str) -> bool:
    """True for keys like ``mail.smtp.password`` whose values are never shown.

    ``password_env`` names a variable, not a secret, and is shown; so is
    the switch ``auth.passwords``.
    """
    last = key.rsplit(".", 1)[-1].lower()
    return last in _SECRET_NAMES or last.endswith(tuple("_" + n for n in _SECRET_NAMES))


def looks_secret(name: str) -> bool:
    """For unknown keys: anything that might be a misspelt secret."""
    lowered = name.lower()
    return is_secret_key(name) or (
        not lowered.endswith("_env") and any(w in lowered for w in _SECRET_WORDS)
    )


def show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."

