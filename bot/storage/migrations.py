"""The schema, as an ordered list of recorded migrations.

Each migration is ``(version, name, step)``; ``step`` is SQL text (one or
more statements) or a callable taking the connection. They run in version
order, each inside the same write transaction as its row in
``schema_migrations``, so a migration is applied completely or not at all.
Never edit a released migration; append a new one.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import unicodedata
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

from bot.storage.addresses import canonical_address
from bot.storage.ahead import AHEAD_V18
from bot.storage.errors import StorageError
from bot.storage.ledger_migration import ledger_facts_v10
from bot.storage.results_migration import compact_round_results_v11
from bot.storage.retention import RETENTION_V12

Step = str | Callable[[sqlite3.Connection], None]


class MigratableDatabase(Protocol):
    """What migrating needs of ``bot.storage.db.Database`` (no import of it: the
    database applies the migrations when it is opened)."""

    path: Path

    def transaction(self) -> AbstractContextManager[sqlite3.Connection]: ...


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    step: Step


SCHEMA_V1 = """
CREATE TABLE managers (
    id              INTEGER PRIMARY KEY,
    address         TEXT NOT NULL UNIQUE,           -- lower-cased mail address
    display_name    TEXT,
    password_hash   TEXT,                           -- 'scrypt$n$r$p$salt$hash' or NULL
    created_at      TEXT NOT NULL,                  -- ISO 8601 UTC
    created_round   INTEGER
);

CREATE TABLE rounds (
    number          INTEGER PRIMARY KEY,
    season          INTEGER NOT NULL CHECK (season >= 1),
    round_in_season INTEGER NOT NULL CHECK (round_in_season >= 1),
    deadline        TEXT NOT NULL,
    state           TEXT NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'evaluated')),
    seed            INTEGER,
    opened_at       TEXT NOT NULL,
    evaluated_at    TEXT,
    UNIQUE (season, round_in_season),
    CHECK ((state = 'open') = (evaluated_at IS NULL))
);
CREATE UNIQUE INDEX rounds_one_open ON rounds (state) WHERE state = 'open';

CREATE TABLE teams (
    id                INTEGER PRIMARY KEY,
    name              TEXT NOT NULL,
    name_key          TEXT NOT NULL UNIQUE,         -- case-folded, spaces folded
    short_name        TEXT NOT NULL,
    manager_id        INTEGER NOT NULL REFERENCES managers (id),
    wp                TEXT NOT NULL,                -- exact decimal string
    psz               TEXT NOT NULL,                -- two-decimal string
    registered_round  INTEGER NOT NULL,
    deleted_round     INTEGER,                      -- deleted at this round's evaluation
    doomed_round      INTEGER,                      -- announced: delete at this evaluation
    doomed_by         INTEGER REFERENCES teams (id) ON DELETE SET NULL,
    last_played_round INTEGER,
    created_at        TEXT NOT NULL
);
CREATE INDEX teams_manager ON teams (manager_id);

CREATE TABLE inbound (
    id          INTEGER PRIMARY KEY,
    source      TEXT NOT NULL CHECK (source IN ('imap', 'maildir', 'cli')),
    uidvalidity INTEGER,
    uid         INTEGER,
    message_id  TEXT,
    sha256      TEXT NOT NULL,
    spool_path  TEXT NOT NULL,
    received_at TEXT NOT NULL,
    sender      TEXT,
    subject     TEXT,
    kind        TEXT NOT NULL CHECK (kind IN ('human', 'bounce', 'auto', 'self', 'unreadable')),
    outcome     TEXT,
    round       INTEGER,
    manager_id  INTEGER REFERENCES managers (id),
    UNIQUE (source, uidvalidity, uid)
);
CREATE INDEX inbound_message_id ON inbound (message_id);
CREATE INDEX inbound_sha256 ON inbound (sha256);

