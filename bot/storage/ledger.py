"""The ``inbound`` table: the ledger of every mail read, so none is handled twice.

A row per mail: where it came from (``source``, IMAP UIDVALIDITY+UID), its
bytes' SHA-256 and spool path, the sender, its ``kind`` and, once handled,
how it was handled. What code reads of that is stored as columns: ``code``
(an ``Outcome``), ``authenticated`` (the mail carried its manager's right
password: it never counts against the hourly limit), ``thread`` (the bot's
mail it answers: loops), ``attempts`` (failed handling attempts: retry and
quarantine). ``outcome`` is a short English line for people (the digest,
``status``), never read back by code.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
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
    """How a mail was handled (the ``inbound.code`` column; the ``outcome``
    line for people starts with it)."""

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
    #: From a manager the game master banned: no reply, nothing changed.
    BANNED = "banned"
    #: An attempt of the game master's that failed his checks (RULES.md §13):
    #: nothing changed, told to the game master only (``gm_refused: CODE``).
    GM_REFUSED = "gm_refused"


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


def finish(
    conn: sqlite3.Connection, inbound_id: int, *, code: Outcome, text: str,
    authenticated: bool = False, thread: str | None = None, notices: Iterable[str] = (),
) -> None:
    """Record how a mail was handled: the facts code reads (``code``, whether
    it carried its manager's right password, the bot thread it answers, the
    notice codes of its reply) and the line for people (``text``, at most
    1000 characters)."""
    conn.execute(
        "UPDATE inbound SET code = ?, outcome = ?, authenticated = ?, thread = ?, notices = ?"
        " WHERE id = ?",
        (str(code), text[:1000], int(authenticated), thread, " ".join(notices) or None,
         inbound_id),
    )


def link(
    conn: sqlite3.Connection, inbound_id: int, *, round_number: int | None,
    manager_id: int | None,
) -> None:
    """Record which round and manager a human's mail counted for."""
    conn.execute(
        "UPDATE inbound SET round = ?, manager_id = ? WHERE id = ?",
        (round_number, manager_id, inbound_id),
    )


# -- what the sender's recent mails were (rate limit, loops, password reset) --

def _recent(conn: sqlite3.Connection, condition: str, sender: str, since: datetime,
            other_than: int, *params: object) -> int:
    """How many of the sender's human mails received after ``since``, other
    than ``other_than``, meet ``condition`` (index ``inbound_sender``)."""
    row = conn.execute(
        "SELECT COUNT(*) FROM inbound WHERE sender = ? AND received_at > ? AND id <> ?"
        f" AND kind = 'human' AND {condition}",
        (sender, time_to_db(since), other_than, *params),
    ).fetchone()
    return int(row[0])


def unverified_since(
    conn: sqlite3.Connection, sender: str, *, since: datetime, other_than: int,
) -> int:
    """How many of the sender's human mails after ``since`` did not carry
    their manager's right password (those count against the hourly limit)."""
    return _recent(conn, "authenticated = 0", sender, since, other_than)


def slowed_down_since(
    conn: sqlite3.Connection, sender: str, *, since: datetime, other_than: int,
) -> bool:
    """Whether the sender was asked to slow down (``slow_down``) after ``since``."""
    return bool(_recent(conn, "code = ?", sender, since, other_than,
                        str(Outcome.SLOW_DOWN)))


def thread_answered_since(
    conn: sqlite3.Connection, sender: str, thread: str, *, since: datetime, other_than: int,
) -> bool:
    """Whether a mail of the sender in the bot's ``thread`` came after ``since``
    (loops: such a mail without a command is answered once a thread and day)."""
    return bool(_recent(conn, "thread = ?", sender, since, other_than, thread))


def password_reset_since(
    conn: sqlite3.Connection, sender: str, *, since: datetime, other_than: int,
) -> bool:
    """Whether the sender got a new password (``password_reset``) after ``since``."""
    return bool(_recent(conn, "code = ?", sender, since, other_than,
                        str(Outcome.PASSWORD_RESET)))


