"""Auditable lots (RULES.md §4): a round's seed is committed before any lineup
can arrive and revealed with the results.

The commitment is ``SHA-256("turnited-seed:<round>:<seed>")`` in hex, ``<round>``
the overall round number and ``<seed>`` in decimal, so a player can check it
with nothing but ``sha256sum``::

    printf 'turnited-seed:%s:%s' 12 4711 | sha256sum
"""

from __future__ import annotations

import hashlib
import hmac
import string

from bot.rules.errors import RulesError

#: The text that is hashed, before the round number and the seed.
PREFIX = "turnited-seed"


class InvalidCommitmentError(RulesError):
    """A commitment that is not 64 hexadecimal digits, or a seed or round that is not
    a whole number >= 0 (or >= 1 for the round)."""


def commitment_text(round_number: int, seed: int) -> str:
    """The exact text whose SHA-256 is published: ``turnited-seed:12:4711``."""
    if isinstance(round_number, bool) or not isinstance(round_number, int) or round_number < 1:
        raise InvalidCommitmentError(
            f"invalid round {round_number!r}: rounds are numbered from 1, e.g. 12"
        )
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InvalidCommitmentError(f"invalid seed {seed!r}: a seed is a whole number >= 0")
    return f"{PREFIX}:{round_number}:{seed}"


def seed_commitment(round_number: int, seed: int) -> str:
    """The published commitment of ``seed`` for round ``round_number`` (64 hex digits)."""
    return hashlib.sha256(commitment_text(round_number, seed).encode("ascii")).hexdigest()


def normalise_commitment(text: str) -> str:
    """A commitment as typed by a person (any case, surrounding blanks, a trailing
    `` -`` as ``sha256sum`` prints it) -> 64 lower-case hex digits."""
    cleaned = text.strip().removesuffix("-").strip().lower()
    if len(cleaned) != 64 or any(c not in string.hexdigits for c in cleaned):
        raise InvalidCommitmentError(
            f"invalid commitment {text!r}: expected the 64 hexadecimal digits of a SHA-256"
        )
    return cleaned


def verify_seed(round_number: int, seed: int, commitment: str) -> bool:
    """Whether ``seed`` is the one committed to for round ``round_number``."""
    expected = seed_commitment(round_number, seed)
    return hmac.compare_digest(expected, normalise_commitment(commitment))


__all__ = [
    "PREFIX",
    "InvalidCommitmentError",
    "commitment_text",
    "normalise_commitment",
    "seed_commitment",
    "verify_seed",
]
