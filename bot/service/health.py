"""``turnited check``: is the state directory fit to run on for years?

``check_state(state_dir)`` reads (never writes) the state and returns one
``Finding`` per topic: the database's integrity and foreign keys, its schema
version, file permissions (everything private to the bot's user), free disk
space, spool files the ledger names but the disk lacks, the outbox
backlog, and the state's size per round with what the retention keeps
(``bot.service.state_size``; never a problem by itself). ``text(finding,
words)`` says a finding in the console's language (the message catalog,
``bot.render.words``).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from bot.mail.spool import spool_file_exists
from bot.service.state_size import StateSize, state_size
from bot.storage import check as queries
from bot.storage.db import DATABASE_FILE, Database, database_files
from bot.storage.errors import StorageError
from bot.storage.migrations import MIGRATIONS, current_version
from bot.storage.permissions import too_open
from bot.storage.values import time_from_db

if TYPE_CHECKING:
    from bot.render.words import Words

#: Below this much free space on the state's disk, ``check`` reports a problem.
MIN_FREE_BYTES = 100 * 2**20
#: A message waiting longer than this is a problem (the digest says the same).
STUCK_AFTER = timedelta(days=1)
#: How many example paths a finding names.
EXAMPLES = 5


@dataclass(frozen=True, slots=True)
class Finding:
    """One topic's verdict: ``code`` names the text, ``values`` fill it in."""

    topic: str
    ok: bool
    code: str
    values: dict[str, object] = field(default_factory=dict)

    def as_json(self, w: Words) -> dict[str, object]:
        return {"topic": self.topic, "ok": self.ok, "code": self.code,
                "values": self.values, "text": text(self, w)}


def topic(name: str, w: Words) -> str:
    """A finding's topic in words."""
    match name:
        case "database":
            return w._("database")
        case "foreign_keys":
            return w._("references")
        case "schema":
            return w._("schema")
        case "permissions":
            return w._("permissions")
        case "disk":
            return w._("disk")
        case "spool":
            return w._("spool")
        case "outbox":
            return w._("outbox")
        case "size":
            return w._("size")
    return name


def text(finding: Finding, w: Words) -> str:
    """The finding in words (the message catalog, in ``w``'s language)."""
    v = finding.values
    match finding.code:
        case "db_missing":
            return w._("no database at %(path)s: is the state directory right (--state)?",
                       path=v["path"])
        case "db_unusable":
            return w._("database unusable: %(error)s", error=v["error"])
        case "integrity_ok":
            return w._("database intact (integrity_check: ok)")
        case "integrity_bad":
            return w._("database damaged: %(problems)s; restore it from a backup",
                       problems=v["problems"])
        case "fk_ok":
            return w._("every reference valid (foreign_key_check)")
        case "fk_bad":
            return w.ngettext("%(num)s reference points nowhere: %(problems)s",
                              "%(num)s references point nowhere: %(problems)s",
                              int(str(v["count"])), problems=v["problems"])
        case "schema_ok":
            return w._("schema version %(version)s", version=v["version"])
        case "schema_old":
            return w._("schema version %(version)s, the current one is %(known)s: the bot "
                       "brings it up to date when it starts", version=v["version"],
                       known=v["known"])
        case "schema_new":
            return w._("schema version %(version)s is newer than this program's (%(known)s): "
                       "update the bot", version=v["version"], known=v["known"])
        case "perm_ok":
            return w.ngettext("file permissions private (%(num)s path checked)",
                              "file permissions private (%(num)s paths checked)",
                              int(str(v["checked"])))
        case "perm_bad":
            return w.ngettext("%(num)s path is open to others, e.g. %(examples)s; fix it with: "
                              "chmod -R go-rwx %(state)s",
                              "%(num)s paths are open to others, e.g. %(examples)s; fix them "
                              "with: chmod -R go-rwx %(state)s",
                              int(str(v["count"])), examples=v["examples"], state=v["state"])
        case "disk_ok":
            return w._("%(free_mb)s MB free", free_mb=v["free_mb"])
        case "disk_low":
            return w._("only %(free_mb)s MB free (at least %(min_mb)s MB needed): free some "
                       "space", free_mb=v["free_mb"], min_mb=v["min_mb"])
        case "spool_ok":
            return w.ngettext("%(num)s spool file present", "all %(num)s spool files present",
                              int(str(v["count"])))
        case "spool_missing":
            return w.ngettext("%(num)s of %(count)s spool files is missing, e.g. %(examples)s; "
                              "restore it from a backup",
                              "%(num)s of %(count)s spool files are missing, e.g. "
                              "%(examples)s; restore them from a backup",
                              int(str(v["missing"])), count=v["count"], examples=v["examples"])
        case "outbox_ok":
            return w._("outbox: %(waiting)s waiting, %(failed)s failed for good",
                       waiting=v["waiting"], failed=v["failed"])
        case "outbox_stuck":
            return w._("outbox: %(waiting)s waiting, the oldest since %(oldest)s: is the worker "
                       "running, can it reach the SMTP server?", waiting=v["waiting"],
                       oldest=datetime.fromisoformat(str(v["oldest"])))
        case "size" | "size_unpruned":
            parts = w._("%(total_mb)s MB, on average %(per_round_kb)s KB a round (database "
                        "%(database_kb)s KB, spool %(spool_kb)s KB, archive %(archive_kb)s "
                        "KB; rounds evaluated: %(rounds)s)", **v)
            if finding.code == "size_unpruned":
                return parts + "; " + w._("retention not applied yet (it runs after each "
                                          "evaluation)")
            return parts + "; " + w._("kept for days: spool %(spool_days)s, delivered mail "
                                      "%(outbox_days)s, last applied %(last)s", **v)
    raise ValueError(f"unknown finding {finding.code!r}")


