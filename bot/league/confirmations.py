"""Confirmation codes: a request carried out only when a second mail brings its code.

Irreversible or address-changing requests take two mails (RULES.md §12 for
a player's ``Neue Adresse`` and ``Daten löschen``, §13 for the game master's
destructive commands): the first one ``issue``s a code, mailed to the
address that must answer; the request is carried out when a mail **from
that address** carries ``Bestätigen: CODE`` / ``Confirm: CODE`` and
``redeem`` accepts it. What this module guarantees, for every purpose:

* **store**: a request is a row of ``confirmations`` (``bot.storage``):
  purpose, the address that must confirm, the manager, what else the
  request needs (``payload``), and the code's salted SHA-256 digest, never
  the code itself;
* **expiry**: a code holds ``VALID_FOR`` (7 days) unless the caller gives
  another span; later it is refused as expired;
* **one use**: a redeemed code is ``used`` and refused as such afterwards;
  a newer request of the same purpose and manager ``replaces`` the older
  one, whose code is refused as replaced;
* **constant-time compare**: the digest of what was written is compared
  with every stored digest of that sender with ``hmac.compare_digest``;
* **limited attempts**: after ``MAX_WRONG`` wrong codes from the address
  since the oldest request waiting for it, its requests are blocked (a new
  request starts afresh). A wrong code is an error of its mail, which then
  changes nothing at all; the ledger keeps the notice ``CODE_WRONG`` of
  such a mail, and that is what is counted.

Codes are eight characters from an alphabet without look-alikes, shown
``K7FX-2QMP``; case, spaces and dashes do not matter when they come back.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import sqlite3
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from bot.storage import confirmations as rows
from bot.storage.confirmations import ConfirmationRow

#: No 0/O, 1/I/L: easy to read back from a mail and to type.
ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
LENGTH = 8
#: How long a code holds (RULES.md §12: within 7 days).
VALID_FOR = timedelta(days=7)
#: Wrong codes from one address before its waiting requests are blocked.
MAX_WRONG = 5
#: The notice of a mail refused for a wrong code; stored in the ledger's
#: outcome line, where ``redeem`` counts it (so it never changes).
CODE_WRONG = "code_wrong"


class Refusal(StrEnum):
    """Why a code confirms nothing (each a notice of the reply: ``code_<value>``)."""

    #: Nothing waits for a confirmation from this address.
    NONE = "none"
    #: Requests wait, but the code is none of theirs (``attempts_left`` more).
    WRONG = "wrong"
    EXPIRED = "expired"
    USED = "used"
    #: A newer request of the same kind took its place.
    REPLACED = "replaced"
    #: Too many wrong codes: the waiting requests are blocked.
    BLOCKED = "blocked"

    @property
    def code(self) -> str:
        """The notice code of the refusal (``code_wrong``, ...)."""
        return f"code_{self.value}"


@dataclass(frozen=True, slots=True)
class Confirmation:
    """A request confirmed by its code: carry it out."""

    id: int
    purpose: str
    confirm_from: str
    manager_id: int | None
    payload: dict[str, Any]
    created_at: datetime


@dataclass(frozen=True, slots=True)
class Refused:
    """A code that confirms nothing, and why."""

    reason: Refusal
    #: Wrong codes still allowed before the requests are blocked (``WRONG``).
    attempts_left: int | None = None
    #: When the code stopped holding (``EXPIRED``).
    expired_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class Issued:
    """A new request: its ``code`` (to mail to ``confirm_from``) and until when it holds."""

    id: int
    code: str
    expires_at: datetime


def new_code() -> str:
    """Eight characters from ``secrets``, e.g. ``'K7FX2QMP'``."""
    return "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))


def shown(code: str) -> str:
    """``'K7FX2QMP'`` -> ``'K7FX-2QMP'`` (how a mail shows it)."""
    half = len(code) // 2
    return f"{code[:half]}-{code[half:]}"


def normalize(written: str) -> str:
    """What counts of a code as written: its letters and digits, upper case."""
    return "".join(ch for ch in written.upper() if ch.isascii() and ch.isalnum())


def looks_like_code(written: str) -> bool:
    """Could ``written`` be a code at all (a mail client's ``Bestätigen: ja`` is not)."""
    code = normalize(written)
    return len(code) == LENGTH and all(ch in ALPHABET for ch in code)


def _digest(code: str, salt: bytes) -> bytes:
    return hashlib.sha256(salt + normalize(code).encode("ascii")).digest()


def _hash(code: str) -> str:
    salt = secrets.token_bytes(16)
    return f"sha256${salt.hex()}${_digest(code, salt).hex()}"


def _matches(code: str, stored: str) -> bool:
    """Constant time in the code: the digest of ``code`` against ``stored``."""
    _, salt, digest = stored.split("$")
    return hmac.compare_digest(_digest(code, bytes.fromhex(salt)), bytes.fromhex(digest))


def issue(
    conn: sqlite3.Connection, *, purpose: str, confirm_from: str, manager_id: int | None,
    now: datetime, payload: dict[str, Any] | None = None, valid_for: timedelta = VALID_FOR,
) -> Issued:
    """A new request of ``purpose`` that a mail from ``confirm_from`` confirms;
    an earlier pending one of the same purpose and manager is replaced."""
    if not purpose.isidentifier() or purpose != purpose.lower():
        raise ValueError(f"a confirmation's purpose is a lower-case word, not {purpose!r}")
    rows.replace_pending(conn, purpose, manager_id=manager_id, confirm_from=confirm_from,
                         now=now)
    code = new_code()
    expires_at = now + valid_for
    row_id = rows.insert(conn, purpose=purpose, confirm_from=confirm_from,
                         manager_id=manager_id, payload=payload or {}, code_hash=_hash(code),
                         now=now, expires_at=expires_at)
    return Issued(row_id, code, expires_at)


def redeem(
    conn: sqlite3.Connection, *, confirm_from: str, code: str, now: datetime,
    purposes: Collection[str],
) -> Confirmation | Refused:
    """The waiting request of ``purposes`` that ``code`` in a mail from
    ``confirm_from`` confirms, now ``used``; or why it confirms nothing."""
    candidates = rows.of_sender(conn, confirm_from, tuple(purposes))
    waiting = [r for r in candidates if r.state == rows.PENDING and now <= r.expires_at]
    wrong = 0
    if waiting:
        since = min(r.created_at for r in waiting)
        wrong = rows.wrong_codes_since(conn, confirm_from, since, CODE_WRONG)
        if wrong >= MAX_WRONG:
            return Refused(Refusal.BLOCKED)
    match = _first_match(code, candidates)
    if match is None:
        if not waiting:
            return Refused(Refusal.NONE)
        return Refused(Refusal.WRONG, attempts_left=MAX_WRONG - wrong - 1)
    if match.state == rows.USED:
        return Refused(Refusal.USED)
    if match.state == rows.REPLACED:
        return Refused(Refusal.REPLACED)
    if now > match.expires_at:
        return Refused(Refusal.EXPIRED, expired_at=match.expires_at)
    rows.mark_used(conn, match.id, now)
    return Confirmation(match.id, match.purpose, match.confirm_from, match.manager_id,
                        match.payload, match.created_at)


def _first_match(code: str, candidates: list[ConfirmationRow]) -> ConfirmationRow | None:
    """The newest candidate whose digest ``code`` matches; every candidate is
    compared (no early exit that would tell which one matched by its time)."""
    found = None
    for row in candidates:
        if _matches(code, row.code_hash) and found is None:
            found = row
    return found


__all__ = ["CODE_WRONG", "MAX_WRONG", "VALID_FOR", "Confirmation", "Issued", "Refusal",
           "Refused", "issue", "looks_like_code", "normalize", "redeem", "shown"]