CREATE TABLE moves (
    id          INTEGER PRIMARY KEY,
    round       INTEGER NOT NULL,
    team_id     INTEGER NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    line        TEXT NOT NULL,                      -- the line as the manager wrote it
    lineup      TEXT,                               -- canonical T-A-V-M-S; NULL: withdrawn
    withdrawn   INTEGER NOT NULL DEFAULT 0 CHECK (withdrawn IN (0, 1)),
    inbound_id  INTEGER REFERENCES inbound (id),
    message_id  TEXT,
    received_at TEXT NOT NULL,
    CHECK ((withdrawn = 1) = (lineup IS NULL))
);
CREATE INDEX moves_round_team ON moves (round, team_id, id);

CREATE TABLE round_results (
    round         INTEGER PRIMARY KEY REFERENCES rounds (number),
    inputs        TEXT NOT NULL,                    -- JSON: entrants, seed, settings
    report        TEXT NOT NULL,                    -- JSON of bot.rules.report.build_report
    public_report TEXT NOT NULL,
    created_at    TEXT NOT NULL
);

CREATE TABLE round_entries (
    round       INTEGER NOT NULL REFERENCES rounds (number),
    team_id     INTEGER NOT NULL REFERENCES teams (id),
    move_id     INTEGER REFERENCES moves (id),
    lineup      TEXT NOT NULL,                      -- as sent
    played      TEXT NOT NULL,                      -- after corrections
    budget      INTEGER NOT NULL,
    corrections TEXT NOT NULL,                      -- JSON list
    wp_before   TEXT NOT NULL,
    wp_gain     TEXT NOT NULL,
    psz_before  TEXT NOT NULL,
    psz_after   TEXT NOT NULL,
    won         INTEGER NOT NULL,
    drawn       INTEGER NOT NULL,
    lost        INTEGER NOT NULL,
    PRIMARY KEY (round, team_id)
);

CREATE TABLE wp_history (
    team_id   INTEGER NOT NULL REFERENCES teams (id),
    round     INTEGER NOT NULL,
    kind      TEXT NOT NULL CHECK (kind IN ('gain', 'ageing')),
    wp_before TEXT NOT NULL,
    wp_after  TEXT NOT NULL,
    PRIMARY KEY (team_id, round, kind)
);

