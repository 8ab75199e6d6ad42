"""The embedded Maildir transport: inbox, processed folder, sent folder."""

from __future__ import annotations

import mailbox
import os

import pytest

from bot.mail.maildir_transport import (
    MaildirInbox,
    MaildirSender,
    deliver,
    read_sent,
)
from bot.mail.transport import MailSender, MailSource, PermanentSendError, TemporarySendError


def mail(n: int) -> bytes:
    return f"From: anna@example.org\r\nSubject: Zug {n}\r\n\r\n10-10-15-15-20\r\n".encode()


def files(path) -> list[str]:
    return sorted(p.name for p in path.iterdir())


def test_round_trip_deliver_fetch_mark(tmp_path):
    inbox = MaildirInbox(tmp_path)
    assert isinstance(inbox, MailSource)
    keys = [inbox.deliver(mail(n)) for n in range(5)]
    assert files(tmp_path / "inbox" / "new") == sorted(keys)
    assert files(tmp_path / "inbox" / "tmp") == []
    got = inbox.fetch_new()
    assert [m.raw for m in got] == [mail(n) for n in range(5)]  # delivery order
    assert [m.key for m in got] == keys
    assert all(m.source == f"maildir:{tmp_path / 'inbox'}" and m.uid is None for m in got)
    assert inbox.fetch_new(limit=2) == got[:2]

    inbox.mark_processed(got[1])
    inbox.mark_processed_many([got[0], got[4]])
    assert [m.key for m in inbox.fetch_new()] == [keys[2], keys[3]]
    processed = mailbox.Maildir(tmp_path / "processed", factory=None, create=False)
    assert sorted(processed.keys()) == sorted([keys[0], keys[1], keys[4]])
    assert processed.get_bytes(keys[1]) == mail(1)  # byte for byte
    # repeated marking (a retry) is harmless; a vanished mail is an error
    inbox.mark_processed(got[1])
    os.unlink(tmp_path / "inbox" / "new" / keys[2])
    with pytest.raises(FileNotFoundError, match=keys[2]):
        inbox.mark_processed(got[2])


def test_mail_placed_by_another_program_in_cur_is_read(tmp_path):
    inbox = MaildirInbox(tmp_path)
    foreign = tmp_path / "inbox" / "cur" / "1700000000.M1P2.otherhost:2,S"
    foreign.write_bytes(mail(7))
    os.utime(foreign, ns=(1, 1))  # older than anything else
    own = inbox.deliver(mail(8))
    got = inbox.fetch_new()
    assert [m.key for m in got] == ["1700000000.M1P2.otherhost", own]
    inbox.mark_processed(got[0])
    assert not foreign.exists()
    assert [m.raw for m in inbox.fetch_new()] == [mail(8)]


def test_mail_from_another_source_is_refused(tmp_path):
    a, b = MaildirInbox(tmp_path / "a"), MaildirInbox(tmp_path / "b")
    a.deliver(mail(1))
    (got,) = a.fetch_new()
    with pytest.raises(ValueError, match="does not come from"):
        b.mark_processed(got)


def test_wait_for_mail_polls_until_something_new(tmp_path):
    clock = [0.0]
    inbox = MaildirInbox(tmp_path, poll_seconds=2.0, clock=lambda: clock[0])

    def sleep(seconds: float) -> None:
        clock[0] += seconds
        if clock[0] >= 6:
            inbox.deliver(mail(2))

    inbox._sleep = sleep
    inbox.deliver(mail(1))
    assert inbox.wait_for_mail(10) is True  # already waiting, not yet handed out
    inbox.fetch_new()
    clock[0] = 0.0
    assert inbox.wait_for_mail(3) is False
    assert clock[0] == 3.0  # slept 2 + 1, never past the timeout
    clock[0] = 0.0
    assert inbox.wait_for_mail(60) is True
    assert clock[0] == 6.0


def test_sender_writes_one_file_per_message_with_envelope(tmp_path):
    sender = MaildirSender(tmp_path)
    assert isinstance(sender, MailSender)
    for n in range(3):
        sender.send(mail(n), "turnited@localhost", f"m{n}@example.org")
    sender.send(b"Subject: bounce\r\n\r\nx\r\n", "", "m0@example.org")  # null sender
    sent = read_sent(tmp_path)
    assert [(s.mail_from, s.rcpt, s.raw) for s in sent] == [
        ("turnited@localhost", "m0@example.org", mail(0)),
        ("turnited@localhost", "m1@example.org", mail(1)),
        ("turnited@localhost", "m2@example.org", mail(2)),
        ("", "m0@example.org", b"Subject: bounce\r\n\r\nx\r\n"),
    ]
    assert sender.messages() == sent
    assert len(files(tmp_path / "sent" / "new")) == 4
    first = (tmp_path / "sent" / "new" / sent[0].key).read_bytes()
    envelope = b"Return-Path: <turnited@localhost>\r\nDelivered-To: m0@example.org\r\n"
    assert first == envelope + mail(0)


@pytest.mark.parametrize("rcpt", ["not an address", "a@b@c", "", "x@y\r\nBcc: evil@z"])
def test_sender_refuses_what_is_no_address(tmp_path, rcpt):
    sender = MaildirSender(tmp_path)
    with pytest.raises(PermanentSendError, match="is not a mail address"):
        sender.send(mail(1), "turnited@localhost", rcpt)
    assert read_sent(tmp_path) == []


def test_unwritable_sent_folder_is_a_temporary_failure(tmp_path):
    sender = MaildirSender(tmp_path)
    (tmp_path / "sent" / "tmp").rmdir()
    (tmp_path / "sent" / "tmp").write_bytes(b"")  # a file where the folder must be
    with pytest.raises(TemporarySendError) as info:
        sender.send(mail(1), "turnited@localhost", "anna@example.org")
    assert info.value.connection_failed


def test_deliver_is_atomic_and_names_are_unique(tmp_path):
    target = tmp_path / "drop"
    keys = {deliver(target, mail(n)) for n in range(50)}
    assert len(keys) == 50
    assert files(target / "tmp") == []
    assert len(files(target / "new")) == 50
