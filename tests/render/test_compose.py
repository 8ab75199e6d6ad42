"""Outgoing mails (bot.mail.compose): headers, ids, threading, bodies, injection."""

from __future__ import annotations

import re
import unicodedata
from datetime import UTC, datetime
from email import message_from_bytes, policy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.mail.address_check import InvalidAddressError
from bot.mail.classify import classify
from bot.mail.compose import (
    MAX_REFERENCES,
    ComposeError,
    InvalidHeaderError,
    MailKind,
    compose,
)
from bot.mail.reading import read_message
from bot.mail.smtp_sender import SmtpSender, SmtpSettings

BOT = "turnited@example.org"
NOW = datetime(2026, 12, 6, 19, 0, tzinfo=UTC)
TEXT = "Hallo Hans,\n\ndie Ergebnisse: Grüne Jäger – Ölberg 3:1\n"
HTML = "<!DOCTYPE html><html><body><p>Grüne Jäger – Ölberg 3:1</p></body></html>\n"


def make(**overrides: object):
    kwargs = {
        "kind": "newsletter",
        "sender": BOT,
        "sender_name": "Turnited Spielleitung",
        "to": "hans.meier@example.com",
        "to_name": "Hans Meier",
        "subject": "Turnited: Ergebnisse der Spielrunde 12 (Saison 3, Runde 2)",
        "text": TEXT,
        "html": HTML,
        "date": NOW,
        "key": "newsletter/round-12/de",
    }
    kwargs.update(overrides)
    return compose(**kwargs)


def parse(data: bytes):
    return message_from_bytes(data, policy=policy.default)


def content(part) -> str:
    """A decoded text part with the wire's CRLF line ends as LF."""
    return part.get_content().replace("\r\n", "\n")


def header_lines(data: bytes) -> list[str]:
    head = data.split(b"\r\n\r\n", 1)[0].decode("ascii")
    return head.split("\r\n")


def test_headers() -> None:
    mail = make()
    msg = parse(mail.data)
    assert msg["From"] == "Turnited Spielleitung <turnited@example.org>"
    assert msg["To"] == "Hans Meier <hans.meier@example.com>"
    assert len(msg.get_all("To")) == 1 and msg["Cc"] is None and msg["Bcc"] is None
    assert msg["Subject"] == "Turnited: Ergebnisse der Spielrunde 12 (Saison 3, Runde 2)"
    assert msg["Date"] == "Sun, 06 Dec 2026 19:00:00 +0000"
    assert re.fullmatch(r"<turnited\.newsletter\.[0-9a-f]{32}@example\.org>", msg["Message-ID"])
    assert msg["Message-ID"] == mail.message_id
    assert msg["Auto-Submitted"] == "auto-generated"
    assert msg["Precedence"] == "bulk"
    assert msg["Content-Language"] == "de"
    assert msg["MIME-Version"] == "1.0"
    assert mail.recipient == "hans.meier@example.com"


def test_bytes_use_crlf_and_ascii_headers() -> None:
    data = make(subject="Ergebnisse für Grüne Jäger und Ölberg").data
    assert b"\r\n" in data and b"\n" not in data.replace(b"\r\n", b"")
    for line in header_lines(data):
        assert line.isascii() and len(line) <= 78, line


@pytest.mark.parametrize(
    ("kind", "value", "bulk"),
    [
        ("reply", "auto-replied", False),
        ("newsletter", "auto-generated", True),
        ("reminder", "auto-generated", True),
        ("digest", "auto-generated", False),
        ("notice", "auto-generated", False),
    ],
)
def test_auto_submitted(kind: str, value: str, bulk: bool) -> None:
    extra = {"in_reply_to": "<abc@mail.example.com>"} if kind == "reply" else {}
    msg = parse(make(kind=kind, **extra).data)
    assert msg["Auto-Submitted"] == value
    assert (msg["Precedence"] == "bulk") is bulk
    assert msg["X-Auto-Response-Suppress"] == "All"


def test_unknown_kind() -> None:
    with pytest.raises(ValueError, match="'spam'"):
        make(kind="spam")


def test_message_id_and_bytes_are_stable() -> None:
    first, again = make(), make()
    assert first.message_id == again.message_id
    assert first.data == again.data
    assert make(to="anna@example.com").message_id != first.message_id
    assert make(to="HANS.MEIER@example.com").message_id == first.message_id
    assert make(key="newsletter/round-13/de").message_id != first.message_id
    assert make(kind="reminder").message_id != first.message_id


