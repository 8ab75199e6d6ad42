"""Every address a person can have: Unicode domains go IDNA-encoded to any
server, Unicode local parts with SMTPUTF8 (real aiosmtpd server, both ways)."""

from __future__ import annotations

from datetime import UTC, datetime
from email import message_from_bytes, policy

import pytest

from bot.mail.address_check import InvalidAddressError, check_address, envelope_address
from bot.mail.compose import compose
from bot.mail.smtp_sender import SmtpSender, SmtpSettings
from bot.mail.transport import PermanentSendError
from tests.servers import SmtpServer

pytestmark = pytest.mark.servers

BOT = "bot@example.org"


def reply_to(address: str) -> bytes:
    return compose(
        kind="reply", sender=BOT, sender_name="Turnited", to=address, to_name="Jörg",
        subject="Re: Aufstellung", text="Angenommen.", date=datetime(2026, 12, 1, tzinfo=UTC),
        key="k",
    ).data


def sender_for(server: SmtpServer) -> SmtpSender:
    return SmtpSender(SmtpSettings(host=server.host, port=server.port, security="none",
                                   timeout=5, rate_per_minute=None))


@pytest.mark.parametrize("address", ["hans@bücher.example", "jörg@münchen.de",
                                     "André.Ü@xn--bcher-kva.example", "hans@BÜCHER.example"])
def test_unicode_addresses_are_addresses(address):
    assert check_address(address) == address


@pytest.mark.parametrize("bad", ["hans@bü cher.example", "hans@bücher..example",
                                 "hans\u00a0x@bücher.example", "hans@bücher"])
def test_broken_unicode_addresses_are_refused(bad):
    with pytest.raises(InvalidAddressError):
        check_address(bad)


def test_a_unicode_domain_goes_idna_encoded_without_smtputf8():
    with SmtpServer() as server, sender_for(server) as sender:
        sender.send(reply_to("hans@bücher.example"), BOT, "hans@bücher.example")
        (got,) = server.messages()
    assert got.rcpt_tos == ("hans@xn--bcher-kva.example",)
    assert got.content.isascii()
    parsed = message_from_bytes(got.content, policy=policy.default)
    assert parsed["To"].addresses[0].domain == "xn--bcher-kva.example"


def test_with_smtputf8_unicode_addresses_go_as_they_are():
    with SmtpServer(smtputf8=True) as server, sender_for(server) as sender:
        sender.send(reply_to("jörg@bücher.example"), BOT, "jörg@bücher.example")
        sender.send(reply_to("hans@bücher.example"), BOT, "hans@bücher.example")
        first, second = server.messages()
    assert first.rcpt_tos == ("jörg@bücher.example",)
    assert "To: Jörg <jörg@bücher.example>".encode() in first.content
    assert second.rcpt_tos == ("hans@bücher.example",)


def test_a_unicode_local_part_without_smtputf8_is_a_clear_permanent_error():
    with SmtpServer() as server, sender_for(server) as sender:
        with pytest.raises(PermanentSendError, match="SMTPUTF8"):
            sender.send(reply_to("jörg@example.de"), BOT, "jörg@example.de")
        assert server.messages() == []


def test_envelope_address():
    assert envelope_address("hans@bücher.example", smtputf8=False) == "hans@xn--bcher-kva.example"
    assert envelope_address("hans@bücher.example", smtputf8=True) == "hans@bücher.example"
    assert envelope_address("", smtputf8=False) == ""
