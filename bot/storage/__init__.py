"""SQLite storage: one database file, ordered migrations, one ``transaction()`` helper.

``open_database(state_dir)`` is the entry point; the schema lives in
``bot.storage.migrations``; ``bot.storage.values`` converts exact numbers
and times to and from their stored text form.
"""

from bot.storage.db import DATABASE_FILE, Database, StorageError, open_database, savepoint

__all__ = ["DATABASE_FILE", "Database", "StorageError", "open_database", "savepoint"]
