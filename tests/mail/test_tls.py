"""TLS with a private CA: ``ca_file`` for IMAP (a real Dovecot with
STARTTLS) and SMTP (aiosmtpd over implicit TLS), with real certificates made
by the ``openssl`` binary here; a certificate error names its real cause in
one line (untrusted issuer vs wrong host name)."""

from __future__ import annotations

import ssl
from email.message import EmailMessage
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller

from bot.mail.imap_source import ImapMailbox
from bot.mail.smtp_sender import SmtpSender, SmtpSettings
from bot.mail.transport import TransportError
from tests.servers import DovecotServer, free_port
from tests.support.dovecot import running_dovecot
from tests.support.pki import Pki, make_pki

pytestmark = pytest.mark.servers


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    """A private CA, a server certificate it issued for ``localhost`` only,
    and a second CA that issued nothing here."""
    return make_pki(tmp_path_factory.mktemp("pki"))


# -- SMTP over implicit TLS ---------------------------------------------------


class _Inbox:
    def __init__(self) -> None:
        self.rcpts: list[str] = []

    async def handle_DATA(self, server, session, envelope):
        self.rcpts += envelope.rcpt_tos
        return "250 OK"


@pytest.fixture
def smtps(pki: Pki):
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(pki.cert, pki.key)
    inbox = _Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=free_port(),
                            ssl_context=context, ready_timeout=10)
    controller.start()
    try:
        yield controller.port, inbox
    finally:
        controller.stop()


def _mail() -> bytes:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "bot@example.org", "gm@example.org", "TLS"
    msg.set_content("hello over TLS\n")
    return msg.as_bytes()


def _smtp(port: int, host: str, ca_file: Path | None) -> SmtpSender:
    return SmtpSender(SmtpSettings(host=host, port=port, security="ssl", ca_file=ca_file,
                                   timeout=10))


def test_smtp_with_the_private_ca_in_ca_file_delivers(smtps, pki):
    port, inbox = smtps
    with _smtp(port, "localhost", pki.ca) as sender:
        sender.send(_mail(), "bot@example.org", "gm@example.org")
    assert inbox.rcpts == ["gm@example.org"]


def test_smtp_without_ca_file_names_the_untrusted_issuer(smtps, pki):
    port, inbox = smtps
    with pytest.raises(TransportError) as info, _smtp(port, "localhost", None) as sender:
        sender.send(_mail(), "bot@example.org", "gm@example.org")
    text = str(info.value)
    assert "untrusted issuer" in text and "set mail.smtp.ca_file" in text
    assert "host name" not in text and "\n" not in text
    assert not info.value.retryable and inbox.rcpts == []


def test_smtp_with_another_ca_says_the_ca_file_lacks_the_issuer(smtps, pki):
    port, _ = smtps
    with pytest.raises(TransportError) as info, _smtp(port, "localhost", pki.other_ca) as s:
        s.send(_mail(), "bot@example.org", "gm@example.org")
    assert "untrusted issuer" in str(info.value)
    assert "check that mail.smtp.ca_file holds the CA" in str(info.value)


def test_smtp_to_a_name_not_on_the_certificate_names_the_host(smtps, pki):
    port, _ = smtps
    with pytest.raises(TransportError) as info, _smtp(port, "127.0.0.1", pki.ca) as sender:
        sender.send(_mail(), "bot@example.org", "gm@example.org")
    text = str(info.value)
    assert "is not for the host name '127.0.0.1'" in text
    assert "set mail.smtp.host to the name on the certificate" in text
    assert "issuer" not in text


def test_a_ca_file_that_is_no_pem_is_named(smtps, pki):
    port, _ = smtps
    with pytest.raises(TransportError) as info, _smtp(port, "localhost", pki.not_pem) as s:
        s.send(_mail(), "bot@example.org", "gm@example.org")
    assert "mail.smtp.ca_file" in str(info.value) and "PEM" in str(info.value)


# -- IMAP with STARTTLS on a real Dovecot -------------------------------------


@pytest.fixture
def dovecot_tls(pki: Pki):
    with running_dovecot(extra_config=(
            f"ssl = yes\nssl_cert = <{pki.cert}\nssl_key = <{pki.key}\n")) as server:
        yield server


def _imap(server: DovecotServer, host: str, ca_file: Path | None) -> ImapMailbox:
    return ImapMailbox(server.imap_settings(host=host, security="starttls", ca_file=ca_file,
                                            timeout=10), retries=0)


def test_imap_starttls_with_the_private_ca_reads_the_inbox(dovecot_tls, pki):
    dovecot_tls.append(_mail())
    with _imap(dovecot_tls, "localhost", pki.ca) as mailbox:
        assert len(mailbox.fetch_new()) == 1


def test_imap_without_ca_file_names_the_untrusted_issuer(dovecot_tls, pki):
    with pytest.raises(TransportError) as info, _imap(dovecot_tls, "localhost", None) as box:
        box.fetch_new()
    text = str(info.value)
    assert "untrusted issuer" in text and "set mail.imap.ca_file" in text
    assert "\n" not in text


def test_imap_to_a_name_not_on_the_certificate_names_the_host(dovecot_tls, pki):
    with pytest.raises(TransportError) as info, _imap(dovecot_tls, "127.0.0.1", pki.ca) as box:
        box.fetch_new()
    assert "is not for the host name '127.0.0.1'" in str(info.value)
    assert "set mail.imap.host" in str(info.value)


def test_ca_file_in_the_config_is_relative_to_its_folder_and_must_exist(tmp_path, pki):
    from bot.config import ConfigError, load_config

    (tmp_path / "certs").mkdir()
    (tmp_path / "certs" / "ca.pem").write_bytes(pki.ca.read_bytes())
    path = tmp_path / "config.yaml"
    path.write_text("mail:\n  imap:\n    ca_file: certs/ca.pem\n  smtp:\n    ca_file: null\n",
                    encoding="utf-8")
    config = load_config(path)
    assert config.mail.imap.ca_file == tmp_path / "certs" / "ca.pem"
    assert config.mail.smtp.ca_file is None
    path.write_text("mail:\n  smtp:\n    ca_file: certs/missing.pem\n", encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert "mail.smtp.ca_file" in str(info.value) and "missing.pem" in str(info.value)