def check_state(state_dir: Path, *, now: datetime,
                min_free_bytes: int = MIN_FREE_BYTES) -> list[Finding]:
    """Every finding about ``state_dir`` (read-only; nothing is created or changed)."""
    state_dir = Path(state_dir)
    path = state_dir / DATABASE_FILE
    findings = [_permissions(state_dir), _disk(state_dir, min_free_bytes)]
    if not path.is_file():
        return [Finding("database", False, "db_missing", {"path": str(path)}), *findings]
    db = Database(path)
    try:
        with db.read() as conn:
            problems = queries.integrity_problems(conn)
            if problems:
                return [Finding("database", False, "integrity_bad",
                                {"problems": "; ".join(problems[:EXAMPLES])}), *findings]
            findings.insert(0, Finding("database", True, "integrity_ok"))
            dangling = queries.foreign_key_problems(conn)
            findings.insert(1, Finding(
                "foreign_keys", not dangling, "fk_bad" if dangling else "fk_ok",
                {"count": len(dangling), "problems": "; ".join(dangling[:EXAMPLES])}))
            version, known = current_version(conn), MIGRATIONS[-1].version
            code = ("schema_ok" if version == known
                    else "schema_old" if version < known else "schema_new")
            findings.insert(2, Finding("schema", version <= known, code,
                                       {"version": version, "known": known}))
            if version >= 1:
                findings.append(_spool(state_dir / "spool", queries.spool_paths(conn)))
                findings.append(_outbox(queries.backlog(conn), now))
                findings.append(_size(state_size(state_dir, conn)))
    except StorageError as exc:
        return [Finding("database", False, "db_unusable", {"error": str(exc)}), *findings]
    finally:
        db.close()
    return findings


def _permissions(state_dir: Path) -> Finding:
    """The state directory and everything under it: owner only."""
    paths = [p for p in (state_dir, *database_files(state_dir / DATABASE_FILE)) if p.exists()]
    for root, dirs, files in os.walk(state_dir):
        here = Path(root)
        paths += [here / d for d in dirs] + [here / f for f in files]
    seen = set()
    bad = []
    for path in paths:
        if path in seen:
            continue
        seen.add(path)
        mode = too_open(path)
        if mode is not None:
            bad.append(f"{path} ({mode:04o})")
    return Finding("permissions", not bad, "perm_bad" if bad else "perm_ok",
                   {"count": len(bad), "checked": len(seen), "examples": ", ".join(bad[:EXAMPLES]),
                    "state": str(state_dir)})


def _disk(state_dir: Path, min_free_bytes: int) -> Finding:
    probe = state_dir.absolute()
    while not probe.exists() and probe != probe.parent:  # not created yet: its disk
        probe = probe.parent
    free = shutil.disk_usage(probe).free
    values: dict[str, object] = {"free_mb": free // 2**20, "min_mb": min_free_bytes // 2**20,
                                 "free_bytes": free}
    return Finding("disk", free >= min_free_bytes, "disk_ok" if free >= min_free_bytes
                   else "disk_low", values)


def _spool(spool_dir: Path, rows: Iterable[tuple[int, str]]) -> Finding:
    count, missing = 0, []
    for _row_id, relative in rows:
        count += 1
        if not spool_file_exists(spool_dir, relative):
            missing.append(relative)
    return Finding("spool", not missing, "spool_missing" if missing else "spool_ok",
                   {"count": count, "missing": len(missing),
                    "examples": ", ".join(missing[:EXAMPLES])})


def _outbox(backlog: queries.Backlog, now: datetime) -> Finding:
    oldest = time_from_db(backlog.oldest_waiting) if backlog.oldest_waiting else None
    stuck = oldest is not None and now - oldest > STUCK_AFTER
    values = {"waiting": backlog.waiting, "failed": backlog.failed,
              "oldest": oldest.isoformat() if oldest else "",
              "bodies": backlog.bodies, "body_bytes": backlog.body_bytes}
    return Finding("outbox", not stuck, "outbox_stuck" if stuck else "outbox_ok", values)


def _size(size: StateSize) -> Finding:
    """The state's size and what the retention keeps (∞: for ever)."""
    run = size.retention
    values: dict[str, object] = {
        "total_mb": size.total // 2**20, "per_round_kb": size.per_round // 1024,
        "database_kb": size.database // 1024, "spool_kb": size.spool // 1024,
        "archive_kb": size.archive // 1024, "rounds": size.rounds, "bytes": size.total}
    if run is not None:
        values.update(spool_days=run.spool_days or "∞", outbox_days=run.outbox_days or "∞",
                      last=run.at.strftime("%Y-%m-%d %H:%M UTC"))
    return Finding("size", True, "size" if run is not None else "size_unpruned", values)
