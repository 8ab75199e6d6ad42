"""One error root: every error the bot defines derives from ``TurnitedError``,
and the errors about bad input stay ``ValueError``s (callers catch those)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import bot
from bot.config.errors import ConfigError
from bot.errors import TurnitedError
from bot.league.errors import LeagueError
from bot.mail.address_check import ComposeError
from bot.mail.transport import TransportConfigError, TransportError
from bot.render.errors import RenderError
from bot.rules.errors import RulesError
from bot.storage.errors import StorageError


def project_errors() -> list[type[BaseException]]:
    """Every exception class defined in a module of ``bot``."""
    found: dict[str, type[BaseException]] = {}
    for info in pkgutil.walk_packages(bot.__path__, "bot."):
        if info.name == "bot.__main__":
            continue
        module = importlib.import_module(info.name)
        for _, obj in inspect.getmembers(module, inspect.isclass):
            if issubclass(obj, BaseException) and obj.__module__ == info.name:
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return [found[k] for k in sorted(found)]


def test_the_project_defines_errors() -> None:
    names = {e.__name__ for e in project_errors()}
    assert {"RulesError", "LeagueError", "ConfigError", "StorageError", "TransportError",
            "RenderError", "CliError"} <= names


@pytest.mark.parametrize("error", project_errors(), ids=lambda e: e.__name__)
def test_every_error_derives_from_the_root(error: type[BaseException]) -> None:
    assert issubclass(error, TurnitedError), error.__mro__


@pytest.mark.parametrize(
    "error", [RulesError, LeagueError, ConfigError, RenderError, ComposeError,
              TransportConfigError],
)
def test_input_errors_remain_value_errors(error: type[Exception]) -> None:
    assert issubclass(error, ValueError)


def test_transport_errors_remain_os_errors() -> None:
    err = TransportError("imap.example.org:993 refused the connection")
    assert isinstance(err, OSError) and isinstance(err, TurnitedError)
    assert issubclass(StorageError, RuntimeError)
