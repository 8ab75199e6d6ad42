"""Manager passwords (RULES.md §9): generated, salted scrypt hashes, checked in constant time.

A password is three groups of three characters (``k7f-x2q-m4p``) from an
alphabet without look-alikes. Players may type it in any case, with or
without the dashes: only letters and digits count.

A password that verified once is not hashed again in the same process
(``VerifiedPasswords``): a keyed, bounded in-memory cache maps each stored
hash to an HMAC of the password that matched it, under a random key made per
process (and anew after ``fork``). It never reaches the disk, holds no
password, and a changed stored hash (a new password) is a different key, so
the old password stops counting at once. Wrong passwords always cost scrypt.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import threading
from collections import OrderedDict

#: No 0/o, 1/l/i: easy to read back from a mail.
ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
GROUPS, GROUP_LENGTH = 3, 3
#: scrypt cost; stored in each hash, so it can be changed at any time.
DEFAULT_N, DEFAULT_R, DEFAULT_P = 2**14, 8, 1


def generate_password() -> str:
    """A fresh password from ``secrets``, e.g. ``'k7f-x2q-m4p'``."""
    return "-".join(
        "".join(secrets.choice(ALPHABET) for _ in range(GROUP_LENGTH)) for _ in range(GROUPS)
    )


def normalize(password: str) -> str:
    """What counts of a typed password: its letters and digits, lower case."""
    return "".join(ch for ch in password.casefold() if ch.isalnum())


def hash_password(password: str, *, n: int = DEFAULT_N) -> str:
    """``scrypt$N$r$p$salt$hash`` (hex) of the normalized password."""
    if n < 2 or n & (n - 1):
        raise ValueError(f"scrypt cost n={n} must be a power of two >= 2")
    salt = secrets.token_bytes(16)
    digest = _scrypt(normalize(password), salt, n, DEFAULT_R, DEFAULT_P)
    return f"scrypt${n}${DEFAULT_R}${DEFAULT_P}${salt.hex()}${digest.hex()}"


class VerifiedPasswords:
    """Stored hash -> HMAC (per-process random key) of the password that verified
    against it; at most ``size`` entries, the least recently used go first."""

    def __init__(self, size: int = 4096) -> None:
        if size < 1:
            raise ValueError(f"cache size {size} must be at least 1")
        self.size = size
        #: False: every check runs scrypt (the old path, for benchmarks).
        self.enabled = True
        self._lock = threading.Lock()
        self._entries: OrderedDict[str, bytes] = OrderedDict()
        self._key = secrets.token_bytes(32)

    def __len__(self) -> int:
        return len(self._entries)

    def _mac(self, normalized: str, stored: str) -> bytes:
        return hmac.digest(self._key, f"{stored}\0{normalized}".encode(), "sha256")

    def matches(self, normalized: str, stored: str) -> bool:
        """True when this password verified against ``stored`` before."""
        if not self.enabled:
            return False
        mac = self._mac(normalized, stored)
        with self._lock:
            known = self._entries.get(stored)
            if known is None or not hmac.compare_digest(known, mac):
                return False
            self._entries.move_to_end(stored)
        return True

    def remember(self, normalized: str, stored: str) -> None:
        """Note that the password verified against ``stored``."""
        if not self.enabled:
            return
        mac = self._mac(normalized, stored)
        with self._lock:
            self._entries[stored] = mac
            self._entries.move_to_end(stored)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)

    def forget(self, stored: str) -> None:
        """Drop what is known about ``stored`` (its manager's password changed)."""
        with self._lock:
            self._entries.pop(stored, None)

    def clear(self) -> None:
        """Forget everything and draw a new key (as a fresh process would)."""
        with self._lock:
            self._entries.clear()
            self._key = secrets.token_bytes(32)


#: The process's cache, used by ``verify_password``.
VERIFIED = VerifiedPasswords()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=VERIFIED.clear)


def verify_password(password: str, stored: str) -> bool:
    """True when ``password`` matches the stored hash (constant-time compare);
    a password that matched this hash before in this process is not hashed again."""
    normalized = normalize(password)
    if VERIFIED.matches(normalized, stored):
        return True
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            raise ValueError(scheme)
        expected = bytes.fromhex(digest)
        actual = _scrypt(normalized, bytes.fromhex(salt), int(n), int(r), int(p))
    except ValueError as exc:
        raise ValueError(
            f"stored password hash is not in the form 'scrypt$N$r$p$salt$hash': {exc}"
        ) from exc
    if not hmac.compare_digest(actual, expected):
        return False
    VERIFIED.remember(normalized, stored)
    return True


def _scrypt(text: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(
        text.encode("utf-8"), salt=salt, n=n, r=r, p=p, maxmem=256 * 1024 * 1024, dklen=32
    )
