"""The command seam: every command a mail can carry, found through one registry.

Each module of this package declares its commands as ``COMMANDS``, a tuple
of ``Command`` (``base``): the request type, its handler, who may run it,
the keyword the grammar reads it by, and its notice codes. ``registry()``
collects them from every module here, so adding a command is:

1. a module here with the request type, its ``Command`` and its handler;
2. a template per notice code, ``templates/mail/notice/<code>.txt.j2``;
3. its words in the catalog (``scripts/i18n``, then the German entries);
4. a line in the help (``templates/shared/commands.j2``).

``runner.carry_out`` runs a mail's requests through it, checking who may run
each in one place; ``tests/service/test_command_seam.py`` fails for a request
type without a command or a code without a template.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable
from functools import cache

from bot.errors import TurnitedError
from bot.mail.vocabulary import Vocabulary
from bot.rules.requests import Request
from bot.service.commands.base import Access, Audience, Command, Session

#: Modules of this package that declare no commands.
_MACHINERY = frozenset({"base", "runner"})


class UnknownCommand(TurnitedError, LookupError):
    """A request type that no command declares (a programming error)."""


class Registry:
    """The commands, by request type and by audience (module doc)."""

    def __init__(self, commands: Iterable[Command[Request]]) -> None:
        self.commands: tuple[Command[Request], ...] = tuple(commands)
        self._by_type: dict[type[Request], Command[Request]] = {}
        for command in self.commands:
            if command.request in self._by_type:
                raise ValueError(f"{command.request.__name__} has two commands")
            self._by_type[command.request] = command
        self._vocabularies = {
            audience: Vocabulary(tuple(
                c.keyword for c in self.commands
                if c.keyword is not None and c.audience is audience
            ))
            for audience in Audience
        }

    def command_for(self, request: Request) -> Command[Request]:
        try:
            return self._by_type[type(request)]
        except KeyError:
            raise UnknownCommand(f"no command handles {type(request).__name__}") from None

    def vocabulary(self, audience: Audience = Audience.PLAYER) -> Vocabulary:
        """The keywords the grammar reads in a mail of ``audience``."""
        return self._vocabularies[audience]

    def codes(self) -> frozenset[str]:
        """The notice codes the commands declare beyond the league's."""
        return frozenset(code for c in self.commands for code in c.codes)

    def digest_sentences(self) -> dict[str, str]:
        """What the game master's digest says of each of those codes (catalog messages)."""
        return {code: sentence for c in self.commands for code, sentence in c.codes.items()}


def discover() -> list[Command[Request]]:
    """Every ``COMMANDS`` of the modules of this package, by module name."""
    found: list[Command[Request]] = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.name in _MACHINERY or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        found.extend(getattr(module, "COMMANDS", ()))
    return found


@cache
def registry() -> Registry:
    """The registry of every command of this package (made once per process)."""
    return Registry(discover())


__all__ = ["Access", "Audience", "Command", "Registry", "Session", "UnknownCommand", "registry"]
