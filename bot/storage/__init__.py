"""SQLite storage: every SQL statement of the bot lives in this package.

``open_database(state_dir)`` is the entry point (it applies the migrations
of ``bot.storage.migrations``); ``Database.transaction()`` and
``savepoint()`` are the one transaction helper; ``StorageError`` says in one
line why a database cannot be used. One module per table group, each with
typed rows and the queries on them: ``managers``, ``teams``, ``rounds``,
``moves``, ``results`` (round_results, round_entries, wp_history),
``standings`` (the reads behind the WP/PSZ tables), ``ledger`` (inbound),
``outbox``, ``reminders``, ``bounces``; ``values`` converts exact numbers
and times to and from their stored text form.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.storage.db import DATABASE_FILE, Database, StorageError, open_database, savepoint

__all__ = ["DATABASE_FILE", "Database", "StorageError", "open_database", "savepoint"]


def __getattr__(name: str) -> Any:
    """The re-exported names, imported when first used (so that importing one
    module of the package, ``permissions`` say, does not load SQLite)."""
    if name not in __all__:
        raise AttributeError(f"module 'bot.storage' has no attribute {name!r}")
    value = getattr(importlib.import_module("bot.storage.db"), name)
    globals()[name] = value
    return value
