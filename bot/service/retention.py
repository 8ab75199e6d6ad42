"""The retention use case: what the state keeps only for a while goes (issue 22).

``apply_retention`` runs after each evaluation (``App.evaluate_due``, after
the newsletters and the digest are queued, so everything it removes was
reported first). With ``spool_days`` it removes the spool files of mails
received more than that many days ago (their ledger rows stay and say so);
with ``outbox_days`` the outbox rows of mail delivered or given up that long
ago (``bot.storage.retention`` keeps the newest row of each kind and round).
None keeps that part for ever. Each run is recorded, so ``turnited check``
says what is kept and when it was last applied.

Nothing ``replay --all`` needs is touched: a round's stored inputs, seed and
report stay for ever, as do the moves, entries, WP history and the ledger.
A crash between removing files and recording it is harmless: the next run
finds those rows again and records them (a file already gone is fine).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from bot.storage import retention
from bot.storage.db import Database
from bot.storage.retention import RetentionRun


@dataclass(frozen=True, slots=True)
class Pruned:
    """What one run removed."""

    spool_files: int
    outbox_rows: int


def apply_retention(
    db: Database, spool_dir: Path, *, spool_days: int | None, outbox_days: int | None,
    now: datetime,
) -> Pruned:
    """Remove what is older than its period (see the module doc) and record the run."""
    files = 0
    if spool_days is not None:
        with db.read() as conn:
            due = retention.spool_files_before(conn, now - timedelta(days=spool_days))
        root = spool_dir.resolve()
        for _row_id, relative in due:
            path = (spool_dir / relative).resolve()
            if path.parent.parent == root:  # spool/YYYY-MM/<sha256>.eml.gz, nothing else
                path.unlink(missing_ok=True)
        _remove_empty_months(spool_dir, before=now - timedelta(days=spool_days))
        files = len(due)
    with db.transaction() as conn:
        if files:
            retention.mark_spool_pruned(conn, [row_id for row_id, _ in due], now)
        rows = (retention.prune_outbox(conn, now - timedelta(days=outbox_days))
                if outbox_days is not None else 0)
        retention.record_run(conn, RetentionRun(now, spool_days, outbox_days, files, rows))
    return Pruned(files, rows)


def _remove_empty_months(spool_dir: Path, *, before: datetime) -> None:
    """Drop the empty month folders of months before ``before``'s (never the
    spool itself, nor a month the ingest may still write to)."""
    if not spool_dir.is_dir():
        return
    last = before.strftime("%Y-%m")
    for month in spool_dir.iterdir():
        if month.is_dir() and month.name < last and not any(month.iterdir()):
            month.rmdir()


__all__ = ["Pruned", "apply_retention"]
