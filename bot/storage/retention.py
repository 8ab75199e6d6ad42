"""What the retention removes, and the record of each run (issue 22).

Two things are kept only for a while (``retention`` in the
configuration; ``bot.service.retention`` runs it after each evaluation):

- the spool file of a mail received before the cutoff: its ledger row stays
  (sender, subject, SHA-256, how it was handled) and says when the file went
  (``inbound.spool_pruned_at``); a mail still to be tried again keeps its file;
- the outbox row of a mail delivered (or given up) before the cutoff, except
  the newest row of each kind and round: that one still tells
  ``outbox.unqueued_rounds`` that the round's newsletter (digest, reminder)
  was queued, so no old round is ever mailed again.

Each run is recorded in ``retention_runs`` (when, the periods, what went), so
``turnited check`` can say what is kept and when it was last applied.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from bot.storage.values import time_from_db, time_to_db

RETENTION_V12 = """
ALTER TABLE inbound ADD COLUMN spool_pruned_at TEXT;   -- the spool file was removed then
CREATE INDEX inbound_spooled ON inbound (received_at) WHERE spool_pruned_at IS NULL;
CREATE TABLE retention_runs (
    id          INTEGER PRIMARY KEY,
    at          TEXT NOT NULL,
    spool_days  INTEGER CHECK (spool_days IS NULL OR spool_days >= 1),   -- NULL: for ever
    outbox_days INTEGER CHECK (outbox_days IS NULL OR outbox_days >= 1),
    spool_files INTEGER NOT NULL CHECK (spool_files >= 0),
    outbox_rows INTEGER NOT NULL CHECK (outbox_rows >= 0)
);
"""


def spool_files_before(conn: sqlite3.Connection, cutoff: datetime) -> list[tuple[int, str]]:
    """(ledger id, spool path) of the mails received before ``cutoff`` whose
    file is still kept, but not of a mail waiting to be tried again (index
    ``inbound_spooled``: rows pruned before are not read again)."""
    rows = conn.execute(
        "SELECT id, spool_path FROM inbound WHERE spool_pruned_at IS NULL AND received_at < ?"
        " AND code IS NOT 'retry' ORDER BY received_at", (time_to_db(cutoff),),
    ).fetchall()
    return [(int(row_id), str(path)) for row_id, path in rows]


def mark_spool_pruned(conn: sqlite3.Connection, ids: Sequence[int], now: datetime) -> None:
    """Record that the spool files of these ledger rows are gone."""
    conn.executemany("UPDATE inbound SET spool_pruned_at = ? WHERE id = ?",
                     [(time_to_db(now), row_id) for row_id in ids])


def prune_outbox(conn: sqlite3.Connection, cutoff: datetime) -> int:
    """Delete the outbox rows delivered or given up before ``cutoff`` (so a
    daily sending budget still sees the last day's), but the newest row of
    each kind and round; returns how many."""
    return conn.execute(
        "DELETE FROM outbox WHERE state IN ('sent', 'failed')"
        " AND COALESCE(sent_at, failed_at, created_at) < ?"
        " AND NOT (round IS NOT NULL AND id = (SELECT MAX(o.id) FROM outbox o"
        " WHERE o.kind = outbox.kind AND o.round = outbox.round))",
        (time_to_db(cutoff),),
    ).rowcount


@dataclass(frozen=True, slots=True)
class RetentionRun:
    """One application of the retention: when, the periods (None: kept for
    ever), how many spool files and outbox rows went."""

    at: datetime
    spool_days: int | None
    outbox_days: int | None
    spool_files: int
    outbox_rows: int


def record_run(conn: sqlite3.Connection, run: RetentionRun) -> None:
    conn.execute(
        "INSERT INTO retention_runs (at, spool_days, outbox_days, spool_files, outbox_rows)"
        " VALUES (?, ?, ?, ?, ?)",
        (time_to_db(run.at), run.spool_days, run.outbox_days, run.spool_files, run.outbox_rows),
    )


def last_run(conn: sqlite3.Connection) -> RetentionRun | None:
    """The latest run, if the retention was ever applied (None also for a
    database of a schema version before 10, which ``check`` reads unchanged)."""
    if conn.execute("SELECT 1 FROM sqlite_schema WHERE type = 'table'"
                    " AND name = 'retention_runs'").fetchone() is None:
        return None
    row = conn.execute(
        "SELECT at, spool_days, outbox_days, spool_files, outbox_rows FROM retention_runs"
        " ORDER BY id DESC LIMIT 1"
    ).fetchone()
    if row is None:
        return None
    at = time_from_db(row[0])
    assert at is not None  # NOT NULL
    return RetentionRun(at, *row[1:])
