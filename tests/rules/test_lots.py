"""Auditable lots (RULES.md §4): the seed commitment a player can check with sha256sum."""

from __future__ import annotations

import hashlib
import shutil
import subprocess

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules.lots import (
    InvalidCommitmentError,
    commitment_text,
    normalise_commitment,
    seed_commitment,
    verify_seed,
)


def test_commitment_is_sha256_of_the_documented_text() -> None:
    assert commitment_text(12, 4711) == "turnited-seed:12:4711"
    assert seed_commitment(12, 4711) == hashlib.sha256(b"turnited-seed:12:4711").hexdigest()


@pytest.mark.skipif(shutil.which("sha256sum") is None, reason="coreutils' sha256sum missing")
def test_the_readme_one_liner_gives_the_same_digest() -> None:
    out = subprocess.run(
        "printf 'turnited-seed:%s:%s' 12 4711 | sha256sum", shell=True, check=True,
        capture_output=True, text=True,
    ).stdout
    assert verify_seed(12, 4711, out)  # sha256sum prints "<hex>  -"


@given(st.integers(1, 10**6), st.integers(0, 2**63 - 1))
def test_a_seed_verifies_against_its_own_commitment_only(round_number: int, seed: int) -> None:
    commitment = seed_commitment(round_number, seed)
    assert verify_seed(round_number, seed, commitment.upper())
    assert not verify_seed(round_number, seed + 1, commitment)
    assert not verify_seed(round_number + 1, seed, commitment)


@pytest.mark.parametrize("bad", ["", "abc", "g" * 64, "0" * 63, "0" * 65])
def test_a_malformed_commitment_is_a_clear_error(bad: str) -> None:
    with pytest.raises(InvalidCommitmentError, match="64 hexadecimal digits"):
        normalise_commitment(bad)


@pytest.mark.parametrize(("round_number", "seed"), [(0, 1), (-1, 1), (1, -1), (True, 1), (1, 1.5)])
def test_round_and_seed_are_whole_numbers(round_number: object, seed: object) -> None:
    with pytest.raises(InvalidCommitmentError):
        seed_commitment(round_number, seed)  # type: ignore[arg-type]
