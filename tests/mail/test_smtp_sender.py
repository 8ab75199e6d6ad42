"""SmtpSender against a real aiosmtpd server: envelopes, reuse, 4xx/5xx, outages."""

from __future__ import annotations

import logging
import socket
import threading

import pytest

from bot.mail.smtp_sender import SmtpSender, SmtpSettings
from bot.mail.transport import (
    MailSender,
    PermanentSendError,
    TemporarySendError,
    TransportConfigError,
    TransportError,
)
from tests.servers import SmtpServer, free_port

pytestmark = pytest.mark.servers

FROM = "turnited@example.org"


def message(n: int, to: str = "anna@example.org") -> bytes:
    return (
        f"From: Turnited <{FROM}>\r\nTo: {to}\r\nSubject: Bestätigung {n}\r\n"
        f"Message-ID: <out{n}@example.org>\r\nMIME-Version: 1.0\r\n"
        f"Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n"
        f"\r\nAufstellung {n} angenommen. Grüße\r\n.\r\n..leading dots survive\r\n"
    ).encode()


def sender_for(server: SmtpServer, **overrides: object) -> SmtpSender:
    values: dict[str, object] = {
        "host": server.host,
        "port": server.port,
        "security": "none",
        "timeout": 5,
    }
    values.update(overrides)
    return SmtpSender(SmtpSettings(**values))  # type: ignore[arg-type]


def test_fifty_messages_arrive_with_their_envelopes_over_one_connection(smtp_server):
    recipients = [f"manager{n}@example.org" for n in range(50)]
    with sender_for(smtp_server) as sender:
        assert isinstance(sender, MailSender)
        for n, rcpt in enumerate(recipients):
            sender.send(message(n, rcpt), FROM, rcpt)
    got = smtp_server.messages()
    assert [m.rcpt_tos for m in got] == [(r,) for r in recipients]
    assert {m.mail_from for m in got} == {FROM}
    assert [m.content for m in got] == [message(n, r) for n, r in enumerate(recipients)]
    assert len({m.peer for m in got}) == 1  # one connection reused for all


def test_temporary_refusal_of_one_recipient(smtp_server):
    smtp_server.fail("temporary", "busy@example.org")
    with sender_for(smtp_server) as sender:
        with pytest.raises(TemporarySendError) as info:
            sender.send(message(1, "busy@example.org"), FROM, "busy@example.org")
        error = info.value
        assert error.code == 451 and error.recipient == "busy@example.org"
        assert not error.connection_failed and error.retryable
        assert "451" in str(error) and "retried later" in str(error)
        sender.send(message(2), FROM, "anna@example.org")  # the connection is still good
    assert [m.rcpt_tos for m in smtp_server.messages()] == [("anna@example.org",)]


def test_permanent_refusal_names_recipient_and_reply(smtp_server):
    smtp_server.fail("permanent", "gone@example.org")
    with sender_for(smtp_server) as sender, pytest.raises(PermanentSendError) as info:
        sender.send(message(1, "gone@example.org"), FROM, "gone@example.org")
    error = info.value
    assert error.code == 550 and error.recipient == "gone@example.org"
    assert "Mailbox unavailable" in error.reply and not error.retryable
    assert "'gone@example.org'" in str(error) and "550" in str(error)
    assert smtp_server.messages() == []


@pytest.mark.parametrize(("kind", "expected"), [("temporary", 451), ("permanent", 550)])
def test_refusal_of_the_data(smtp_server, kind, expected):
    smtp_server.fail(kind)
    with sender_for(smtp_server) as sender, pytest.raises(
        (TemporarySendError, PermanentSendError)
    ) as info:
        sender.send(message(1), FROM, "anna@example.org")
    assert info.value.code == expected
    assert isinstance(info.value, TemporarySendError) == (kind == "temporary")


def test_server_down_then_back(smtp_server):
    smtp_server.stop()
    sender = sender_for(smtp_server)
    with pytest.raises(TemporarySendError) as info:
        sender.send(message(1), FROM, "anna@example.org")
    assert info.value.connection_failed and info.value.code is None
    assert f"127.0.0.1:{smtp_server.port}" in str(info.value)
    smtp_server.start()
    sender.send(message(2), FROM, "anna@example.org")
    sender.close()
    assert [m.content for m in smtp_server.messages()] == [message(2)]


def test_server_restart_between_messages_reconnects(smtp_server):
    sender = sender_for(smtp_server)
    sender.send(message(1), FROM, "anna@example.org")
    smtp_server.stop()
    with pytest.raises(TemporarySendError) as info:
        sender.send(message(2), FROM, "anna@example.org")
    assert info.value.connection_failed
    smtp_server.start()
    sender.send(message(3), FROM, "anna@example.org")
    sender.close()
    got = smtp_server.messages()
    assert [m.content for m in got] == [message(1), message(3)]
    assert got[0].peer != got[1].peer


