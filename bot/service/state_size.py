"""How big the state is, part by part, and what the retention keeps
(``turnited check``; docs/operations.md, "What the state keeps").

``state_size`` reads (never writes): the database's pages in use (its free
pages, which SQLite reuses, and the WAL are not growth), the spool and the
archive on disk, the number of evaluated rounds, and the last run of the
retention (``bot.service.retention``).
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from bot.storage import check, retention
from bot.storage.retention import RetentionRun


@dataclass(frozen=True, slots=True)
class StateSize:
    """Bytes of each part, the rounds they hold, the retention's last run."""

    rounds: int
    database: int
    spool: int
    archive: int
    retention: RetentionRun | None

    @property
    def total(self) -> int:
        return self.database + self.spool + self.archive

    @property
    def per_round(self) -> int:
        """The mean size of a round so far (all of it for a league that has
        not evaluated one yet)."""
        return self.total // max(self.rounds, 1)


def tree_bytes(path: Path) -> int:
    """The bytes of the files under ``path`` (0 when it does not exist)."""
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += (Path(root) / name).stat().st_size
            except FileNotFoundError:  # removed meanwhile (a spool temp file)
                continue
    return total


def state_size(state_dir: Path, conn: sqlite3.Connection) -> StateSize:
    usage = check.database_usage(conn)
    return StateSize(usage.rounds, usage.used_bytes, tree_bytes(state_dir / "spool"),
                     tree_bytes(state_dir / "archive"), retention.last_run(conn))


__all__ = ["StateSize", "state_size", "tree_bytes"]
