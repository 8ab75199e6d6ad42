"""The walk over one mapping of the YAML tree.

A ``Section`` hands out its known keys through parsers, collects every
problem instead of stopping at the first, and at ``finish()`` reports what
is left over as unknown keys (with a "did you mean" for near misses).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any, TypeVar

from bot.config.errors import HIDDEN, MISSING, ConfigError, is_secret_key, looks_secret
from bot.config.parsers import Parser

T = TypeVar("T")


class Section:
    """One mapping of the YAML tree: known keys are taken, problems collected,
    and whatever is left over at ``finish()`` is an unknown key."""

    def __init__(self, data: Any, prefix: str, problems: list[ConfigError]) -> None:
        self.prefix = prefix
        self.problems = problems
        self.known: list[str] = []
        if data is None:
            data = {}
        if not isinstance(data, Mapping):
            problems.append(
                ConfigError(prefix or "(top level)", data, "a mapping of 'key: value' lines")
            )
            data = {}
        self.data: Mapping[Any, Any] = data

    def key(self, name: str) -> str:
        return f"{self.prefix}.{name}" if self.prefix else name

    def has(self, name: str) -> bool:
        self.known.append(name)
        return name in self.data

    def get(self, name: str, parse: Parser[T], default: T) -> T:
        self.known.append(name)
        if name not in self.data:
            return default
        try:
            return parse(self.data[name], self.key(name))
        except ConfigError as exc:
            self.problems.append(exc)
            return default

    def raw(self, name: str) -> Any:
        self.known.append(name)
        return self.data.get(name, MISSING)

    def section(self, name: str) -> Section:
        self.known.append(name)
        return Section(self.data.get(name), self.key(name), self.problems)

    def fail(self, name: str, value: Any, allowed: str, reason: str | None = None) -> None:
        self.problems.append(ConfigError(self.key(name), value, allowed, reason=reason))

    def finish(self) -> None:
        for name, value in self.data.items():
            if name in self.known:
                continue
            key = self.key(str(name))
            close = difflib.get_close_matches(str(name), self.known, n=1, cutoff=0.5)
            reason = "unknown key" + (f"; did you mean {self.key(close[0])!r}?" if close else "")
            hide = looks_secret(str(name)) or bool(close and is_secret_key(close[0]))
            self.problems.append(
                ConfigError(
                    key,
                    HIDDEN if hide else value,
                    "the keys " + ", ".join(sorted(set(self.known))),
                    reason=reason,
                )
            )
