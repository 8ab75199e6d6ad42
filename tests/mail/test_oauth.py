"""OAuth2 logins (``mail.imap.auth`` / ``mail.smtp.auth: oauth2``) against real
servers on loopback: a Dovecot whose ``oauth2`` password database asks a
token-introspection endpoint the test runs (``tests.support.oauth``), and an
aiosmtpd server taking XOAUTH2 and OAUTHBEARER. The token comes from a real
``token_command`` (a shell script) run at each login. A failing command, an
expired or a wrong token is one line that names the command and never holds
the token; the mail stays in the inbox."""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.mail.imap_login import connect
from bot.mail.imap_settings import ImapSettings
from bot.mail.imap_source import ImapMailbox
from bot.mail.oauth import (
    SaslResponder,
    TokenCommand,
    TokenCommandError,
    choose_mechanism,
    initial_response,
)
from bot.mail.smtp_sender import SmtpSender, SmtpSettings
from bot.mail.transport import LoginRefusedError, NoLoginMechanismError, TransportConfigError
from tests.servers import BOT_ADDRESS, DovecotServer, SmtpServer
from tests.support import mails
from tests.support.dovecot import running_dovecot
from tests.support.oauth import TokenIssuer, token_script

FROM = BOT_ADDRESS
WHEN = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


# ---------------------------------------------------------------- the token command


def test_the_command_prints_the_token_shell_line_or_argument_list(tmp_path: Path):
    assert TokenCommand("printf '%s\\n' ya29.abc-DEF_123").fetch("mail.imap.token_command") \
        == "ya29.abc-DEF_123"
    assert TokenCommand(("/bin/echo", "tok.en")).fetch("x") == "tok.en"
    command, holder = token_script(tmp_path, "first")
    assert command.fetch("x") == "first"
    holder.write_text("second\n")
    assert command.fetch("x") == "second"  # run again at each login: a fresh token


@pytest.mark.parametrize(
    ("command", "kind", "words"),
    [
        ("echo 'invalid_grant: token expired' >&2; exit 3", "failed",
         ["exit status 3: invalid_grant: token expired", "run it by hand"]),
        ("true", "empty", ["printed no token", "standard output"]),
        ("printf 'hid%sen-1\\nhid%sen-2\\n' d d", "malformed", ["2 line(s)", "only the access"]),
        ("printf 'Bearer hid%sen-3' d", "malformed", ["spaces"]),
        (("/nonexistent/oama", "access"), "not_run", ["cannot be run", "full path"]),
    ],
)
def test_a_failing_command_is_one_line_naming_it_never_its_output(command, kind, words):
    with pytest.raises(TokenCommandError) as info:
        TokenCommand(command).fetch("mail.smtp.token_command")
    error = info.value
    text = str(error)
    assert error.kind == kind and not error.retryable
    assert "\n" not in text and text.startswith("mail.smtp.token_command ")
    assert repr(TokenCommand(command).shown) in text
    for word in words:
        assert word in text
    assert "hidden" not in text  # what it printed on standard output is never shown


def test_a_command_that_hangs_is_killed_with_its_children_after_the_timeout():
    started = time.monotonic()
    with pytest.raises(TokenCommandError, match=r"printed no token within 0\.5 s") as info:
        TokenCommand("sleep 30 | cat", timeout=0.5).fetch("mail.imap.token_command")
    assert time.monotonic() - started < 5  # the grandchild holding the pipe is killed too
    assert info.value.kind == "timeout"


def test_token_command_settings_are_checked():
    with pytest.raises(TransportConfigError, match="token_command"):
        TokenCommand("  ")
    with pytest.raises(TransportConfigError, match="token_command"):
        TokenCommand(())
    with pytest.raises(TransportConfigError, match=r"imap\.token_command"):
        ImapSettings("h", 993, "ssl", "u", auth="oauth2")
    with pytest.raises(TransportConfigError, match=r"imap\.password_env"):
        ImapSettings("h", 993, "ssl", "u", auth="oauth2", password_env="X",
                     token_command=TokenCommand("true"))
    with pytest.raises(TransportConfigError, match=r"smtp\.token_command"):
        SmtpSettings("h", 587, "starttls", "u", password="p", token_command=TokenCommand("t"))
    with pytest.raises(TransportConfigError, match=r"smtp\.username"):
        SmtpSettings("h", 587, "starttls", auth="oauth2", token_command=TokenCommand("t"))
    with pytest.raises(TransportConfigError, match=r"smtp\.auth"):
        SmtpSettings("h", 587, "starttls", auth="kerberos")
    settings = SmtpSettings("h", 587, "starttls", "u", auth="oauth2",
                            token_command=TokenCommand("oama access u"))
    assert "token_command=TokenCommand('oama access u', timeout=30)" in repr(settings)