@dataclass(frozen=True, slots=True)
class LedgerLine:
    """A handled mail as the digest lists it: who, what kind, its ``code``
    (None while unset, or for a line of an old shape) and its ``text``."""

    sender: str
    kind: str
    code: str | None
    text: str


def received_between(conn: sqlite3.Connection, after: str, until: str) -> list[LedgerLine]:
    """The mails received in (``after``, ``until``], in ledger order
    (``text`` '' while unset)."""
    rows = conn.execute(
        "SELECT sender, kind, code, outcome FROM inbound WHERE received_at > ?"
        " AND received_at <= ? ORDER BY id", (after, until),
    ).fetchall()
    return [LedgerLine(sender, kind, code, text or "") for sender, kind, code, text in rows]


# -- failed attempts and quarantine -------------------------------------------


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
            "SELECT id, code, attempts, outcome FROM inbound"
            " WHERE source = ? AND uidvalidity IS ? AND uid = ?",
            (source_kind(source), uidvalidity, uid),
        ).fetchone()
    else:
        row = conn.execute(
            "SELECT id, code, attempts, outcome FROM inbound WHERE sha256 = ?"
            " ORDER BY id LIMIT 1", (sha256,)
        ).fetchone()
    if not row or row[1] != Outcome.RETRY:
        return None
    return RetryRow(int(row[0]), int(row[2]), row[3] or "")


def record_failed_attempt(
    conn: sqlite3.Connection, record: InboundRecord, previous: RetryRow | None, error: str,
) -> RetryRow:
    """Count one more failed attempt of a mail (a ``retry`` row)."""
    attempts = (previous.attempts if previous else 0) + 1
    outcome = f"{Outcome.RETRY}: {attempts} failed attempt(s): {error}"
    inbound_id = previous.inbound_id if previous else insert(conn, record)
    finish(conn, inbound_id, code=Outcome.RETRY, text=outcome)
    conn.execute("UPDATE inbound SET attempts = ? WHERE id = ?", (attempts, inbound_id))
    return RetryRow(inbound_id, attempts, outcome[:1000])


def is_quarantined(conn: sqlite3.Connection, inbound_id: int) -> bool:
    """Whether the mail of this ledger row was quarantined."""
    row = conn.execute("SELECT code FROM inbound WHERE id = ?", (inbound_id,)).fetchone()
    return row is not None and row[0] == Outcome.QUARANTINED


def forget_retry(conn: sqlite3.Connection, retry: RetryRow) -> None:
    """Drop the ``retry`` row of a mail that is now handled (in the same
    transaction that ledgers it for good)."""
    conn.execute("DELETE FROM inbound WHERE id = ? AND code = ?",
                 (retry.inbound_id, str(Outcome.RETRY)))


def quarantined_between(
    conn: sqlite3.Connection, after: str, until: str
) -> list[tuple[str, str, str]]:
    """(sender, subject, outcome) of the mails quarantined among those
    received in (``after``, ``until``], in ledger order."""
    rows = conn.execute(
        "SELECT sender, subject, outcome FROM inbound WHERE received_at > ?"
        " AND received_at <= ? AND code = ? ORDER BY id",
        (after, until, str(Outcome.QUARANTINED)),
    ).fetchall()
    return [(sender or "?", subject or "", outcome or "") for sender, subject, outcome in rows]


def quarantined_count(conn: sqlite3.Connection) -> tuple[int, int]:
    """(mails quarantined, mails waiting to be tried again) in the whole ledger
    (index ``inbound_trouble``: only such rows are read)."""
    counts = dict(conn.execute(
        "SELECT code, COUNT(*) FROM inbound WHERE code IN ('quarantined', 'retry')"
        " GROUP BY code"
    ).fetchall())
    return int(counts.get(Outcome.QUARANTINED, 0)), int(counts.get(Outcome.RETRY, 0))
