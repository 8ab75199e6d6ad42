"""``turnited check``: is the state directory fit to run on for years?

``check_state(state_dir)`` reads (never writes) the state and returns one
``Finding`` per topic: the database's integrity and foreign keys, its schema
version, file permissions (everything private to the bot's user), free disk
space, spool files the ledger names but the disk lacks, the outbox
backlog, and the state's size per round with what the retention keeps
(``bot.service.state_size``; never a problem by itself). ``text(finding,
language)`` says a finding in German or English.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from bot.mail.spool import spool_file_exists
from bot.service.state_size import StateSize, state_size
from bot.storage import check as queries
from bot.storage.db import DATABASE_FILE, Database, database_files
from bot.storage.errors import StorageError
from bot.storage.migrations import MIGRATIONS, current_version
from bot.storage.permissions import too_open
from bot.storage.values import time_from_db

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

    def as_json(self, language: str) -> dict[str, object]:
        return {"topic": self.topic, "ok": self.ok, "code": self.code,
                "values": self.values, "text": text(self, language)}


TEXTS: dict[str, dict[str, str]] = {
    "db_missing": {
        "de": "keine Datenbank unter {path}: stimmt das Zustandsverzeichnis (--state)?",
        "en": "no database at {path}: is the state directory right (--state)?"},
    "db_unusable": {"de": "Datenbank unbrauchbar: {error}", "en": "database unusable: {error}"},
    "integrity_ok": {"de": "Datenbank unversehrt (integrity_check: ok)",
                     "en": "database intact (integrity_check: ok)"},
    "integrity_bad": {
        "de": "Datenbank beschädigt: {problems}; aus einer Sicherung wiederherstellen",
        "en": "database damaged: {problems}; restore it from a backup"},
    "fk_ok": {"de": "alle Verweise gültig (foreign_key_check)",
              "en": "every reference valid (foreign_key_check)"},
    "fk_bad": {"de": "{count} Verweis(e) ins Leere: {problems}",
               "en": "{count} dangling reference(s): {problems}"},
    "schema_ok": {"de": "Schema-Version {version}", "en": "schema version {version}"},
    "schema_old": {
        "de": "Schema-Version {version}, aktuell ist {known}: der Bot aktualisiert sie beim Start",
        "en": "schema version {version}, current is {known}: the bot upgrades it when it starts"},
    "schema_new": {
        "de": "Schema-Version {version} ist neuer als dieses Programm ({known}): Bot aktualisieren",
        "en": "schema version {version} is newer than this program ({known}): upgrade the bot"},
    "perm_ok": {"de": "Dateirechte privat ({checked} Pfade geprüft)",
                "en": "file permissions private ({checked} paths checked)"},
    "perm_bad": {
        "de": "{count} Pfad(e) für andere lesbar, z. B. {examples}; "
              "beheben mit: chmod -R go-rwx {state}",
        "en": "{count} path(s) readable by others, e.g. {examples}; "
              "fix with: chmod -R go-rwx {state}"},
    "disk_ok": {"de": "{free_mb} MB frei", "en": "{free_mb} MB free"},
    "disk_low": {"de": "nur {free_mb} MB frei (mindestens {min_mb} MB nötig): Platz schaffen",
                 "en": "only {free_mb} MB free (at least {min_mb} MB needed): free some space"},
    "spool_ok": {"de": "alle {count} Spool-Dateien vorhanden",
                 "en": "all {count} spool files present"},
    "spool_missing": {
        "de": "{missing} von {count} Spool-Dateien fehlen, z. B. {examples}; "
              "aus einer Sicherung wiederherstellen",
        "en": "{missing} of {count} spool files missing, e.g. {examples}; "
              "restore them from a backup"},
    "outbox_ok": {
        "de": "Postausgang: {waiting} wartend, {failed} endgültig gescheitert",
        "en": "outbox: {waiting} waiting, {failed} failed for good"},
    "outbox_stuck": {
        "de": "Postausgang: {waiting} wartend, die älteste seit {oldest}: "
              "läuft der Worker, ist der SMTP-Server erreichbar?",
        "en": "outbox: {waiting} waiting, the oldest since {oldest}: "
              "is the worker running, can it reach the SMTP server?"},
    "size": {
        "de": "{total_mb} MB, im Mittel {per_round_kb} KB je Runde (Datenbank {database_kb} KB, "
              "Spool {spool_kb} KB, Archiv {archive_kb} KB; ausgewertete Runden: {rounds}); "
              "Aufbewahrung in Tagen: Spool {spool_days}, zugestellte Post {outbox_days}, "
              "zuletzt angewandt {last}",
        "en": "{total_mb} MB, on average {per_round_kb} KB a round (database {database_kb} KB, "
              "spool {spool_kb} KB, archive {archive_kb} KB; rounds evaluated: {rounds}); "
              "kept for days: spool {spool_days}, delivered mail {outbox_days}, "
              "last applied {last}"},
    "size_unpruned": {
        "de": "{total_mb} MB, im Mittel {per_round_kb} KB je Runde (Datenbank {database_kb} KB, "
              "Spool {spool_kb} KB, Archiv {archive_kb} KB; ausgewertete Runden: {rounds}); "
              "Aufbewahrung noch nicht angewandt (das geschieht nach jeder Auswertung)",
        "en": "{total_mb} MB, on average {per_round_kb} KB a round (database {database_kb} KB, "
              "spool {spool_kb} KB, archive {archive_kb} KB; rounds evaluated: {rounds}); "
              "retention not applied yet (it runs after each evaluation)"},
}


def text(finding: Finding, language: str) -> str:
    """The finding in ``language`` ('de' or 'en'; anything else: English)."""
    templates = TEXTS[finding.code]
    return templates.get(language, templates["en"]).format(**finding.values)


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


def _outbox(backlog: queries.Backlog, now: datetime) -> Finding:
    oldest = time_from_db(backlog.oldest_waiting) if backlog.oldest_waiting else None
    stuck = oldest is not None and now - oldest > STUCK_AFTER
    values = {"waiting": backlog.waiting, "failed": backlog.failed,
              "oldest": oldest.strftime("%Y-%m-%d %H:%M UTC") if oldest else "",
              "bodies": backlog.bodies, "body_bytes": backlog.body_bytes}
    return Finding("outbox", not stuck, "outbox_stuck" if stuck else "outbox_ok", values)
