"""The test servers themselves: restart on the same ports with the same data,
SMTP -> LMTP hand-over, failure and crash modes."""

from __future__ import annotations

import smtplib

import pytest

from tests.servers import BOT_ADDRESS, DovecotServer, SmtpServer

pytestmark = pytest.mark.servers

MAIL = b"From: anna@example.org\r\nSubject: Test\r\n\r\nHallo\r\n"


def test_dovecot_comes_back_on_the_same_port_with_its_mail(dovecot):
    port = dovecot.imap_port
    uid = dovecot.append(MAIL)
    assert uid == 1
    dovecot.kill()
    assert not dovecot.running
    dovecot.start()
    assert dovecot.imap_port == port
    assert dovecot.messages() == [(1, MAIL)]
    dovecot.stop()  # clean shutdown works too
    dovecot.start()
    assert dovecot.list_folder() == [MAIL]


def test_dovecot_keeps_users_apart(dovecot):
    dovecot.append(MAIL, user="anna@example.org")
    assert dovecot.list_folder(user=BOT_ADDRESS) == []
    assert dovecot.list_folder(user="anna@example.org") == [MAIL]
    assert dovecot.list_folder("Nowhere") == []


def test_smtp_hands_messages_to_dovecot_lmtp(dovecot):
    with SmtpServer(forward_to=dovecot) as server, smtplib.SMTP(server.host, server.port) as c:
        c.sendmail("turnited@example.org", ["anna@example.org", "bernd@example.org"], MAIL)
    for user in ("anna@example.org", "bernd@example.org"):
        (delivered,) = dovecot.list_folder(user=user)
        assert delivered.endswith(MAIL)
        assert b"Return-Path: <turnited@example.org>" in delivered


def test_smtp_restarts_on_the_same_port_and_keeps_its_record(smtp_server):
    port = smtp_server.port
    with smtplib.SMTP(smtp_server.host, port) as client:
        client.sendmail("a@example.org", ["b@example.org"], MAIL)
    smtp_server.stop()
    with pytest.raises(OSError):
        smtplib.SMTP(smtp_server.host, port, timeout=2)
    smtp_server.start()
    with smtplib.SMTP(smtp_server.host, port) as client:
        client.sendmail("a@example.org", ["c@example.org"], MAIL)
    assert [m.rcpt_tos for m in smtp_server.messages()] == [("b@example.org",), ("c@example.org",)]


def test_smtp_failure_modes(smtp_server):
    smtp_server.fail("permanent", "Gone@Example.org")
    smtp_server.fail("temporary", "busy@example.org")
    with smtplib.SMTP(smtp_server.host, smtp_server.port) as client:
        refused = client.sendmail(
            "a@example.org", ["gone@example.org", "busy@example.org", "ok@example.org"], MAIL
        )
    assert {rcpt: code for rcpt, (code, _text) in refused.items()} == {
        "gone@example.org": 550,
        "busy@example.org": 451,
    }
    assert [m.rcpt_tos for m in smtp_server.messages()] == [("ok@example.org",)]
    smtp_server.heal()
    smtp_server.fail("temporary")
    with (
        smtplib.SMTP(smtp_server.host, smtp_server.port) as client,
        pytest.raises(smtplib.SMTPDataError) as info,
    ):
        client.sendmail("a@example.org", ["ok@example.org"], MAIL)
    assert info.value.smtp_code == 451
    with pytest.raises(ValueError, match="failure kind"):
        smtp_server.fail("sometimes")


def test_smtp_crash_after_accepting(smtp_server):
    smtp_server.crash_after(2)
    with smtplib.SMTP(smtp_server.host, smtp_server.port) as client:
        client.sendmail("a@example.org", ["1@example.org"], MAIL)
        with pytest.raises(smtplib.SMTPServerDisconnected):
            client.sendmail("a@example.org", ["2@example.org"], MAIL)
    smtp_server.wait_stopped()
    assert not smtp_server.running
    assert len(smtp_server.messages()) == 2  # the second one did arrive


def test_missing_dovecot_says_how_to_install(monkeypatch):
    monkeypatch.setattr("tests.servers.DOVECOT_BINARY", "/nonexistent/dovecot")
    with pytest.raises(RuntimeError, match="scripts/test"):
        DovecotServer()
