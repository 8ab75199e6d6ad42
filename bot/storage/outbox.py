"""The ``outbox`` table: every outgoing message, queued before it is sent.

States (``OutboxState``): ``queued`` -> ``sending`` -> ``sent`` | ``failed``
(or back to ``queued`` to retry). The drain that moves messages through
them is ``bot.service.drain``; this module only reads and writes rows.

No password in clear at rest: a row keeps its body (``raw``) only while it
may still be sent. ``finish`` empties it (the zero-length blob: the column
stays NOT NULL, no table rebuild) when the message is ``sent`` or ``failed``
for good; what stays is its Message-ID, recipient, kind, round, ``size`` and
the SHA-256 ``sha256`` of the bytes that were (or would have been) sent.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from bot.storage.values import time_to_db

#: The stored kinds (equal to ``bot.mail.compose.MailKind``'s values).
KINDS = ("reply", "newsletter", "reminder", "digest", "notice")


class OutboxState(StrEnum):
    QUEUED = "queued"
    SENDING = "sending"
    SENT = "sent"
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class Claimed:
    """A message marked ``sending``, about to be handed to the sender."""

    id: int
    recipient: str
    raw: bytes
    attempts: int


def enqueue(
    conn: sqlite3.Connection,
    *,
    raw: bytes,
    message_id: str,
    kind: str,
    recipient: str,
    now: datetime,
    inbound_id: int | None = None,
    round: int | None = None,  # the column's name (shadows the builtin here only)
) -> int:
    """Queue one message in the caller's transaction; returns its row id.

    Idempotent on ``message_id``: queuing the same message again returns the
    existing row and changes nothing.
    """
    if kind not in KINDS:
        raise ValueError(f"outbox kind {kind!r} is unknown: expected one of {', '.join(KINDS)}")
    if not isinstance(raw, bytes | bytearray) or not raw:
        raise ValueError(f"outbox message {message_id!r} needs its raw RFC 5322 bytes")
    if not message_id or not recipient:
        raise ValueError(
            f"outbox message needs a Message-ID and a recipient, got "
            f"message_id={message_id!r}, recipient={recipient!r}"
        )
    at = time_to_db(now)
    conn.execute(
        "INSERT OR IGNORE INTO outbox (message_id, kind, recipient, raw, created_at, state,"
        " attempts, next_attempt_at, inbound_id, round, size, sha256)"
        " VALUES (?, ?, ?, ?, ?, 'queued', 0, ?, ?, ?, ?, ?)",
        (message_id, str(kind), recipient, bytes(raw), at, at, inbound_id, round, len(raw),
         hashlib.sha256(raw).hexdigest()),
    )
    row = conn.execute("SELECT id FROM outbox WHERE message_id = ?", (message_id,)).fetchone()
    return int(row[0])


def counts(conn: sqlite3.Connection) -> dict[str, int]:
    """Number of outbox rows per state (every state present, zero if none)."""
    result = {str(state): 0 for state in OutboxState}
    for state, number in conn.execute("SELECT state, count(*) FROM outbox GROUP BY state"):
        result[state] = number
    return result


def recover_sending(conn: sqlite3.Connection) -> int:
    """Put rows a crash left ``sending`` back to ``queued``; returns how many."""
    return conn.execute("UPDATE outbox SET state = 'queued' WHERE state = 'sending'").rowcount


def next_due(conn: sqlite3.Connection, at: datetime) -> int | None:
    """The id of the oldest queued message due at ``at``."""
    row = conn.execute(
        "SELECT id FROM outbox WHERE state = 'queued' AND next_attempt_at <= ?"
        " ORDER BY id LIMIT 1",
        (time_to_db(at),),
    ).fetchone()
    return None if row is None else int(row[0])


def claim(conn: sqlite3.Connection, at: datetime) -> Claimed | None:
    """Mark the oldest due message ``sending`` (the caller commits before sending)."""
    row = conn.execute(
        "SELECT id, recipient, raw, attempts FROM outbox"
        " WHERE state = 'queued' AND next_attempt_at <= ? ORDER BY id LIMIT 1",
        (time_to_db(at),),
    ).fetchone()
    if row is None:
        return None
    conn.execute("UPDATE outbox SET state = 'sending' WHERE id = ?", (row[0],))
    return Claimed(int(row[0]), str(row[1]), bytes(row[2]), int(row[3]))


def finish(
    conn: sqlite3.Connection, row_id: int, state: OutboxState, attempts: int,
    error: str | None, at: datetime,
) -> None:
    """Mark a message ``sent`` or ``failed`` for good and drop its body (its
    size and digest stay; the failure's recipient and error are what the
    game master's digest reports).

    The row is deleted and inserted again, same id, without its body: an
    UPDATE would leave the b-tree page that held the large row almost empty
    for good (SQLite rebalances pages on a delete, not on a shrinking
    update), and the outbox would grow by a page per mail ever sent."""
    if state not in (OutboxState.SENT, OutboxState.FAILED):
        raise ValueError(f"a message finishes as sent or failed, not {state!r}")
    columns = [str(r[1]) for r in conn.execute("PRAGMA table_info(outbox)")]
    row = conn.execute(f"SELECT {', '.join(columns)} FROM outbox WHERE id = ?",
                       (row_id,)).fetchone()
    if row is None:
        raise ValueError(f"outbox message {row_id} does not exist")
    values = dict(zip(columns, tuple(row), strict=True))
    values.update(
        state=str(state), attempts=attempts, last_error=error, raw=b"",
        sent_at=time_to_db(at) if state == OutboxState.SENT else None,
        failed_at=time_to_db(at) if state == OutboxState.FAILED else None,
    )
    conn.execute("DELETE FROM outbox WHERE id = ?", (row_id,))
    conn.execute(f"INSERT INTO outbox ({', '.join(columns)})"
                 f" VALUES ({', '.join('?' * len(columns))})", tuple(values.values()))


def requeue(
    conn: sqlite3.Connection, row_id: int, attempts: int, error: str,
    retry_at: datetime | None,
) -> None:
    """Back to ``queued`` (at ``retry_at``, or as due as before)."""
    if retry_at is None:
        conn.execute(
            "UPDATE outbox SET state = 'queued', attempts = ?, last_error = ? WHERE id = ?",
            (attempts, error, row_id),
        )
    else:
        conn.execute(
            "UPDATE outbox SET state = 'queued', attempts = ?, last_error = ?,"
            " next_attempt_at = ? WHERE id = ?",
            (attempts, error, time_to_db(retry_at), row_id),
        )


@dataclass(frozen=True, slots=True)
class Record:
    """What the outbox keeps of a message (``raw`` is empty once it is finished)."""

    message_id: str
    kind: str
    recipient: str
    state: str
    round: int | None
    size: int
    sha256: str
    raw: bytes


def records(conn: sqlite3.Connection, *, kind: str | None = None,
            round: int | None = None) -> list[Record]:  # the column's name
    """The outbox rows (of ``kind``, of ``round``), oldest first."""
    where: list[str] = []
    args: list[object] = []
    if kind is not None:
        where.append("kind = ?")
        args.append(str(kind))
    if round is not None:
        where.append("round = ?")
        args.append(round)
    sql = ("SELECT message_id, kind, recipient, state, round, size, sha256, raw FROM outbox"
           + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY id")
    return [Record(r[0], r[1], r[2], r[3], r[4], int(r[5] or 0), r[6] or "", bytes(r[7]))
            for r in conn.execute(sql, args)]


def kinds(conn: sqlite3.Connection, message_ids: Iterable[str]) -> dict[str, str]:
    """Message-ID -> kind of the outbox rows with those Message-IDs."""
    found: dict[str, str] = {}
    wanted = list(dict.fromkeys(message_ids))
    for start in range(0, len(wanted), 500):
        chunk = wanted[start:start + 500]
        marks = ", ".join("?" * len(chunk))
        for message_id, kind in conn.execute(
                f"SELECT message_id, kind FROM outbox WHERE message_id IN ({marks})", chunk):
            found[str(message_id)] = str(kind)
    return found


def unqueued_rounds(conn: sqlite3.Connection, kind: str) -> list[int]:
    """Evaluated rounds with no outbox row of ``kind`` (e.g. newsletters never queued);
    for a round evaluated again after a rollback, only rows queued since that
    evaluation count (the earlier ones carried the results it corrects)."""
    rows = conn.execute(
        "SELECT r.number FROM rounds r WHERE r.state = 'evaluated' AND NOT EXISTS"
        " (SELECT 1 FROM outbox o WHERE o.kind = ? AND o.round = r.number"
        "  AND (r.corrects = 0 OR o.created_at >= r.evaluated_at))"
        " ORDER BY r.number", (str(kind),),
    ).fetchall()
    return [int(r[0]) for r in rows]


def failed_since(conn: sqlite3.Connection, after: str) -> list[tuple[str, str]]:
    """(recipient, last error) of messages that failed after the stored time ``after``."""
    rows = conn.execute(
        "SELECT recipient, last_error FROM outbox WHERE state = 'failed'"
        " AND failed_at > ? ORDER BY id", (after,),
    ).fetchall()
    return [(r[0], r[1]) for r in rows]


def waiting_since(conn: sqlite3.Connection, before: datetime) -> int:
    """How many messages queued (or being sent) were created at or before ``before``."""
    return int(conn.execute(
        "SELECT COUNT(*) FROM outbox WHERE state IN ('queued', 'sending')"
        " AND created_at <= ?", (time_to_db(before),),
    ).fetchone()[0])


def cancel_unsent(conn: sqlite3.Connection, round_number: int, kinds: tuple[str, ...]) -> int:
    """Cancel (remove) the queued, not yet sent mails of ``kinds`` about round
    ``round_number``; sent ones stay. Returns how many were cancelled."""
    marks = ", ".join("?" * len(kinds))
    return conn.execute(
        f"DELETE FROM outbox WHERE round = ? AND state IN ('queued', 'failed')"
        f" AND kind IN ({marks})",
        (round_number, *kinds),
    ).rowcount