def test_multipart_alternative_both_parts_decode() -> None:
    msg = parse(make().data)
    assert msg.get_content_type() == "multipart/alternative"
    parts = list(msg.iter_parts())
    assert [p.get_content_type() for p in parts] == ["text/plain", "text/html"]
    assert all(p.get_content_charset() == "utf-8" for p in parts)
    assert content(parts[0]) == TEXT
    assert content(parts[1]) == HTML
    assert all(p["Content-Transfer-Encoding"] == "quoted-printable" for p in parts)


def test_text_only() -> None:
    msg = parse(make(kind="digest", html=None).data)
    assert msg.get_content_type() == "text/plain"
    assert content(msg) == TEXT


def test_long_lines_are_encoded_safely() -> None:
    text = "x" * 5000 + "\n" + "ü" * 3000 + "\n"
    data = make(text=text, html=None).data
    assert max(len(line) for line in data.split(b"\r\n")) <= 78
    assert content(parse(data)) == text


def test_list_unsubscribe() -> None:
    msg = parse(
        make(list_unsubscribe=["mailto:turnited@example.org?subject=Abmelden",
                               "https://example.org/unsub/x1"]).data
    )
    assert msg["List-Unsubscribe"] == (
        "<mailto:turnited@example.org?subject=Abmelden>, <https://example.org/unsub/x1>"
    )
    assert parse(make(kind="digest").data)["List-Unsubscribe"] is None
    for bad in ("javascript:alert(1)", "mailto:a@b.c>\r\nBcc: x@y.z", "https://x y"):
        with pytest.raises(InvalidHeaderError):
            make(list_unsubscribe=bad)


@pytest.mark.parametrize("kind", ["newsletter", "reminder"])
def test_bulk_mail_is_a_list_a_mail_client_can_leave(kind: str) -> None:
    """RULES.md §12: every newsletter and reminder carries List-Id (RFC 2919)
    and a mailto List-Unsubscribe (RFC 2369) whose subject is the bot's
    unsubscribe command in the mail's language."""
    german = parse(make(kind=kind).data)
    assert german["List-Id"] == '"Turnited Spielleitung" <turnited.example.org>'
    assert german["List-Unsubscribe"] == "<mailto:turnited@example.org?subject=Abmelden>"
    english = parse(make(kind=kind, language="en").data)
    assert english["List-Unsubscribe"] == "<mailto:turnited@example.org?subject=Unsubscribe>"
    # A caller's own URI replaces the default (subscribers who do not play).
    other = parse(make(kind=kind, list_unsubscribe="mailto:gm@example.org?subject=x").data)
    assert other["List-Unsubscribe"] == "<mailto:gm@example.org?subject=x>"
    assert other["List-Id"] == german["List-Id"]


@pytest.mark.parametrize("kind", ["reply", "digest", "notice"])
def test_personal_mail_is_no_list(kind: str) -> None:
    msg = parse(make(kind=kind).data)
    assert msg["List-Id"] is None and msg["List-Unsubscribe"] is None


def test_list_headers_of_an_unusual_sender() -> None:
    """A Unicode domain is IDNA-encoded in both headers, a Unicode local part
    percent-encoded in the mailto URI; a name with quotes stays one phrase,
    a non-ASCII name is an encoded word; nothing can break the header."""
    msg = parse(make(sender="spiel.leitung@bücher.example", sender_name='Die "Liga"').data)
    assert msg["List-Id"] == '"Die \\"Liga\\"" <spiel-leitung.xn--bcher-kva.example>'
    assert msg["List-Unsubscribe"].strip() == (  # folded: a long line
        "<mailto:spiel.leitung@xn--bcher-kva.example?subject=Abmelden>")
    msg = parse(make(sender="jörg@example.org", sender_name="Fußball\r\nBcc: x@y.z").data)
    assert msg["List-Unsubscribe"] == "<mailto:j%C3%B6rg@example.org?subject=Abmelden>"
    assert msg["Bcc"] is None
    assert str(msg["List-Id"]) == "Fußball Bcc: x@y.z <j-rg.example.org>"


def test_reply_threading() -> None:
    refs = [f"<r{i}@mail.example.com>" for i in range(15)]
    mail = make(kind="reply", in_reply_to="<parent@mail.example.com>", references=refs)
    msg = parse(mail.data)
    assert msg["In-Reply-To"] == "<parent@mail.example.com>"
    chain = msg["References"].split()
    assert chain[-1] == "<parent@mail.example.com>"
    assert chain[:-1] == refs[-(MAX_REFERENCES - 1):]
    assert msg["Message-ID"].startswith("<turnited.reply.")


def test_reply_adds_brackets_and_refuses_junk() -> None:
    msg = parse(make(kind="reply", in_reply_to="parent@mail.example.com").data)
    assert msg["In-Reply-To"] == "<parent@mail.example.com>"
    for bad in ("<a@b>\r\nBcc: x@y.z", "no id here", "<a b@c>"):
        with pytest.raises(InvalidHeaderError, match="not a message id"):
            make(kind="reply", in_reply_to=bad)
    with pytest.raises(ComposeError, match="References without In-Reply-To"):
        make(references=["<a@b.c>"])


