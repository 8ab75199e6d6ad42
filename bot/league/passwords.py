"""Manager passwords (RULES.md §9): generated, salted scrypt hashes, checked in constant time.

A password is three groups of three characters (``k7f-x2q-m4p``) from an
alphabet without look-alikes. Players may type it in any case, with or
without the dashes: only letters and digits count.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

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


def verify_password(password: str, stored: str) -> bool:
    """True when ``password`` matches the stored hash (constant-time compare)."""
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            raise ValueError(scheme)
        expected = bytes.fromhex(digest)
        actual = _scrypt(normalize(password), bytes.fromhex(salt), int(n), int(r), int(p))
    except ValueError as exc:
        raise ValueError(
            f"stored password hash is not in the form 'scrypt$N$r$p$salt$hash': {exc}"
        ) from exc
    return hmac.compare_digest(actual, expected)


def _scrypt(text: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(
        text.encode("utf-8"), salt=salt, n=n, r=r, p=p, maxmem=256 * 1024 * 1024, dklen=32
    )