# ---------------------------------------------------------------- SASL


def test_sasl_strings_and_the_mechanism_chosen():
    assert initial_response("XOAUTH2", "bot@example.org", "t0k") == \
        "user=bot@example.org\x01auth=Bearer t0k\x01\x01"
    assert initial_response("OAUTHBEARER", "a=b,c@example.org", "t0k") == \
        "n,a=a=3Db=2Cc@example.org,\x01auth=Bearer t0k\x01\x01"
    assert choose_mechanism(["PLAIN", "XOAUTH2", "OAUTHBEARER"]) == "OAUTHBEARER"
    assert choose_mechanism(["plain", "xoauth2"]) == "XOAUTH2"
    assert choose_mechanism(["PLAIN", "LOGIN"]) is None
    responder = SaslResponder("XOAUTH2", "u", "t")
    assert responder(None) == "user=u\x01auth=Bearer t\x01\x01"
    assert responder(b'{"status":"401","schemes":"bearer","scope":"https://mail"}') == ""
    assert responder.error == "status 401, scope https://mail"


# ---------------------------------------------------------------- IMAP (Dovecot)


@pytest.fixture
def oauth_dovecot(issuer: TokenIssuer) -> Iterator[DovecotServer]:
    with running_dovecot(oauth2_introspection_url=issuer.url, name="oauth") as server:
        yield server


def oauth_mailbox(server: DovecotServer, command: TokenCommand) -> ImapMailbox:
    settings = server.imap_settings(password=None, auth="oauth2", token_command=command,
                                    timeout=10)
    return ImapMailbox(settings, retries=0, sleep=lambda _s: None)


@functools.cache
def inbox_mail(n: int) -> bytes:
    return mails.player_mail("anna@example.org", f"Aufstellung: 10-10-15-15-{n}",
                             to=BOT_ADDRESS, when=WHEN, subject=f"Zug {n}", crlf=True)


@pytest.mark.servers
def test_imap_logs_in_with_the_token_the_command_prints(oauth_dovecot, issuer, tmp_path):
    token = issuer.issue(BOT_ADDRESS)
    command, _holder = token_script(tmp_path, token)
    oauth_dovecot.append(inbox_mail(1))
    with oauth_mailbox(oauth_dovecot, command) as mailbox:
        (mail,) = mailbox.fetch_new()
        mailbox.mark_processed(mail)
    assert mail.raw == inbox_mail(1)
    assert issuer.asked == [token]  # Dovecot asked the introspection endpoint
    assert "method=OAUTHBEARER" in oauth_dovecot.log_tail(60)  # offered both: the standard one
    assert oauth_dovecot.list_folder("INBOX") == []
    assert oauth_dovecot.list_folder("Processed") == [inbox_mail(1)]


@pytest.mark.servers
def test_imap_xoauth2_with_the_responder(oauth_dovecot, issuer):
    token = issuer.issue(BOT_ADDRESS)
    client = connect(oauth_dovecot.imap_settings(), timeout=10)
    try:
        client.sasl_login("XOAUTH2", SaslResponder("XOAUTH2", BOT_ADDRESS, token))
        assert client.select_folder("INBOX")[b"EXISTS"] == 0
    finally:
        client.logout()
    assert "method=XOAUTH2" in oauth_dovecot.log_tail(60)


