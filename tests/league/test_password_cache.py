"""The verified-password cache: a password that matched a stored hash is not
hashed again in the process; a wrong one always is; a new hash starts afresh."""

from __future__ import annotations

import os

import pytest

from bot.league import passwords
from bot.league.passwords import VERIFIED, VerifiedPasswords, hash_password, verify_password


@pytest.fixture
def scrypt_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the real scrypt runs (the real function still runs)."""
    calls: list[int] = []
    real = passwords._scrypt

    def counted(text: str, salt: bytes, n: int, r: int, p: int) -> bytes:
        calls.append(n)
        return real(text, salt, n, r, p)

    monkeypatch.setattr(passwords, "_scrypt", counted)
    VERIFIED.clear()
    yield calls
    VERIFIED.clear()


def test_a_verified_password_is_not_hashed_again(scrypt_calls: list[int]) -> None:
    stored = hash_password("k7f-x2q-m4p", n=16)
    scrypt_calls.clear()
    assert verify_password("k7f-x2q-m4p", stored)
    assert verify_password("K7FX2QM4P", stored)  # the same password, typed differently
    assert verify_password("k7f x2q m4p", stored)
    assert scrypt_calls == [16]


def test_a_wrong_password_is_hashed_every_time_and_never_matches(scrypt_calls: list[int]) -> None:
    stored = hash_password("k7f-x2q-m4p", n=16)
    assert verify_password("k7f-x2q-m4p", stored)
    scrypt_calls.clear()
    for _ in range(3):
        assert not verify_password("k7f-x2q-m4q", stored)
    assert scrypt_calls == [16, 16, 16]
    assert verify_password("k7f-x2q-m4p", stored)  # the right one still counts, cached
    assert len(scrypt_calls) == 3


def test_a_changed_hash_does_not_accept_the_old_password(scrypt_calls: list[int]) -> None:
    old = hash_password("k7f-x2q-m4p", n=16)
    assert verify_password("k7f-x2q-m4p", old)
    new = hash_password("abc-def-ghj", n=16)  # the manager got a new password
    scrypt_calls.clear()
    assert not verify_password("k7f-x2q-m4p", new)
    assert verify_password("abc-def-ghj", new)
    assert scrypt_calls == [16, 16]


def test_the_same_password_of_two_managers_is_checked_against_each_hash(
    scrypt_calls: list[int],
) -> None:
    one, two = hash_password("k7f-x2q-m4p", n=16), hash_password("k7f-x2q-m4p", n=16)
    scrypt_calls.clear()
    assert verify_password("k7f-x2q-m4p", one)
    assert verify_password("k7f-x2q-m4p", two)
    assert scrypt_calls == [16, 16]  # one hash's success says nothing about the other


def test_forget_clear_and_disabled_mean_scrypt_again(scrypt_calls: list[int]) -> None:
    stored = hash_password("k7f-x2q-m4p", n=16)
    assert verify_password("k7f-x2q-m4p", stored)
    VERIFIED.forget(stored)
    assert verify_password("k7f-x2q-m4p", stored)
    VERIFIED.clear()
    assert verify_password("k7f-x2q-m4p", stored)
    VERIFIED.enabled = False
    try:
        scrypt_calls.clear()
        assert verify_password("k7f-x2q-m4p", stored)
        assert verify_password("k7f-x2q-m4p", stored)
        assert scrypt_calls == [16, 16]
    finally:
        VERIFIED.enabled = True


def test_the_cache_is_bounded_and_holds_no_password() -> None:
    cache = VerifiedPasswords(size=2)
    for n in range(5):
        cache.remember(f"secret{n}", f"hash{n}")
    assert len(cache) == 2
    assert not cache.matches("secret0", "hash0")  # the oldest went first
    assert cache.matches("secret4", "hash4")
    assert not cache.matches("secret3", "hash4")
    held = b"".join(cache._entries.values())
    assert b"secret" not in held and all(len(v) == 32 for v in cache._entries.values())
    with pytest.raises(ValueError, match="at least 1"):
        VerifiedPasswords(size=0)


def test_the_key_is_per_process_so_entries_do_not_carry_over() -> None:
    one, two = VerifiedPasswords(), VerifiedPasswords()
    one.remember("secret", "hash")
    two.remember("secret", "hash")
    assert one._entries["hash"] != two._entries["hash"]
    before = one._entries["hash"]
    one.clear()
    one.remember("secret", "hash")
    assert one._entries["hash"] != before


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_starts_with_an_empty_cache() -> None:
    stored = hash_password("k7f-x2q-m4p", n=16)
    assert verify_password("k7f-x2q-m4p", stored)
    assert len(VERIFIED) >= 1
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        os.write(write, str(len(VERIFIED)).encode())
        os._exit(0)
    os.close(write)
    child_size = int(os.read(read, 100))
    os.close(read)
    os.waitpid(pid, 0)
    assert child_size == 0
