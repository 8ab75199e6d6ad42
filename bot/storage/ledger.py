"""The ``inbound`` table: the ledger of every mail read, so none is handled twice.

A row per mail: where it came from (``source``, IMAP UIDVALIDITY+UID), its
bytes' SHA-256 and spool path, the sender, its ``kind`` and, once handled,
its ``outcome`` (a short English line starting with an ``Outcome`` code).
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from bot.storage.values import time_to_db


class InboundKind(StrEnum):
    """What a mail is (the ``inbound.kind`` column; the classifier's verdict)."""

    HUMAN = "human"
    BOUNCE = "bounce"
    AUTO = "auto"
    SELF = "self"
    UNREADABLE = "unreadable"
    #: Seen before: reported by the ingest, never stored.
    DUPLICATE = "duplicate"


class Outcome(StrEnum):
    """The code an ``inbound.outcome`` line starts with."""

    ACCEPTED = "accepted"
    REJECTED = "rejected"
    BOUNCE = "bounce"
    NO_REPLY = "no reply"
    RATE_LIMITED = "rate_limited"
    SLOW_DOWN = "slow_down"
    TOO_LARGE = "too_large"
    TOO_MANY_LINES = "too_many_lines"
    UNREADABLE = "unreadable"
    INTERNAL_ERROR = "internal_error"
    #: Handling failed or ran past its budget; the mail stays in the inbox and
    #: is tried again (``retry: N failed attempt(s): ...``).
    RETRY = "retry"
    #: Handling failed ``max_attempts`` times; the mail was moved to quarantine.
    QUARANTINED = "quarantined"
    #: The receiving server's checks say the From is forged (sender trust).
    FORGED = "forged"
    #: ``Passwort vergessen``: a new password was mailed (at most one a day).
    PASSWORD_RESET = "password_reset"


SOURCES = ("imap", "maildir", "cli")


def source_kind(source: str) -> str:
    """The ledger's source column: ``imap`` or ``maildir`` (or ``cli``)."""
    for kind in SOURCES:
        if source.startswith(kind):
            return kind
    return "cli"


@dataclass(frozen=True, slots=True)
class InboundRecord:
    """A mail about to be ledgered."""

    source: str
    uidvalidity: int | None
    uid: int | None
    message_id: str | None
    sha256: str
    spool_path: str
    received_at: datetime
    sender: str | None
    subject: str
    kind: str


def known(
    conn: sqlite3.Connection, *, source: str, uidvalidity: int | None, uid: int | None,
    sha256: str,
) -> int | None:
    """The ledger id of this mail if it was handled already (same source and
    UIDVALIDITY+UID, or the very same bytes), else None."""
    if uid is not None:
        row = conn.execute(
            "SELECT id FROM inbound WHERE source = ? AND uidvalidity IS ? AND uid = ?",
            (source_kind(source), uidvalidity, uid),
        ).fetchone()
        if row:
            return int(row[0])
    row = conn.execute(
        "SELECT id FROM inbound WHERE sha256 = ? ORDER BY id LIMIT 1", (sha256,)
    ).fetchone()
    return int(row[0]) if row else None


def insert(conn: sqlite3.Connection, record: InboundRecord) -> int:
    """Ledger one mail; returns its id."""
    cur = conn.execute(
        "INSERT INTO inbound (source, uidvalidity, uid, message_id, sha256, spool_path,"
        " received_at, sender, subject, kind) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (source_kind(record.source), record.uidvalidity, record.uid, record.message_id,
         record.sha256, record.spool_path, time_to_db(record.received_at), record.sender,
         record.subject[:500], str(record.kind)),
    )
    return int(cur.lastrowid)  # type: ignore[arg-type]


def set_outcome(conn: sqlite3.Connection, inbound_id: int, outcome: str) -> None:
    conn.execute("UPDATE inbound SET outcome = ? WHERE id = ?", (outcome[:1000], inbound_id))


def link(
    conn: sqlite3.Connection, inbound_id: int, *, round_number: int | None,
    manager_id: int | None,
) -> None:
    """Record which round and manager a human's mail counted for."""
    conn.execute(
        "UPDATE inbound SET round = ?, manager_id = ? WHERE id = ?",
        (round_number, manager_id, inbound_id),
    )


