"""A mail's size is known before it is read; an oversized mail is read header
only (real Dovecot, real Maildir files); a quarantined mail leaves the inbox."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from typing import TypeVar

import pytest

from bot.mail.imap_source import ImapMailbox
from bot.mail.maildir_transport import MaildirInbox
from bot.mail.transport import HEADER_BYTES, header_section
from tests.servers import BOT_ADDRESS

MB = 1024 * 1024
LIMIT = 5 * MB


def small(n: int) -> bytes:
    return (
        f"From: anna@example.org\r\nTo: {BOT_ADDRESS}\r\nSubject: Zug {n}\r\n"
        f"Message-ID: <s{n}@example.org>\r\n\r\n10-10-15-15-20\r\n"
    ).encode()


def huge(megabytes: int = 50) -> bytes:
    head = (
        f"From: Hans <hans@example.org>\r\nTo: {BOT_ADDRESS}\r\nSubject: Riesig\r\n"
        "Message-ID: <huge@example.org>\r\nContent-Type: text/plain\r\n\r\n"
    ).encode()
    line = b"x" * 998 + b"\r\n"
    return head + line * (megabytes * MB // len(line))


T = TypeVar("T")


def peak_mb(action: Callable[[], T]) -> tuple[T, float]:
    """``action()`` and the peak of Python memory allocated while it ran, in MB."""
    tracemalloc.start()
    try:
        result = action()
        return result, tracemalloc.get_traced_memory()[1] / MB
    finally:
        tracemalloc.stop()


def test_header_section_stops_at_the_empty_line_and_is_bounded():
    assert header_section(b"A: 1\r\nB: 2\r\n\r\nbody") == b"A: 1\r\nB: 2\r\n\r\n"
    assert header_section(b"A: 1\n\nbody\r\n\r\n") == b"A: 1\n\n"
    assert len(header_section(b"X: " + b"y" * (HEADER_BYTES * 2))) == HEADER_BYTES


@pytest.mark.servers
def test_imap_fetches_sizes_first_and_a_50_mb_mail_header_only(dovecot):
    big = huge()
    dovecot.append_many([small(1), big, small(2)])
    del big
    with ImapMailbox(dovecot.imap_settings(timeout=30)) as box:
        got, peak = peak_mb(lambda: box.fetch_new(max_size=LIMIT))
        assert [m.complete for m in got] == [True, False, True]
        assert got[1].size > 50 * MB - 4096
        assert got[1].raw.startswith(b"From: Hans <hans@example.org>")
        assert got[1].raw.endswith(b"\r\n\r\n") and len(got[1].raw) < 1000
        assert got[0].size == len(got[0].raw) == len(small(1))
        # Without a limit everything is whole (the old behaviour).
        assert [m.complete for m in box.fetch_new(limit=1)] == [True]
    assert peak < 2, f"fetching a 50 MB mail header-only took {peak:.1f} MB"


@pytest.mark.servers
def test_imap_quarantine_creates_the_folder_and_moves_the_mail(dovecot):
    dovecot.append_many([small(1), small(2)])
    with ImapMailbox(dovecot.imap_settings(timeout=5)) as box:
        first, second = box.fetch_new()
        box.quarantine(first)
        assert [m.raw for m in box.fetch_new()] == [second.raw]
    assert "Quarantine" in dovecot.folders()
    assert dovecot.list_folder("Quarantine") == [small(1)]
    assert dovecot.list_folder("INBOX") == [small(2)]


def test_maildir_reads_a_50_mb_file_header_only(tmp_path):
    inbox = MaildirInbox(tmp_path)
    inbox.deliver(small(1))
    inbox.deliver(huge())
    got, peak = peak_mb(lambda: inbox.fetch_new(max_size=LIMIT))
    assert [m.complete for m in got] == [True, False]
    assert got[1].size > 50 * MB - 4096 and got[1].whole_size == got[1].size
    assert got[1].raw.startswith(b"From: Hans") and got[1].raw.endswith(b"\r\n\r\n")
    assert got[0].raw == small(1) and got[0].size == len(small(1))
    assert peak < 2, f"reading a 50 MB mail header-only took {peak:.1f} MB"


def test_maildir_quarantine_moves_the_file(tmp_path):
    inbox = MaildirInbox(tmp_path)
    inbox.deliver(small(1))
    inbox.deliver(small(2))
    first, second = inbox.fetch_new()
    inbox.quarantine(first)
    inbox.quarantine(first)  # a repeated call is harmless
    assert [m.raw for m in inbox.fetch_new()] == [second.raw]
    files = list((tmp_path / "quarantine" / "cur").iterdir())
    assert [f.read_bytes() for f in files] == [small(1)]


def test_bodies_are_fetched_in_groups_of_bounded_size():
    from bot.mail.imap_source import _by_bytes

    sizes = {1: 5, 2: 5, 3: 20, 4: 1, 5: 9}
    assert _by_bytes([1, 2, 3, 4, 5], sizes, 10) == [[1, 2], [3], [4, 5]]
    assert _by_bytes([], sizes, 10) == []
