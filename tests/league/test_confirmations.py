"""The confirmation codes (``bot.league.confirmations``) on a real database
file: stored as salted digests, one use, expiry, a newer request replacing
an older one, the wrong codes the ledger remembers, and the block after
``MAX_WRONG`` of them. (The commands that use them are tested through the
mail path: ``tests/service/test_new_address.py``, ``test_erase_data.py``.)"""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.league import confirmations as codes
from bot.league.confirmations import MAX_WRONG, VALID_FOR, Confirmation, Refusal, Refused
from bot.league.service import League
from bot.storage import ledger
from bot.storage.db import database_files
from bot.storage.ledger import InboundRecord, Outcome
from tests.support.league import START

NEW = "neu@player.example"


def issue(league: League, purpose: str = "move", *, manager_id: int | None = None,
          confirm_from: str = NEW, when=START, payload=None) -> codes.Issued:
    with league.db.transaction() as conn:
        return codes.issue(conn, purpose=purpose, confirm_from=confirm_from,
                           manager_id=manager_id, now=when, payload=payload)


def redeem(league: League, code: str, *, when=START + timedelta(hours=1),
           confirm_from: str = NEW, purposes=("move",)) -> Confirmation | Refused:
    with league.db.transaction() as conn:
        return codes.redeem(conn, confirm_from=confirm_from, code=code, now=when,
                            purposes=purposes)


def wrong_code_in_ledger(league: League, sender: str, when, n: int) -> None:
    """The ledger line of a mail refused for a wrong code, as the ingest writes it."""
    with league.db.transaction() as conn:
        row = ledger.insert(conn, InboundRecord(
            source="maildir", uidvalidity=None, uid=None, message_id=None, sha256=f"x{n}",
            spool_path=f"x{n}", received_at=when, sender=sender, subject="", kind="human"))
        ledger.finish(conn, row, code=Outcome.REJECTED,
                      text="rejected round 1: nothing_changed, code_wrong",
                      notices=("nothing_changed", "code_wrong"))


def test_a_code_confirms_its_request_once(league: League) -> None:
    issued = issue(league, payload={"x": 1})
    assert codes.looks_like_code(issued.code) and issued.expires_at == START + VALID_FOR
    done = redeem(league, codes.shown(issued.code).lower())  # any case, with the dash
    assert isinstance(done, Confirmation)
    assert (done.purpose, done.confirm_from, done.payload) == ("move", NEW, {"x": 1})
    assert redeem(league, issued.code) == Refused(Refusal.USED)


def test_the_code_itself_is_never_stored(league: League) -> None:
    issued = issue(league)
    raw = b"".join(path.read_bytes() for path in database_files(league.db.path)
                   if path.exists())
    assert issued.code.encode() not in raw and codes.shown(issued.code).encode() not in raw


def test_an_expired_code_is_refused(league: League) -> None:
    issued = issue(league)
    late = START + VALID_FOR + timedelta(seconds=1)
    assert redeem(league, issued.code, when=late) == Refused(
        Refusal.EXPIRED, expired_at=START + VALID_FOR)
    # Refusing changed nothing: at the last moment of its week the code holds.
    assert isinstance(redeem(league, issued.code, when=START + VALID_FOR), Confirmation)


def test_a_newer_request_replaces_the_older(league: League) -> None:
    first = issue(league, manager_id=None)
    second = issue(league, manager_id=None)
    assert redeem(league, first.code) == Refused(Refusal.REPLACED)
    assert isinstance(redeem(league, second.code), Confirmation)
    # Another purpose, or another manager's request, is not replaced.
    move = issue(league, "move")
    erase = issue(league, "erase")
    assert isinstance(redeem(league, move.code), Confirmation)
    assert isinstance(redeem(league, erase.code, purposes=("erase",)), Confirmation)


def test_a_code_confirms_only_for_its_address_and_purpose(league: League) -> None:
    issued = issue(league)
    assert redeem(league, issued.code, confirm_from="other@player.example") == Refused(
        Refusal.NONE)
    assert redeem(league, issued.code, purposes=("erase",)) == Refused(Refusal.NONE)
    assert isinstance(redeem(league, issued.code), Confirmation)


def test_nothing_waiting_and_a_wrong_code(league: League) -> None:
    assert redeem(league, "AAAA-BBBB") == Refused(Refusal.NONE)
    issue(league)
    assert redeem(league, "AAAA-BBBB") == Refused(Refusal.WRONG, attempts_left=MAX_WRONG - 1)


def test_wrong_codes_block_the_waiting_requests(league: League) -> None:
    issued = issue(league)
    # Wrong codes before the request was made do not count.
    wrong_code_in_ledger(league, NEW, START - timedelta(minutes=1), 0)
    for n in range(1, MAX_WRONG):
        wrong_code_in_ledger(league, NEW, START + timedelta(minutes=n), n)
        assert redeem(league, "AAAA-BBBB") == Refused(Refusal.WRONG,
                                                      attempts_left=MAX_WRONG - n - 1)
    # Another sender's wrong codes do not count against this address.
    wrong_code_in_ledger(league, "other@player.example", START + timedelta(minutes=9), 99)
    wrong_code_in_ledger(league, NEW.upper(), START + timedelta(minutes=10), MAX_WRONG)
    assert redeem(league, issued.code) == Refused(Refusal.BLOCKED)
    # A new request starts afresh.
    again = issue(league, when=START + timedelta(minutes=20))
    assert isinstance(redeem(league, again.code), Confirmation)


def test_a_purpose_is_a_word(league: League) -> None:
    with pytest.raises(ValueError, match="lower-case word"):
        issue(league, "Move it")


@given(st.text(alphabet=codes.ALPHABET, min_size=codes.LENGTH, max_size=codes.LENGTH))
def test_a_shown_code_reads_back(code: str) -> None:
    assert codes.normalize(codes.shown(code)) == code
    assert codes.normalize(f" {codes.shown(code).lower()} ") == code
    assert codes.looks_like_code(codes.shown(code))


def test_what_is_no_code() -> None:
    for written in ("ja", "OK", "12345678", "K7FX-2QM", "K7FX-2QMPX", "ÄÖÜK-2QMP"):
        assert not codes.looks_like_code(written), written