def recent_human_outcomes(
    conn: sqlite3.Connection, sender: str, *, since: datetime, other_than: int,
) -> list[str]:
    """Outcomes of the sender's human mails after ``since`` (the rate limit)."""
    rows = conn.execute(
        "SELECT outcome FROM inbound WHERE sender = ? AND kind = 'human' AND id <> ?"
        " AND received_at > ?",
        (sender, other_than, time_to_db(since)),
    ).fetchall()
    return [r[0] or "" for r in rows]


def received_between(
    conn: sqlite3.Connection, after: str, until: str
) -> list[tuple[str, str, str]]:
    """(sender, kind, outcome) of the mails received in (``after``, ``until``],
    in ledger order (``outcome`` '' while unset)."""
    rows = conn.execute(
        "SELECT sender, kind, outcome FROM inbound WHERE received_at > ?"
        " AND received_at <= ? ORDER BY id", (after, until),
    ).fetchall()
    return [(sender, kind, outcome or "") for sender, kind, outcome in rows]


# -- failed attempts and quarantine -------------------------------------------

_ATTEMPTS = re.compile(r"^retry: (\d+) ")


@dataclass(frozen=True, slots=True)
class RetryRow:
    """A mail whose handling failed before: its ledger row and how often."""

    inbound_id: int
    attempts: int
    outcome: str


def retry_of(
    conn: sqlite3.Connection, *, source: str, uidvalidity: int | None, uid: int | None,
    sha256: str,
) -> RetryRow | None:
    """The ``retry`` row of this mail (same identity as ``known``), if its
    handling failed before and it was not handled since."""
    if uid is not None:
        row = conn.execute(
            "SELECT id, outcome FROM inbound WHERE source = ? AND uidvalidity IS ? AND uid = ?",
            (source_kind(source), uidvalidity, uid),
        ).fetchone()
    else:
        row = conn.execute(
            "SELECT id, outcome FROM inbound WHERE sha256 = ? ORDER BY id LIMIT 1", (sha256,)
        ).fetchone()
    if not row or not (match := _ATTEMPTS.match(row[1] or "")):
        return None
    return RetryRow(int(row[0]), int(match.group(1)), row[1])


def record_failed_attempt(
    conn: sqlite3.Connection, record: InboundRecord, previous: RetryRow | None, error: str,
) -> RetryRow:
    """Count one more failed attempt of a mail (a ``retry`` row)."""
    attempts = (previous.attempts if previous else 0) + 1
    outcome = f"{Outcome.RETRY}: {attempts} failed attempt(s): {error}"
    inbound_id = previous.inbound_id if previous else insert(conn, record)
    set_outcome(conn, inbound_id, outcome)
    return RetryRow(inbound_id, attempts, outcome)


def outcome_of(conn: sqlite3.Connection, inbound_id: int) -> str:
    """The outcome line of one ledger row ('' while unset or unknown)."""
    row = conn.execute("SELECT outcome FROM inbound WHERE id = ?", (inbound_id,)).fetchone()
    return (row[0] or "") if row else ""


def forget_retry(conn: sqlite3.Connection, retry: RetryRow) -> None:
    """Drop the ``retry`` row of a mail that is now handled (in the same
    transaction that ledgers it for good)."""
    conn.execute("DELETE FROM inbound WHERE id = ? AND outcome LIKE 'retry: %'",
                 (retry.inbound_id,))


def quarantined_between(
    conn: sqlite3.Connection, after: str, until: str
) -> list[tuple[str, str, str]]:
    """(sender, subject, outcome) of the mails quarantined among those
    received in (``after``, ``until``], in ledger order."""
    rows = conn.execute(
        "SELECT sender, subject, outcome FROM inbound WHERE received_at > ?"
        " AND received_at <= ? AND outcome LIKE 'quarantined%' ORDER BY id", (after, until),
    ).fetchall()
    return [(sender or "?", subject or "", outcome) for sender, subject, outcome in rows]


def quarantined_count(conn: sqlite3.Connection) -> tuple[int, int]:
    """(mails quarantined, mails waiting to be tried again) in the whole ledger."""
    row = conn.execute(
        "SELECT COALESCE(SUM(outcome LIKE 'quarantined%'), 0),"
        " COALESCE(SUM(outcome LIKE 'retry: %'), 0) FROM inbound"
    ).fetchone()
    return int(row[0]), int(row[1])
