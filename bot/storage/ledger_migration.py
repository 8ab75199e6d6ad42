"""Migration 10: the ledger's facts as columns (issue 19).

Until version 7 the ``inbound`` table kept how a mail was handled only as the
human ``outcome`` line, and code read it back (``startswith``, ``endswith``,
``in``). Version 8 adds the facts as columns and fills them for every
existing row from that line, as the code of version 7 wrote it:

- ``code``: the ``Outcome`` the line starts with (NULL: no line, or one of
  another shape);
- ``authenticated``: 1 when the line ends with ``[password ok]`` (the mail
  carried its manager's right password);
- ``thread``: the ``X`` of a ``[bot thread X]`` mark (the bot's mail it answers);
- ``attempts``: the count of a ``retry: N failed attempt(s)`` or
  ``quarantined: handling failed N times`` line, else 0;
- ``notices``: the notice codes of an answered mail (``lineup_set
  code_wrong``, space-separated), from ``accepted|rejected round N: a, b``.

Plus the indexes of the queries on them: a sender's recent mails
(``inbound_sender``) and the few rows in trouble (``inbound_trouble``).
The line itself stays as it is, for people. The patterns here are a frozen
copy of what version 7 wrote, so this migration never changes when the
ingest's wording does.
"""

from __future__ import annotations

import re
import sqlite3

COLUMNS = (
    "ALTER TABLE inbound ADD COLUMN code TEXT",
    "ALTER TABLE inbound ADD COLUMN authenticated INTEGER NOT NULL DEFAULT 0"
    " CHECK (authenticated IN (0, 1))",
    "ALTER TABLE inbound ADD COLUMN thread TEXT",
    "ALTER TABLE inbound ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0)",
    "ALTER TABLE inbound ADD COLUMN notices TEXT",
)

INDEXES = (
    "CREATE INDEX inbound_sender ON inbound (sender, received_at)",
    "CREATE INDEX inbound_trouble ON inbound (code) WHERE code IN ('quarantined', 'retry')",
)

#: The codes a version-7 line starts with (``bot.storage.ledger.Outcome`` then).
V7_CODES = ("accepted", "rejected", "bounce", "no reply", "rate_limited", "slow_down",
            "too_large", "too_many_lines", "unreadable", "internal_error", "retry",
            "quarantined", "forged", "password_reset", "banned")
_ATTEMPTS = re.compile(r"^(?:retry: (\d+) failed attempt|quarantined: handling failed (\d+) times)")
_THREAD = re.compile(r"\[bot thread (\S+)\]")
_PASSWORD_OK = "[password ok]"
_NOTICES = re.compile(r"^(?:accepted|rejected) round \d+: ([a-z0-9_, ]*)")


def facts_of(line: str | None) -> tuple[str | None, int, str | None, int]:
    """(code, authenticated, thread, attempts) of a version-7 outcome line."""
    if not line:
        return None, 0, None, 0
    code = next((c for c in V7_CODES
                 if line == c or line.startswith((f"{c}:", f"{c} "))), None)
    attempts = 0
    if (match := _ATTEMPTS.match(line)) is not None:
        attempts = int(match.group(1) or match.group(2))
    thread = _THREAD.search(line)
    return (code, int(line.endswith(_PASSWORD_OK)), thread.group(1) if thread else None,
            attempts)


def notices_of(line: str | None) -> str | None:
    """The notice codes of a version-7 line, space-separated (None: none)."""
    match = _NOTICES.match(line or "")
    if match is None:
        return None
    codes = [c.strip() for c in match.group(1).split(",") if c.strip()]
    return " ".join(codes) or None


def ledger_facts_v10(conn: sqlite3.Connection) -> None:
    """Add the columns, fill them from each row's line, add the indexes."""
    for statement in COLUMNS:
        conn.execute(statement)
    rows = conn.execute("SELECT id, outcome FROM inbound WHERE outcome IS NOT NULL").fetchall()
    conn.executemany(
        "UPDATE inbound SET code = ?, authenticated = ?, thread = ?, attempts = ?, notices = ?"
        " WHERE id = ?",
        [(*facts_of(outcome), notices_of(outcome), row_id) for row_id, outcome in rows],
    )
    for statement in INDEXES:
        conn.execute(statement)