@pytest.mark.servers
def test_an_expired_token_is_refused_in_one_line_and_the_mail_stays(
        oauth_dovecot, issuer, tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    token = issuer.issue(BOT_ADDRESS)
    command, holder = token_script(tmp_path, token)
    oauth_dovecot.append(inbox_mail(2))
    issuer.revoke(token)  # it expired
    with oauth_mailbox(oauth_dovecot, command) as mailbox:
        with pytest.raises(LoginRefusedError) as info:
            mailbox.fetch_new()
        text = str(info.value)
        assert "\n" not in text and not info.value.retryable
        assert "refused the access token for 'bot@example.org'" in text
        assert f"mail.imap.token_command {str(command.command)!r}" in text
        assert "status invalid_token" in text  # Dovecot's error challenge, read and answered
        assert token not in text and token not in caplog.text
        assert oauth_dovecot.list_folder("INBOX") == [inbox_mail(2)]  # nothing lost
        # The command is run again at the next login: a fresh token works.
        holder.write_text(issuer.issue(BOT_ADDRESS) + "\n")
        (mail,) = mailbox.fetch_new()
        mailbox.mark_processed(mail)
    assert oauth_dovecot.list_folder("Processed") == [inbox_mail(2)]


@pytest.mark.servers
def test_a_wrong_token_and_a_failing_command_leave_the_inbox_alone(
        oauth_dovecot, issuer, tmp_path):
    oauth_dovecot.append(inbox_mail(3))
    wrong, _ = token_script(tmp_path, "ya29.never-issued", name="wrong")
    with oauth_mailbox(oauth_dovecot, wrong) as mailbox, \
            pytest.raises(LoginRefusedError, match="expired, for another account"):
        mailbox.fetch_new()
    failing = TokenCommand("echo 'AADSTS70008: refresh token expired' >&2; exit 1")
    with oauth_mailbox(oauth_dovecot, failing) as mailbox, \
            pytest.raises(TokenCommandError, match="AADSTS70008") as info:
        mailbox.fetch_new()
    assert "exit status 1" in str(info.value)
    assert oauth_dovecot.list_folder("INBOX") == [inbox_mail(3)]


@pytest.mark.servers
def test_a_server_without_oauth2_says_so(dovecot, tmp_path):
    command, _ = token_script(tmp_path, "ya29.x")
    with oauth_mailbox(dovecot, command) as mailbox, \
            pytest.raises(NoLoginMechanismError, match="offers no OAuth2 login") as info:
        mailbox.fetch_new()
    assert "PLAIN" in info.value.offered and "set mail.imap.auth to 'password'" in str(info.value)


# ---------------------------------------------------------------- SMTP (aiosmtpd)


@pytest.fixture
def oauth_smtp(issuer: TokenIssuer) -> Iterator[SmtpServer]:
    server = SmtpServer(oauth=issuer.lookup)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def oauth_sender(server: SmtpServer, command: TokenCommand) -> SmtpSender:
    return SmtpSender(SmtpSettings(server.host, server.port, "none", username=BOT_ADDRESS,
                                   auth="oauth2", token_command=command, timeout=5))


def reply(n: int) -> bytes:
    return (f"From: {FROM}\r\nTo: anna@example.org\r\nSubject: Re: Zug {n}\r\n"
            f"Message-ID: <o{n}@example.org>\r\n\r\nAngenommen.\r\n").encode()


@pytest.mark.servers
def test_smtp_sends_after_an_oauth2_login(oauth_smtp, issuer, tmp_path):
    token = issuer.issue(BOT_ADDRESS)
    command, _ = token_script(tmp_path, token)
    with oauth_sender(oauth_smtp, command) as sender:
        sender.send(reply(1), FROM, "anna@example.org")
        sender.send(reply(2), FROM, "anna@example.org")  # one login for both
    (first, _second) = oauth_smtp.messages()
    assert first.login == BOT_ADDRESS and first.content == reply(1)
    assert oauth_smtp.auth_attempts == [("OAUTHBEARER", BOT_ADDRESS)]


@pytest.mark.servers
def test_smtp_xoauth2_when_the_server_offers_only_that(oauth_smtp, issuer, tmp_path):
    import bot.mail.oauth as oauth

    token = issuer.issue(BOT_ADDRESS)
    command, _ = token_script(tmp_path, token)
    original = oauth.MECHANISMS
    oauth.MECHANISMS = ("XOAUTH2",)  # as Microsoft's SMTP servers: XOAUTH2 only
    try:
        with oauth_sender(oauth_smtp, command) as sender:
            sender.send(reply(3), FROM, "anna@example.org")
    finally:
        oauth.MECHANISMS = original
    assert oauth_smtp.auth_attempts == [("XOAUTH2", BOT_ADDRESS)]
    assert [m.login for m in oauth_smtp.messages()] == [BOT_ADDRESS]


@pytest.mark.servers
def test_smtp_refuses_an_expired_token_in_one_line(oauth_smtp, issuer, tmp_path, caplog):
    token = issuer.issue(BOT_ADDRESS)
    issuer.revoke(token)
    command, _ = token_script(tmp_path, token)
    with oauth_sender(oauth_smtp, command) as sender, \
            pytest.raises(LoginRefusedError) as info:
        sender.send(reply(4), FROM, "anna@example.org")
    text = str(info.value)
    assert "\n" not in text and token not in text and token not in caplog.text
    assert "535" in text and "status 401" in text and "mail.smtp.token_command" in text
    assert oauth_smtp.messages() == []
