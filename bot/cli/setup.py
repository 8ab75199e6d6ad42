"""What a console command works on: the configuration, the state directory,
the language of its output, and the service ``Context`` of the use cases.

- The configuration is the ``--config`` file; without ``--config`` it is
  ``./config.yaml`` if that exists, else the defaults (every key has one)
  for the commands that only read or inspect a state. A ``--config`` file
  that does not exist is an error that names it, and so is a missing
  configuration for the commands that run the game (``run``, ``poll``,
  ``send``, ``evaluate``, moving a deadline, mailing managers).
- The state directory is ``--state DIR`` if given, else the configuration's
  ``state_dir``.
- The language is ``--lang`` if given, else ``game.language`` (German
  without a configuration); ``words(args)`` says the catalog's messages in it.

Read-only commands and those that only queue mail load the configuration
without the mail password variables: nothing here connects to a server
(queued mail waits in the outbox for the worker or ``turnited send``).
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from bot.cli.errors import CliError
from bot.errors import N_, TurnitedError

if TYPE_CHECKING:  # imported when used: the CLI starts fast
    from bot.config import Config
    from bot.render.words import Words
    from bot.service.context import Context
    from bot.storage.db import Database

#: The configuration read when ``--config`` is not given (if it exists).
DEFAULT_CONFIG = "config.yaml"


def utcnow() -> datetime:
    return datetime.now(UTC)


def config_path(args: argparse.Namespace) -> Path:
    """The configuration file the command reads (it may not exist)."""
    return Path(getattr(args, "config", None) or DEFAULT_CONFIG)


def has_config(args: argparse.Namespace) -> bool:
    """Whether there is a configuration file to read (``--config`` or ``./config.yaml``)."""
    return config_path(args).is_file()


def load(args: argparse.Namespace, *, connects: bool = False, required: bool = False
         ) -> Config:
    """The configuration of the command, with ``--state`` applied. A command
    that connects to the mail servers passes ``connects=True`` (then the
    password variables must be set), one that runs the game ``required=True``."""
    cached: Config | None = getattr(args, "_loaded_config", None)
    if cached is not None and not connects:
        return cached
    from bot.config import Config, config_file, load_config

    path = config_path(args)
    named = config_file(getattr(args, "config", None))  # a named file that is not there: said
    if named is not None:
        config = load_config(named, check_secrets=connects)
    elif required or connects:
        raise CliError(N_("no configuration at %(path)s: create one with turnited init DIR "
                          "or give --config PATH"), path=str(path))
    else:
        config = Config()
    state = getattr(args, "state", None)
    if state:
        config = dataclasses.replace(config, state_dir=Path(state).absolute())
    args._loaded_config = config
    return config


def language(args: argparse.Namespace, config: Config | None = None) -> str:
    """``--lang``, else the configuration's ``game.language`` (read only if
    there is a configuration file: a calculator in a folder without one
    starts without loading the configuration), else German."""
    chosen = getattr(args, "lang", None)
    if chosen:
        return str(chosen)
    if config is None and getattr(args, "config", None) is None and not has_config(args):
        from bot.render.formatting import DEFAULT_LANGUAGE

        return DEFAULT_LANGUAGE
    return (config or load(args)).game.language


def words(args: argparse.Namespace, config: Config | None = None, *,
          fallback: bool = False) -> Words:
    """The catalog's words in the command's language and time zone (the
    configuration's, if one was read). ``fallback``: when the configuration
    cannot be read (the command failed on it), ``--lang`` or German."""
    from bot.render.words import Words

    try:
        lang = language(args, config)
    except (TurnitedError, ValueError, OSError):
        if not fallback:
            raise
        return Words(getattr(args, "lang", None) or "de")
    loaded = config or getattr(args, "_loaded_config", None)
    return Words(lang, loaded.schedule.timezone if loaded else "UTC")


def open_db(config: Config) -> Database:
    """The existing league database of ``config.state_dir`` (a console command
    never creates one: a missing one is named)."""
    from bot.storage.db import DATABASE_FILE, open_existing

    path = config.state_dir / DATABASE_FILE
    if not path.is_file():
        raise CliError(N_("no league database at %(path)s: is the state directory right "
                          "(--state DIR)? The bot creates it when it starts."), path=str(path))
    return open_existing(path)


@contextmanager
def services(config: Config, *, clock: Callable[[], datetime] = utcnow
             ) -> Iterator[Context]:
    """The use cases' ``Context`` over the existing league database of
    ``config.state_dir`` (``StorageError`` if there is none); closed after."""
    from bot.wiring import service_context

    db = open_db(config)
    try:
        yield service_context(config, db, clock=clock)
    finally:
        db.close()


__all__ = ["DEFAULT_CONFIG", "config_path", "has_config", "language", "load", "open_db",
           "services",
           "utcnow", "words"]