@pytest.mark.parametrize(
    "bad",
    [
        "hans@example.com, anna@example.com",
        "hans@example.com;anna@example.com",
        "Hans <hans@example.com>",
        "hans@example.com\r\nBcc: evil@example.com",
        "hans@example.com\nBcc: evil@example.com",
        "hans",
        "hans@@example.com",
        "hans@localhost",
        "",
        "hans müller@example.com",
    ],
)
def test_exactly_one_plain_recipient(bad: str) -> None:
    with pytest.raises(InvalidAddressError, match="recipient address"):
        make(to=bad)


def test_bad_sender_refused() -> None:
    with pytest.raises(InvalidAddressError, match="sender address"):
        make(sender="turnited@example.org, evil@example.com")


INJECTIONS = [
    "Ergebnisse\r\nBcc: evil@example.com",
    "Ergebnisse\nBcc: evil@example.com",
    "Ergebnisse\rBcc: evil@example.com",
    "Ergebnisse\u2028Bcc: evil@example.com",
    "Ergebnisse\x85Bcc: evil@example.com",
    "Ergebnisse\r\n\r\n<html>body injection",
]


@pytest.mark.parametrize("evil", INJECTIONS)
def test_no_header_injection(evil: str) -> None:
    data = make(subject=evil, to_name=evil, sender_name=evil).data
    msg = parse(data)
    assert msg["Bcc"] is None
    names = [name.lower() for name in msg]
    assert names.count("to") == 1 and names.count("subject") == 1
    assert set(names) <= {
        "from", "to", "subject", "date", "message-id", "auto-submitted",
        "x-auto-response-suppress", "precedence", "mime-version", "content-type",
        "content-language", "list-id", "list-unsubscribe",
    }
    assert "\n" not in msg["Subject"] and "\r" not in msg["Subject"]
    assert msg["Subject"].startswith("Ergebnisse ")
    assert msg["To"].endswith("<hans.meier@example.com>")
    assert msg.get_content_type() == "multipart/alternative"


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300), st.text(max_size=120))
def test_any_user_text_gives_a_well_formed_mail(subject: str, name: str) -> None:
    data = make(subject=subject, to_name=name, html=None).data
    msg = parse(data)
    assert not msg.defects
    assert len(msg.get_all("To")) == 1 and msg["To"].addresses[0].addr_spec == (
        "hans.meier@example.com"
    )
    shown = msg["Subject"]
    assert "\n" not in shown and "\r" not in shown and len(shown) <= 200
    expected = " ".join(re.sub(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]", " ", subject).split())
    if len(expected) <= 200:
        expected = unicodedata.normalize("NFC", expected).encode("utf-8", "replace").decode()
        assert shown == " ".join(expected.split())
    for line in header_lines(data):
        assert line.isascii() and len(line) <= 998


def test_long_subject_cut_with_ellipsis() -> None:
    msg = parse(make(subject="Ergebnisse " * 40).data)
    assert len(msg["Subject"]) == 200 and msg["Subject"].endswith("…")


def test_naive_date_refused() -> None:
    with pytest.raises(ComposeError, match="naive"):
        make(date=datetime(2026, 12, 6, 20, 0))


def test_kind_enum_values() -> None:
    assert [k.value for k in MailKind] == ["reply", "newsletter", "reminder", "digest", "notice"]


def test_the_bot_would_never_answer_its_own_mails() -> None:
    for kind in MailKind:
        extra = {"in_reply_to": "<a@mail.example.com>"} if kind is MailKind.REPLY else {}
        inbound = read_message(make(kind=kind, **extra).data)
        assert classify(inbound, own_addresses=()).kind == "auto"
        assert classify(inbound, own_addresses=(BOT,)).kind == "self"


def test_sent_through_a_real_smtp_server(smtp_server) -> None:
    mail = make()
    sender = SmtpSender(SmtpSettings(host=smtp_server.host, port=smtp_server.port, security="none"))
    try:
        sender.send(mail.data, BOT, mail.recipient)
    finally:
        sender.close()
    (received,) = smtp_server.messages()
    assert received.rcpt_tos == ("hans.meier@example.com",)
    inbound = read_message(received.content)
    assert inbound.message_id == mail.message_id
    assert inbound.subject == "Turnited: Ergebnisse der Spielrunde 12 (Saison 3, Runde 2)"
    assert "Grüne Jäger – Ölberg 3:1" in inbound.text
    assert content(parse(received.content).get_body(("html",))) == HTML