def test_idle_connection_is_checked_before_reuse(smtp_server):
    ticks = iter([0.0, 100.0, 100.0, 100.0])
    sender = SmtpSender(
        SmtpSettings(smtp_server.host, smtp_server.port, "none"), clock=lambda: next(ticks)
    )
    sender.send(message(1), FROM, "anna@example.org")
    smtp_server.stop()  # the server dropped the idle connection meanwhile
    smtp_server.start()
    sender.send(message(2), FROM, "anna@example.org")  # noticed by NOOP, reopened
    sender.close()
    assert len(smtp_server.messages()) == 2


def test_login_and_wrong_password(caplog):
    caplog.set_level(logging.DEBUG)
    with SmtpServer(users={"bot": "right-pw"}) as server:
        with sender_for(server, username="bot", password="right-pw") as sender:
            sender.send(message(1), FROM, "anna@example.org")
        assert server.messages()[0].login == "bot"
        sender = sender_for(server, username="bot", password="wrong-pw-123")
        with pytest.raises(TransportError) as info:
            sender.send(message(2), FROM, "anna@example.org")
    assert not info.value.retryable
    assert "login as 'bot'" in str(info.value) and "smtp.password" in str(info.value)
    assert "wrong-pw-123" not in str(info.value)
    assert "wrong-pw-123" not in caplog.text
    assert "right-pw" not in repr(SmtpSettings("h", 25, "none", "bot", "right-pw"))


def test_password_env_is_read_only_at_login(caplog):
    caplog.set_level(logging.DEBUG)
    environ: dict[str, str] = {}
    with SmtpServer(users={"bot": "right-pw"}) as server:
        sender = sender_for(server, username="bot", password_env="T_SMTP_PW", environ=environ)
        with pytest.raises(TransportConfigError) as info:
            sender.send(message(1), FROM, "anna@example.org")
        assert "'T_SMTP_PW' is not set" in str(info.value) and not info.value.retryable
        environ["T_SMTP_PW"] = "wrong-pw-456"
        with pytest.raises(TransportError) as wrong:
            sender.send(message(1), FROM, "anna@example.org")
        assert "smtp.password" in str(wrong.value) and "wrong-pw-456" not in str(wrong.value)
        environ["T_SMTP_PW"] = "right-pw"
        with sender:
            sender.send(message(2), FROM, "anna@example.org")
        assert [m.login for m in server.messages()] == ["bot"]
    assert "right-pw" not in caplog.text and "wrong-pw-456" not in caplog.text
    assert "right-pw" not in repr(sender.settings)


def test_login_when_the_server_offers_no_auth(smtp_server):
    sender = sender_for(smtp_server, username="bot", password="pw")
    with pytest.raises(TransportError, match="offers no AUTH") as info:
        sender.send(message(1), FROM, "anna@example.org")
    assert not info.value.retryable


def test_starttls_not_offered_is_a_clear_error(smtp_server):
    sender = sender_for(smtp_server, security="starttls")
    with pytest.raises(TransportError, match="does not offer STARTTLS") as info:
        sender.send(message(1), FROM, "anna@example.org")
    assert not info.value.retryable and not isinstance(info.value, TemporarySendError)


def test_tls_against_a_plain_port_is_a_clear_error(smtp_server):
    sender = sender_for(smtp_server, security="ssl")
    with pytest.raises(TransportError, match=r"TLS with SMTP server .* failed.*465") as info:
        sender.send(message(1), FROM, "anna@example.org")
    assert not info.value.retryable


def test_nobody_listening_is_temporary():
    sender = SmtpSender(SmtpSettings("127.0.0.1", free_port(), "none"))
    with pytest.raises(TemporarySendError, match="cannot connect") as info:
        sender.send(message(1), FROM, "anna@example.org")
    assert info.value.connection_failed


@pytest.mark.parametrize(
    ("values", "message_part"),
    [
        ({"security": "tls"}, "smtp.security='tls'"),
        ({"port": 70000}, "smtp.port=70000"),
        ({"host": ""}, "smtp.host=''"),
        ({"username": "bot"}, "smtp.password=None"),
    ],
)
def test_settings_reject_impossible_values(values, message_part):
    arguments = {"host": "h", "port": 587, "security": "starttls", **values}
    with pytest.raises(TransportConfigError) as info:
        SmtpSettings(**arguments)
    assert message_part in str(info.value) and "expected" in str(info.value)


@pytest.mark.parametrize(
    ("greeting", "temporary"),
    [(b"421 4.3.2 too busy, come back later\r\n", True), (b"554 5.7.1 not for you\r\n", False)],
)
def test_server_refusing_at_the_greeting(greeting, temporary):
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()

        def greet_and_hang_up() -> None:
            conn, _addr = listener.accept()
            with conn:
                conn.sendall(greeting)

        thread = threading.Thread(target=greet_and_hang_up)
        thread.start()
        sender = SmtpSender(SmtpSettings("127.0.0.1", listener.getsockname()[1], "none"))
        with pytest.raises(TransportError) as info:
            sender.send(message(1), FROM, "anna@example.org")
        thread.join()
    error = info.value
    if temporary:
        assert isinstance(error, TemporarySendError) and error.connection_failed
        assert error.code == 421
    else:
        assert not isinstance(error, TemporarySendError) and not error.retryable
        assert "554" in str(error) and "refuses to serve" in str(error)