CREATE TABLE outbox (
    id              INTEGER PRIMARY KEY,
    message_id      TEXT NOT NULL UNIQUE,
    kind            TEXT NOT NULL
                    CHECK (kind IN ('reply', 'newsletter', 'reminder', 'digest', 'notice')),
    recipient       TEXT NOT NULL,
    raw             BLOB NOT NULL,
    created_at      TEXT NOT NULL,
    state           TEXT NOT NULL DEFAULT 'queued'
                    CHECK (state IN ('queued', 'sending', 'sent', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT NOT NULL,
    last_error      TEXT,
    sent_at         TEXT,
    inbound_id      INTEGER REFERENCES inbound (id),
    round           INTEGER
);
CREATE INDEX outbox_due ON outbox (state, next_attempt_at);

CREATE TABLE bounces (
    id          INTEGER PRIMARY KEY,
    manager_id  INTEGER REFERENCES managers (id),
    inbound_id  INTEGER REFERENCES inbound (id),
    recipient   TEXT,
    reason      TEXT,
    at          TEXT
);

CREATE TABLE reminders_sent (
    round        INTEGER NOT NULL,
    hours_before INTEGER NOT NULL,
    manager_id   INTEGER NOT NULL,
    sent_at      TEXT,
    PRIMARY KEY (round, hours_before, manager_id)
);

CREATE TABLE worker_events (
    id    INTEGER PRIMARY KEY,
    at    TEXT NOT NULL,
    level TEXT NOT NULL,
    what  TEXT NOT NULL
);
"""

#: The language a manager writes in ('de' or 'en', from their latest accepted
#: mail); NULL until known: they get the configured newsletter language.
MANAGER_LANGUAGE_V2 = """
ALTER TABLE managers ADD COLUMN language TEXT CHECK (language IS NULL OR language IN ('de', 'en'));
"""

OUTBOX_FAILED_AT_V3 = """
ALTER TABLE outbox ADD COLUMN failed_at TEXT;
UPDATE outbox SET failed_at = next_attempt_at WHERE state = 'failed';
"""

#: Auditable lots and the game master's console (RULES.md §4, §9): the seed
#: committed when a round opens (kept by round number, so a rollback that
#: removes the next open round keeps its published commitment), how often a
#: round's evaluation was rolled back and corrected, and banned managers.
#: Old rounds keep ``rounds.seed`` as they were; they have no commitment row.
CONSOLE_V4 = """
CREATE TABLE round_seeds (
    round        INTEGER PRIMARY KEY,
    seed         INTEGER NOT NULL CHECK (seed >= 0),
    committed_at TEXT NOT NULL
);
ALTER TABLE rounds ADD COLUMN corrects INTEGER NOT NULL DEFAULT 0 CHECK (corrects >= 0);
ALTER TABLE managers ADD COLUMN banned_at TEXT;
"""


def _without_format_characters(text: str) -> str:
    """``text`` without Unicode format characters (category Cf), inner
    whitespace folded: how names are stored since issue 11 (a frozen copy of
    ``bot.league.names.clean`` without its NFKC step, so that a migration
    never changes when that module does, and names without format
    characters stay byte for byte as they are)."""
    return " ".join("".join(c for c in text if unicodedata.category(c) != "Cf").split())


def _name_key_v5(text: str) -> str:
    """The uniqueness key as ``bot.league.names.name_key`` computes it (frozen)."""
    def fold(value: str) -> str:
        value = unicodedata.normalize("NFKC", value)
        return " ".join("".join(c for c in value if unicodedata.category(c) != "Cf").split())
    return fold(fold(text).upper().casefold())


def _has_format_character(text: str | None) -> bool:
    if not text or text.isascii():
        return False
    return any(unicodedata.category(c) == "Cf" for c in text)


def clean_stored_names_v5(conn: sqlite3.Connection) -> None:
    """Team names, short names and manager names stored before issue 11 with
    format characters (zero-width spaces and joiners, bidi controls, soft
    hyphens) lose them, and the team's key follows. Rows without such a
    character are not touched (their keys, and every replay, stay identical).
    A team whose cleaned key would equal another team's keeps its stored name
    (both stay; new look-alikes are refused by the name check anyway)."""
    rows = conn.execute("SELECT id, name, short_name FROM teams ORDER BY id").fetchall()
    for team_id, name, short_name in rows:
        if not (_has_format_character(name) or _has_format_character(short_name)):
            continue
        new_name = _without_format_characters(name) or name
        new_short = _without_format_characters(short_name) or short_name
        new_key: str | None = _name_key_v5(new_name)
        clash = conn.execute(
            "SELECT 1 FROM teams WHERE name_key = ? AND id != ?", (new_key, team_id)
        ).fetchone()
        if clash is not None:
            new_name, new_key = name, None
        if new_key is None:
            conn.execute("UPDATE teams SET short_name = ? WHERE id = ?", (new_short, team_id))
        else:
            conn.execute(
                "UPDATE teams SET name = ?, name_key = ?, short_name = ? WHERE id = ?",
                (new_name, new_key, new_short, team_id),
            )
    managers = conn.execute("SELECT id, display_name FROM managers").fetchall()
    for manager_id, display_name in managers:
        if _has_format_character(display_name):
            conn.execute(
                "UPDATE managers SET display_name = ? WHERE id = ?",
                (_without_format_characters(display_name) or None, manager_id),
            )

def outbox_keeps_no_sent_bodies_v6(conn: sqlite3.Connection) -> None:
    """Every outbox row gets the size and SHA-256 digest of its bytes; rows
    already sent or failed for good lose their body (``raw`` becomes the empty
    blob: a welcome mail carried its password in clear). Queued rows keep theirs
    until the drain delivers them. Plus the indexes of the queries that scanned:
    the outbox by kind and round, inbound mail and moves by received time."""
    conn.execute("ALTER TABLE outbox ADD COLUMN size INTEGER")
    conn.execute("ALTER TABLE outbox ADD COLUMN sha256 TEXT")
    ids = [int(r[0]) for r in conn.execute("SELECT id FROM outbox ORDER BY id")]
    for row_id in ids:  # one body at a time: bounded memory on a large outbox
        raw = bytes(conn.execute("SELECT raw FROM outbox WHERE id = ?", (row_id,)).fetchone()[0])
        conn.execute("UPDATE outbox SET size = ?, sha256 = ? WHERE id = ?",
                     (len(raw), hashlib.sha256(raw).hexdigest(), row_id))
    # Empty the bodies, then write the finished rows again: the pages that held
    # large rows are packed (SQLite rebalances on delete, not on a shrinking update).
    conn.execute("UPDATE outbox SET raw = X'' WHERE state IN ('sent', 'failed')")
    conn.execute("CREATE TEMP TABLE outbox_finished AS SELECT * FROM outbox"
                 " WHERE state IN ('sent', 'failed')")
    conn.execute("DELETE FROM outbox WHERE state IN ('sent', 'failed')")
    conn.execute("INSERT INTO outbox SELECT * FROM temp.outbox_finished")
    conn.execute("DROP TABLE temp.outbox_finished")
    conn.execute("CREATE INDEX outbox_kind_round ON outbox (kind, round)")
    conn.execute("CREATE INDEX inbound_received ON inbound (received_at)")
    conn.execute("CREATE INDEX moves_received ON moves (received_at)")


def canonical_manager_addresses_v7(conn: sqlite3.Connection) -> None:
    """Managers stored before issue 13 under an address with an ``xn--``
    domain (or a decomposed Unicode local part) get the canonical spelling
    that mail is looked up by now (``canonical_address``). Where the other
    spelling already has a manager of its own, both stay as they are (two
    managers of one mailbox cannot be merged without a person's decision);
    every other row is untouched."""
    rows = conn.execute("SELECT id, address FROM managers ORDER BY id").fetchall()
    for manager_id, address in rows:
        canonical = canonical_address(address)
        if canonical == address:
            continue
        clash = conn.execute("SELECT 1 FROM managers WHERE address = ?", (canonical,)).fetchone()
        if clash is None:
            conn.execute("UPDATE managers SET address = ? WHERE id = ?", (canonical, manager_id))


#: A league taken over from another program (RULES.md §14, issue 23): where its
#: history here begins, and each imported team's WP, PSZ and last round there.
LEAGUE_IMPORT_V8 = """
CREATE TABLE league_import (
    id              INTEGER PRIMARY KEY CHECK (id = 1),
    season          INTEGER NOT NULL CHECK (season >= 1),
    round_in_season INTEGER NOT NULL CHECK (round_in_season >= 1),
    first_round     INTEGER NOT NULL CHECK (first_round >= 1),
    teams           INTEGER NOT NULL,
    managers        INTEGER NOT NULL,
    source          TEXT NOT NULL,
    sha256          TEXT NOT NULL,
    imported_at     TEXT NOT NULL
);
CREATE TABLE imported_teams (
    team_id          INTEGER PRIMARY KEY REFERENCES teams (id),
    wp               TEXT NOT NULL,
    psz              TEXT NOT NULL,
    last_round       INTEGER NOT NULL,
    last_round_known INTEGER NOT NULL CHECK (last_round_known IN (0, 1))
);
"""


def round_summaries_v9(conn: sqlite3.Connection) -> None:
    """What the archive lists of each round (winner, teams, player teams) and
    of each team's round (place, stage reached, last group stage) become
    columns beside the stored report, so publishing never parses the reports
    of old rounds. Filled in from each stored public report, one at a time; a
    team its round's report does not name keeps the archive's old reading
    (no place, the group stage)."""
    for table, column, kind in (
        ("round_results", "winner", "TEXT"), ("round_results", "teams", "INTEGER"),
        ("round_results", "players", "INTEGER"), ("round_entries", "place", "INTEGER"),
        ("round_entries", "reached", "TEXT"), ("round_entries", "last_stage", "INTEGER"),
    ):
        conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
    numbers = [int(r[0]) for r in conn.execute("SELECT round FROM round_results ORDER BY round")]
    if not numbers:
        return
    from bot.rules.report import ReportFormatError, RoundReport  # numpy: only when needed
    from bot.storage.results import stored_report  # reads either storage encoding

    for number in numbers:
        text = stored_report(conn, number, public=True)
        try:
            report = RoundReport.from_json(json.loads(text or "null"))
        except (ValueError, ReportFormatError) as exc:
            raise StorageError(
                f"the stored report of round {number} cannot be read ({exc}); restore the "
                "database from a backup made before this version was installed"
            ) from exc
        conn.execute(
            "UPDATE round_results SET winner = ?, teams = ?, players = ? WHERE round = ?",
            (report.winner, len(report.teams), len(report.players), number),
        )
        entries = conn.execute(
            "SELECT e.team_id, t.name FROM round_entries e JOIN teams t ON t.id = e.team_id"
            " WHERE e.round = ?", (number,),
        ).fetchall()
        for team_id, name in entries:
            place, reached, last = (report.stage_reached(name) if name in report.record
                                    else (None, "group", 0))
            conn.execute(
                "UPDATE round_entries SET place = ?, reached = ?, last_stage = ?"
                " WHERE round = ? AND team_id = ?", (place, reached, last, number, team_id),
            )


#: The game master's previews of an open round (``evaluate --dry-run``, the
#: mail command ``Vorschau``): when, whether with a fresh seed (before the
#: deadline, RULES.md §13) and from where; the round's digest lists them.
PREVIEWS_V13 = """
CREATE TABLE previews (
    id    INTEGER PRIMARY KEY,
    round INTEGER NOT NULL,
    at    TEXT NOT NULL,
    fresh INTEGER NOT NULL CHECK (fresh IN (0, 1)),
    via   TEXT NOT NULL
);
CREATE INDEX previews_round ON previews (round);
"""


#: Players' own business by mail (RULES.md §12): since when a manager has
#: unsubscribed from the newsletters and reminders (``Abmelden``; NULL: he gets them).
SUBSCRIPTION_V14 = """
ALTER TABLE managers ADD COLUMN unsubscribed_at TEXT;
"""

#: Since when the manager's language is the one he chose (``Sprache: ...``),
#: not the one of his latest mail (NULL: it follows his mails).
LANGUAGE_CHOSEN_V15 = """
ALTER TABLE managers ADD COLUMN language_chosen_at TEXT;
"""

#: Requests that wait for a second mail carrying their code (``Bestätigen:
#: CODE``; ``bot.league.confirmations``): moving to a new address, erasing a
#: manager's data, later the game master's two-step commands.
CONFIRMATIONS_V16 = """
CREATE TABLE confirmations (
    id           INTEGER PRIMARY KEY,
    purpose      TEXT NOT NULL,
    confirm_from TEXT NOT NULL,                 -- the address whose mail carries the code
    manager_id   INTEGER REFERENCES managers (id),
    payload      TEXT NOT NULL DEFAULT '{}',    -- JSON: what the request needs
    code_hash    TEXT NOT NULL,                 -- 'sha256$salt$digest' (hex), never the code
    created_at   TEXT NOT NULL,
    expires_at   TEXT NOT NULL,
    state        TEXT NOT NULL DEFAULT 'pending'
                 CHECK (state IN ('pending', 'used', 'replaced')),
    settled_at   TEXT
);
CREATE INDEX confirmations_from ON confirmations (confirm_from);
CREATE INDEX confirmations_manager ON confirmations (manager_id);
"""

#: ``Daten löschen`` (RULES.md §12): when a manager's address, name and password
#: were erased (his row stays for his teams' history), which teams retired with
#: him (deleted for play, still listed in the tables while recent), the mails
#: whose reply is the last one to an erased address (its recipient is erased
#: once sent), and the spool files still to remove after the erasure committed.
ERASURE_V17 = """
ALTER TABLE managers ADD COLUMN erased_at TEXT;
ALTER TABLE teams ADD COLUMN retired INTEGER NOT NULL DEFAULT 0 CHECK (retired IN (0, 1));
CREATE TABLE erasures (
    inbound_id INTEGER PRIMARY KEY,             -- the mail that confirmed the erasure
    erased_at  TEXT NOT NULL
);
CREATE TABLE spool_removals (
    path TEXT PRIMARY KEY                       -- relative to the spool directory
);
"""


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "league, ledger and outbox", SCHEMA_V1),
    Migration(2, "language of each manager", MANAGER_LANGUAGE_V2),
    Migration(3, "when an outgoing mail failed for good", OUTBOX_FAILED_AT_V3),
    Migration(4, "committed seeds, corrected rounds, banned managers", CONSOLE_V4),
    Migration(5, "names without format characters", clean_stored_names_v5),
    Migration(6, "no sent mail bodies at rest; indexes by kind, round, received time",
              outbox_keeps_no_sent_bodies_v6),
    Migration(7, "one spelling of each manager's address (IDNA domains in Unicode)",
              canonical_manager_addresses_v7),
    Migration(8, "a league taken over: its import and the imported teams", LEAGUE_IMPORT_V8),
    Migration(9, "each round's winner and field, each team's place and stage, as columns",
              round_summaries_v9),
    Migration(10, "the ledger's facts as columns: code, authenticated, thread, attempts",
              ledger_facts_v10),
    Migration(11, "round results compressed, the public report derived from the report",
              compact_round_results_v11),
    Migration(12, "retention: spool files pruned, the record of each run", RETENTION_V12),
    Migration(13, "the game master's previews of a round", PREVIEWS_V13),
    Migration(14, "managers who unsubscribed from newsletters and reminders", SUBSCRIPTION_V14),
    Migration(15, "a language the manager chose", LANGUAGE_CHOSEN_V15),
    Migration(16, "requests confirmed by a code in a second mail", CONFIRMATIONS_V16),
    Migration(17, "erased managers, their retired teams, what is left to erase", ERASURE_V17),
    Migration(18, "lineups for several rounds: each round's move knows their first and last",
              AHEAD_V18),
)

_LEDGER = """
CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at TEXT NOT NULL
)
"""


def split_statements(sql: str) -> list[str]:
    """Split SQL text into complete statements (``executescript`` would commit)."""
    statements: list[str] = []
    pending = ""
    for line in sql.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            statements.append(pending.strip())
            pending = ""
    if pending.strip():
        raise ValueError(f"incomplete SQL statement at the end of a migration: {pending!r}")
    return statements


def current_version(conn: sqlite3.Connection) -> int:
    """The highest applied migration (0 for an empty database)."""
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
    ).fetchone()
    if not exists:
        return 0
    row = conn.execute("SELECT MAX(version) FROM schema_migrations").fetchone()
    return int(row[0] or 0)


def _run(conn: sqlite3.Connection, step: Step) -> None:
    if callable(step):
        step(conn)
        return
    for statement in split_statements(step):
        conn.execute(statement)


def apply_migrations(
    db: MigratableDatabase, migrations: tuple[Migration, ...] = MIGRATIONS
) -> list[int]:
    """Apply, in order and one transaction each, every migration not yet recorded."""
    versions = [m.version for m in migrations]
    if versions != sorted(set(versions)):
        raise ValueError(f"migration versions must be unique and ascending, got {versions}")
    applied: list[int] = []
    with db.transaction() as conn:
        conn.execute(_LEDGER)
        have = current_version(conn)
    known = versions[-1] if versions else 0
    if have > known:
        raise StorageError(
            f"{db.path} has schema version {have}, newer than this program knows ({known}); "
            "upgrade the bot instead of using an older one"
        )
    for migration in migrations:
        with db.transaction() as conn:
            if current_version(conn) >= migration.version:
                continue
            _run(conn, migration.step)
            conn.execute(
                "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                (migration.version, migration.name, datetime.now(UTC).isoformat()),
            )
            applied.append(migration.version)
    return applied
