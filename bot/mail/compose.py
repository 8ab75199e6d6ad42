"""Build outgoing mails: a safe ``EmailMessage`` and its exact bytes.

Every mail the bot sends goes through ``compose``: one recipient, a From
with display name, a stable Message-ID (the same mail composed twice, e.g.
after a crash before sending, gets the same id, so the outbox and the
recipients can tell duplicates), threading headers for replies,
``Auto-Submitted`` so that other robots do not answer (RFC 3834), and a
``multipart/alternative`` body with a
plain text and an HTML part, both UTF-8. Optional attachments (e.g. the
reminder's ``.ics`` calendar entry) wrap that body in ``multipart/mixed``.

Bulk mail (newsletters and reminders) is the bot's mailing list (RULES.md
§12): it carries ``List-Id`` (RFC 2919, ``"Turnited" <bot.turnited.example>``
from the sender) and ``List-Unsubscribe`` (RFC 2369), by default
``<mailto:BOT?subject=Abmelden>`` (``Unsubscribe`` in an English mail), so a
mail client's unsubscribe button sends exactly the command the bot reads
(``bot.service.commands.subscription``); a caller may give other URIs (the
game master's address for subscribers who do not play).

Header values that contain user text (subjects with team names, display
names) are sanitised: control characters (CR, LF, ...) become spaces, the
length is limited, and the ``SMTP`` policy folds and RFC 2047-encodes them.
Addresses are checked strictly (``bot.mail.address_check``); a bad one raises
``InvalidAddressError``.
Every address a person can have is accepted: a Unicode domain
(``hans@bücher.example``) is written IDNA-encoded (``xn--bcher-kva``) in the
headers, so any server takes it; a Unicode local part (``jörg@example.de``)
is written as UTF-8 (RFC 6532) and needs a server that offers SMTPUTF8
(RFC 6531; ``envelope_address`` and the SMTP sender decide).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from email import message_from_bytes, policy
from email.header import Header
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime
from enum import StrEnum
from functools import lru_cache
from urllib.parse import quote

from bot.mail.address_check import (
    CONTROL,
    ComposeError,
    ascii_domain,
    check_address,
)

#: The policy of every outgoing message: CRLF line ends, lines folded at 78;
#: headers set raw (the subject, encoded by ``encode_subject``) are kept as set.
POLICY = policy.SMTP.clone(refold_source="none")
#: For an address header with a Unicode local part (RFC 6532: raw UTF-8).
UTF8_POLICY = POLICY.clone(utf8=True)
#: Longest subject kept (characters); longer ones end in an ellipsis.
MAX_SUBJECT = 200
#: Longest display name kept (characters).
MAX_DISPLAY_NAME = 80
#: How many earlier message ids a reply's References header keeps.
MAX_REFERENCES = 10
#: The subject of the mail a ``List-Unsubscribe`` button sends: the bot's
#: command to stop newsletters and reminders, in the mail's language.
UNSUBSCRIBE_COMMAND = {"de": "Abmelden", "en": "Unsubscribe"}
#: Longest ``List-Id`` phrase kept (characters of the game's name).
MAX_LIST_NAME = 40


class MailKind(StrEnum):
    """What a mail is; decides its ``Auto-Submitted`` value (RFC 3834)."""

    REPLY = "reply"
    NEWSLETTER = "newsletter"
    REMINDER = "reminder"
    DIGEST = "digest"
    NOTICE = "notice"

    @property
    def auto_submitted(self) -> str:
        """``auto-replied`` for answers to a mail, else ``auto-generated``."""
        return "auto-replied" if self is MailKind.REPLY else "auto-generated"

    @property
    def bulk(self) -> bool:
        """Mails sent to many players at once (``Precedence: bulk``)."""
        return self in (MailKind.NEWSLETTER, MailKind.REMINDER)


class InvalidHeaderError(ComposeError):
    """A header value that cannot be made safe (e.g. a malformed message id)."""


@dataclass(frozen=True, slots=True)
class ComposedMail:
    """A composed mail: its bytes (CRLF line ends), its Message-ID and its
    one recipient; ``message`` parses the bytes into an ``EmailMessage``."""

    data: bytes
    message_id: str
    recipient: str

    @property
    def message(self) -> EmailMessage:
        """The mail exactly as it will be sent, parsed (a fresh object each time)."""
        return message_from_bytes(self.data, _class=EmailMessage, policy=POLICY)


@dataclass(frozen=True, slots=True)
class Attachment:
    """A file attached to a mail: its name, MIME type (``text/calendar``)
    and bytes; ``method`` is the iCalendar ``method`` parameter, if any."""

    filename: str
    content_type: str
    data: bytes
    method: str | None = None


_FILENAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
_MIME_TYPE = re.compile(r"^[a-z0-9][a-z0-9.+-]*/[a-z0-9][a-z0-9.+-]*$")


def _check_attachment(attachment: Attachment) -> None:
    if not _FILENAME.match(attachment.filename):
        raise InvalidHeaderError(
            f"attachment name {attachment.filename!r} is not usable: expected letters, digits, "
            f"'.', '_' or '-' (at most 100), e.g. 'round-12.ics'"
        )
    if not _MIME_TYPE.match(attachment.content_type):
        raise InvalidHeaderError(
            f"attachment type {attachment.content_type!r} is not a MIME type such as "
            f"'text/calendar'"
        )
    if attachment.method is not None and not attachment.method.isalpha():
        raise InvalidHeaderError(
            f"attachment method {attachment.method!r}: expected a word such as 'PUBLISH'"
        )


@dataclass(frozen=True, slots=True)
class _EncodedBody:
    """The MIME headers (folded, CRLF) and the encoded body of a mail."""

    headers: bytes
    data: bytes


_MSG_ID = re.compile(r"^<[\x21-\x3b\x3d\x3f-\x7e]+@[\x21-\x3b\x3d\x3f-\x7e]+>$")
_URI = re.compile(r"^(mailto:|https?://)[\x21-\x3b\x3d\x3f-\x7e]+$")


def sanitize_header(value: object, max_length: int = MAX_SUBJECT) -> str:
    """User text made safe for a header: NFC, every control character (CR,
    LF, TAB, NUL, line separators) replaced by a space, runs of white space
    collapsed, at most ``max_length`` characters (cut with ``…``)."""
    text = unicodedata.normalize("NFC", str(value))
    text = text.encode("utf-8", "replace").decode("utf-8")  # lone surrogates
    text = " ".join(CONTROL.sub(" ", text).split())
    if len(text) > max_length:
        text = text[: max_length - 1].rstrip() + "…"
    return text


def needs_smtputf8(address: str) -> bool:
    """True if ``address`` can only travel with SMTPUTF8 (a Unicode local part)."""
    return not address.rpartition("@")[0].isascii()


def _address_header(display: str, address: str) -> tuple[Address, bool]:
    """An ``Address`` for a header and whether it must be written as UTF-8:
    an ASCII local part gets the IDNA domain (plain ASCII everywhere), a
    Unicode one keeps the Unicode domain (RFC 6532)."""
    local, _, domain = address.rpartition("@")
    if local.isascii():
        return Address(display, local, ascii_domain(domain)), False
    return Address(display, local, domain), True


def is_message_id(value: str) -> bool:
    """True if ``value`` is a message id ``compose`` accepts for threading
    (``<unique@domain>``); mails in the wild also carry ids like ``<xxxx>``."""
    return not CONTROL.search(value) and bool(_MSG_ID.match(value.strip()))


def _msg_id(value: object, what: str) -> str:
    text = str(value).strip()
    if not text.startswith("<"):
        text = f"<{text}>"
    if CONTROL.search(text) or not _MSG_ID.match(text):
        raise InvalidHeaderError(
            f"{what} {value!r} is not a message id: expected '<unique@domain>' without spaces"
        )
    return text


def make_message_id(kind: MailKind | str, key: str, recipient: str, domain: str) -> str:
    """A Message-ID that depends only on what the mail is: its kind, a key
    naming it (e.g. ``newsletter/round-12/de``, or the id of the mail a
    reply answers) and the recipient."""
    kind = MailKind(kind)
    digest = hashlib.sha256(
        "\0".join((kind.value, key, recipient.lower())).encode("utf-8")
    ).hexdigest()[:32]
    return f"<turnited.{kind.value}.{digest}@{domain}>"


def encode_subject(subject: object) -> str:
    """The sanitised subject folded at 76 columns; non-ASCII text as RFC 2047
    encoded words. (``email.policy`` alone can emit an empty encoded word
    when it folds long UTF-8 subjects; ``email.header.Header`` does not.)"""
    text = sanitize_header(subject, MAX_SUBJECT)
    charset = "us-ascii" if text.isascii() else "utf-8"
    return Header(text, charset, header_name="Subject").encode(linesep="\r\n")


def _list_unsubscribe(value: str | Sequence[str]) -> str:
    uris = [value] if isinstance(value, str) else list(value)
    if not uris:
        raise InvalidHeaderError("List-Unsubscribe needs at least one mailto: or https: URI")
    out = []
    for uri in uris:
        text = str(uri).strip().removeprefix("<").removesuffix(">")
        if not _URI.match(text):
            raise InvalidHeaderError(
                f"List-Unsubscribe URI {uri!r} is not usable: expected 'mailto:...' or "
                f"'https://...' without spaces, angle brackets or line breaks"
            )
        out.append(f"<{text}>")
    line = ", ".join(out)  # checked plain ASCII: set raw, folded between URIs if long
    return line if len("List-Unsubscribe: ") + len(line) <= 78 else ",\r\n ".join(out)


@lru_cache(maxsize=16)
def list_id(name: str, address: str) -> str:
    """The ``List-Id`` (RFC 2919) of the bot's mail from ``address``: the
    sanitised ``name`` as the phrase (RFC 2047 encoded when not ASCII) and
    ``<local.domain>`` as the id (the local part's letters, digits and
    hyphens; the domain IDNA-encoded): ``"Turnited" <bot.turnited.example>``."""
    local, _, domain = check_address(address, "sender").rpartition("@")
    label = re.sub(r"[^a-z0-9-]+", "-", local.lower()).strip("-") or "list"
    ident = f"<{label}.{ascii_domain(domain, role='sender').lower()}>"
    phrase = sanitize_header(name, MAX_LIST_NAME)
    if not phrase:
        return ident
    if phrase.isascii():
        quoted = phrase.replace("\\", "\\\\").replace('"', '\\"')
        return f'"{quoted}" {ident}'
    return f"{Header(phrase, 'utf-8').encode(linesep=' ')} {ident}"


@lru_cache(maxsize=16)
def unsubscribe_uri(address: str, language: str) -> str:
    """``mailto:ADDRESS?subject=Abmelden`` (``Unsubscribe`` for ``en``): what
    a mail client's unsubscribe button mails to leave the bot's list."""
    local, _, domain = check_address(address, "sender").rpartition("@")
    command = UNSUBSCRIBE_COMMAND.get(language, UNSUBSCRIBE_COMMAND["de"])
    mailbox = f"{quote(local, safe='.-_+')}@{ascii_domain(domain, role='sender')}"
    return f"mailto:{mailbox}?subject={quote(command)}"


def _body(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = text.encode("utf-8", "replace").decode("utf-8")
    return text if text.endswith("\n") else text + "\n"


@lru_cache(maxsize=8)
def _encoded_body(text: str, html: str | None) -> _EncodedBody:
    """Encode the body once per content: a newsletter to 500 players is
    quoted-printable-encoded once, not 500 times. The boundary comes from
    the content, so the same mail always gives the same bytes; "=_" cannot
    occur in quoted-printable text."""
    part = EmailMessage(policy=POLICY)
    part.set_content(_body(text), subtype="plain", charset="utf-8", cte="quoted-printable")
    if html is not None:
        part.add_alternative(_body(html), subtype="html", charset="utf-8", cte="quoted-printable")
        digest = hashlib.sha256(f"{text}\0{html}".encode("utf-8", "replace")).hexdigest()
        part.set_boundary(f"=_{digest[:32]}")
    headers, data = part.as_bytes(policy=POLICY).split(b"\r\n\r\n", 1)
    return _EncodedBody(headers + b"\r\n", data)


def _mixed_body(text: str, html: str | None, attachments: Sequence[Attachment]) -> _EncodedBody:
    """The body with attachments: ``multipart/mixed`` of the text (and HTML)
    and each attachment (base64). The boundary comes from the content, so
    the same mail always gives the same bytes."""
    outer = EmailMessage(policy=POLICY)
    inner = EmailMessage(policy=POLICY)
    inner.set_content(_body(text), subtype="plain", charset="utf-8", cte="quoted-printable")
    if html is not None:
        inner.add_alternative(_body(html), subtype="html", charset="utf-8",
                              cte="quoted-printable")
    outer.make_mixed()
    outer.attach(inner)
    digest = hashlib.sha256(f"{text}\0{html}".encode("utf-8", "replace"))
    for attachment in attachments:
        _check_attachment(attachment)
        maintype, subtype = attachment.content_type.split("/", 1)
        params = {"charset": "utf-8"} if maintype == "text" else {}
        if attachment.method:
            params["method"] = attachment.method
        part = EmailMessage(policy=POLICY)
        part.set_content(attachment.data, maintype=maintype, subtype=subtype,
                         disposition="attachment", filename=attachment.filename,
                         params=params)
        outer.attach(part)
        digest.update(b"\0" + attachment.filename.encode() + b"\0" + attachment.data)
    hexdigest = digest.hexdigest()
    outer.set_boundary(f"=_m{hexdigest[:32]}")
    if html is not None:
        inner.set_boundary(f"=_a{hexdigest[:32]}")
    headers, data = outer.as_bytes(policy=POLICY).split(b"\r\n\r\n", 1)
    return _EncodedBody(headers + b"\r\n", data)


def compose(
    *,
    kind: MailKind | str,
    sender: str,
    sender_name: str,
    to: str,
    subject: str,
    text: str,
    date: datetime,
    key: str,
    html: str | None = None,
    to_name: str | None = None,
    in_reply_to: str | None = None,
    references: Sequence[str] = (),
    list_unsubscribe: str | Sequence[str] | None = None,
    reply_to: str | None = None,
    language: str = "de",
    attachments: Sequence[Attachment] = (),
) -> ComposedMail:
    """Compose one mail to one recipient.

    ``key`` names the mail for its stable Message-ID (see
    ``make_message_id``). For a reply pass the Message-ID of the mail
    answered as ``in_reply_to`` and that mail's References as
    ``references``. ``date`` must be aware (the clock is passed in).
    ``attachments`` are added after the text (``multipart/mixed``). A bulk
    ``kind`` gets the list headers (module doc); ``list_unsubscribe``
    replaces the default unsubscribe URI.
    """
    kind = MailKind(kind)
    sender = check_address(sender, "sender")
    to = check_address(to, "recipient")
    if date.tzinfo is None or date.utcoffset() is None:
        raise ComposeError(f"date {date.isoformat()!r} is naive: pass an aware datetime (UTC)")
    if language not in ("de", "en"):
        raise ComposeError(f"language {language!r}: expected 'de' or 'en'")
    domain = ascii_domain(sender.rsplit("@", 1)[1], role="sender")

    msg = EmailMessage(policy=POLICY)
    utf8_headers: set[str] = set()
    for name, display, address in (
        ("From", sanitize_header(sender_name, MAX_DISPLAY_NAME), sender),
        ("To", sanitize_header(to_name or "", MAX_DISPLAY_NAME), to),
        *([("Reply-To", "", check_address(reply_to, "reply-to"))] if reply_to else []),
    ):
        header, utf8 = _address_header(display, address)
        msg[name] = header
        if utf8:
            utf8_headers.add(name)
    msg.set_raw("Subject", encode_subject(subject))
    msg["Date"] = format_datetime(date)
    message_id = make_message_id(kind, key, to, domain)
    msg["Message-ID"] = message_id
    if in_reply_to is not None:
        parent = _msg_id(in_reply_to, "In-Reply-To")
        chain = [_msg_id(r, "References") for r in references]
        chain = [*[r for r in chain if r != parent][-(MAX_REFERENCES - 1) :], parent]
        msg["In-Reply-To"] = parent
        msg["References"] = " ".join(chain)
    elif references:
        raise ComposeError("References without In-Reply-To: pass the id of the mail answered")
    msg["Auto-Submitted"] = kind.auto_submitted
    msg["X-Auto-Response-Suppress"] = "All"
    if kind.bulk:
        msg["Precedence"] = "bulk"
        msg.set_raw("List-Id", list_id(sender_name, sender))
        if list_unsubscribe is None:
            list_unsubscribe = unsubscribe_uri(sender, language)
    if list_unsubscribe is not None:
        msg.set_raw("List-Unsubscribe", _list_unsubscribe(list_unsubscribe))

    msg["Content-Language"] = language

    body = _mixed_body(text, html, attachments) if attachments else _encoded_body(text, html)
    head = b"".join(
        (UTF8_POLICY if name in utf8_headers else POLICY).fold_binary(name, value)
        for name, value in msg.raw_items()
    )
    return ComposedMail(head + body.headers + b"\r\n" + body.data, message_id, to)
