"""Raw mail bytes -> ``InboundMail``: a typed, decoded, never-failing view of one message.

``read_message`` never raises. Whatever the headers, charsets, MIME structure
or size, it returns an ``InboundMail``; everything that was wrong is listed in
``defects``. A message of which nothing usable could be read (no sender and
no text) has ``unreadable=True``.

Parsing uses the standard library (``email`` with ``policy.default``), but
every header is fetched raw and parsed here under a guard: raw 8-bit bytes in
headers are decoded as UTF-8 or windows-1252, RFC 2047 words with unknown
charsets do not fail, and very long headers skip the structured parser.
"""

from __future__ import annotations

import dataclasses
import email.header
import email.policy
import email.utils
import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.message import Message
from email.parser import BytesParser

from bot.mail.body import MAX_PART_CHARS, decode_bytes, extract_body, fresh_part
from bot.mail.bounces import bounce_failures, may_be_bounce
from bot.mail.dsn import DsnRecipient
from bot.mail.quotes import is_bot_reply_id

__all__ = ["MAX_BOUNDARIES", "MAX_DELIMITERS", "MAX_READ_SIZE", "InboundMail", "read_message"]

#: Of a larger mail only the first this many bytes are parsed (memory stays bounded;
#: ``size`` still reports the whole size).
MAX_READ_SIZE = 2 * 1024 * 1024
#: A mail declaring more multipart boundaries than this (deep nesting: the
#: standard library's parser is quadratic in the depth) is read as one text.
MAX_BOUNDARIES = 64
_BOUNDARY_PARAM = re.compile(rb"boundary[ \t]*=", re.IGNORECASE)
#: A mail with more lines starting with ``--`` (MIME delimiters) is read as one text.
MAX_DELIMITERS = 1000
_DELIMITER = re.compile(rb"\n--")


class _ReadingPolicy(email.policy.EmailPolicy):
    """``policy.default`` that parses each distinct short header value once.

    ``email`` parses a header again on every access, and reading a part asks
    for its Content-Type a dozen times (``get_content_type``, ``get_param``,
    ``get_content_charset``, ...): that re-parsing was most of the time of
    reading a mail. Parsed headers are immutable, so sharing them is safe.
    """

    def header_fetch_parse(self, name: str, value: str) -> str:
        if hasattr(value, "name") or len(value) > _MAX_CACHED_HEADER:
            return super().header_fetch_parse(name, value)
        return _parsed_header(name, value)


#: Longer header values are parsed on every access (and not kept in memory).
_MAX_CACHED_HEADER = 1000


@functools.lru_cache(maxsize=1024)
def _parsed_header(name: str, value: str) -> str:
    return email.policy.default.header_fetch_parse(name, value)


_POLICY = _ReadingPolicy()
#: Headers longer than this are not given to the (slow, recursive) structured parser.
_MAX_STRUCTURED_HEADER = 16_384
_MAX_DEFECTS = 60
_SURROGATES = re.compile(r"[\udc80-\udcff]")
_LONE_SURROGATES = re.compile(r"[\ud800-\udfff]")
_FOLD = re.compile(r"\r\n|\r|\n")
_MSGID = re.compile(r"<[^<>\s]+>")
_ADDRESS = re.compile(r"[^\s<>()\[\],;:\"']+@[^\s<>()\[\],;:\"']+")
_DOMAIN = re.compile(r"^[\w.\-]+$|^\[[\w.:]+\]$")


@dataclass(frozen=True)
class InboundMail:
    """One received message, decoded.

    Addresses are lower-case addr-specs (``hans@example.de``). ``headers``
    holds every header by lower-case name, values unfolded and 8-bit bytes
    decoded, but RFC 2047 words *not* decoded (classification needs the raw
    values). ``text`` is the whole body text, ``fresh_text`` only what was
    written in this mail (no quotes, signatures or quoted originals).
    """

    size: int
    message_id: str | None = None
    sender: str | None = None
    sender_name: str = ""
    reply_to: str | None = None
    to: tuple[str, ...] = ()
    cc: tuple[str, ...] = ()
    subject: str = ""
    date: datetime | None = None
    in_reply_to: str | None = None
    references: tuple[str, ...] = ()
    headers: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    content_type: str = "text/plain"
    report_type: str | None = None
    part_types: tuple[str, ...] = ()
    delivery_status: tuple[DsnRecipient, ...] = ()
    nested_delivery_status: tuple[DsnRecipient, ...] = ()
    bounce_failed: tuple[str, ...] = ()
    bounce_delayed: tuple[str, ...] = ()
    text: str = ""
    fresh_text: str = ""
    body_source: str = "none"  # 'plain', 'html', 'mixed' or 'none'
    defects: tuple[str, ...] = ()
    unreadable: bool = False

    def header(self, name: str) -> str | None:
        """The first value of header ``name`` (any case), or None."""
        values = self.headers.get(name.lower())
        return values[0] if values else None

    def header_values(self, name: str) -> tuple[str, ...]:
        """All values of header ``name`` (any case), in order."""
        return tuple(self.headers.get(name.lower(), ()))

    @property
    def answers_bot(self) -> bool:
        """This mail answers one of the bot's own mails (by In-Reply-To or References)."""
        return is_bot_reply_id(self.in_reply_to) or any(
            is_bot_reply_id(ref) for ref in self.references
        )

    @property
    def reply_address(self) -> str | None:
        """Where an answer goes: ``Reply-To`` if given, else the sender."""
        return self.reply_to or self.sender


def read_message(raw: bytes, *, max_size: int = MAX_READ_SIZE) -> InboundMail:
    """Read one raw RFC 5322 message. Never raises.

    Work and memory are linear in ``min(len(raw), max_size)``: of a larger
    mail only the first ``max_size`` bytes (up to a line end) are read, and
    a defect says so; ``size`` is the size of the whole mail.
    """
    try:
        data = _as_bytes(raw)
    except Exception as exc:
        return InboundMail(size=0, defects=(f"input is not bytes: {exc}",), unreadable=True)
    size = len(data)
    notes: list[str] = []
    if size > max_size:
        cut = data.rfind(b"\n", max(0, max_size - 65536), max_size)
        data = data[: cut + 1 if cut > 0 else max(max_size, 0)]
        notes.append(f"mail of {size} bytes; only the first {len(data)} bytes are read")
    try:
        if _more_than(_BOUNDARY_PARAM, data, MAX_BOUNDARIES) or _more_than(
            _DELIMITER, data, MAX_DELIMITERS
        ):
            notes.append(
                f"more than {MAX_BOUNDARIES} MIME boundaries or {MAX_DELIMITERS} part "
                "delimiters; the body is read as text"
            )
            return _with(_fallback(data, notes[-1]), size, notes)
        return _with(_read(data), size, notes)
    except Exception as exc:  # the contract is: never raise
        return _with(_fallback(data, f"parser failed: {type(exc).__name__}: {exc}"), size, notes)


def _more_than(pattern: re.Pattern[bytes], data: bytes, limit: int) -> bool:
    """``pattern`` occurs more than ``limit`` times in ``data`` (stops counting there)."""
    return any(count > limit for count, _ in enumerate(pattern.finditer(data), 1))


def _with(mail: InboundMail, size: int, notes: list[str]) -> InboundMail:
    """``mail`` with the whole size and the notes of ``read_message`` itself."""
    if size == mail.size and not notes:
        return mail
    defects = tuple(_dedupe([*notes, *mail.defects])[:_MAX_DEFECTS])
    return dataclasses.replace(mail, size=size, defects=defects)


def _as_bytes(raw: object) -> bytes:
    if isinstance(raw, bytes):
        return raw
    if isinstance(raw, bytearray | memoryview):
        return bytes(raw)
    if isinstance(raw, str):
        return raw.encode("utf-8", "surrogateescape")
    raise TypeError(f"expected bytes, got {type(raw).__name__}")


def _read(data: bytes) -> InboundMail:
    defects: list[str] = []
    msg = BytesParser(policy=_POLICY).parsebytes(data)
    headers = _raw_headers(msg)
    if not headers:
        defects.append("no headers found")

    sender, sender_name = _sender(headers, defects)
    reply_to = _first_address(headers, "reply-to", defects)
    to = _all_addresses(headers, "to", defects)
    cc = _all_addresses(headers, "cc", defects)
    subject = _subject(headers, defects)
    date = _date(headers, defects)
    message_id = _message_id(_first(headers, "message-id"))
    in_reply_to = _message_id(_first(headers, "in-reply-to"))
    references = tuple(_MSGID.findall(" ".join(headers.get("references", ()))))

    body = extract_body(msg)
    defects.extend(body.notes)
    defects.extend(_mime_defects(msg))
    text = _clean(body.text)
    failed: tuple[str, ...] = ()
    delayed: tuple[str, ...] = ()
    if may_be_bounce(headers, body.part_types):
        failed, delayed, note = bounce_failures(msg, len(data))
        if note:
            defects.append(note)
    return InboundMail(
        size=len(data),
        message_id=message_id,
        sender=sender,
        sender_name=sender_name,
        reply_to=reply_to,
        to=tuple(to),
        cc=tuple(cc),
        subject=subject,
        date=date,
        in_reply_to=in_reply_to,
        references=references,
        headers=headers,
        content_type=body.content_type,
        report_type=body.report_type,
        part_types=tuple(body.part_types),
        delivery_status=tuple(body.delivery_status),
        nested_delivery_status=tuple(body.nested_delivery_status),
        bounce_failed=failed,
        bounce_delayed=delayed,
        text=text,
        fresh_text=_clean(body.fresh_text),
        body_source=body.source,
        defects=tuple(_dedupe(defects)[:_MAX_DEFECTS]),
        unreadable=sender is None and not text.strip(),
    )


# -- headers ------------------------------------------------------------------


def _raw_headers(msg: Message) -> dict[str, tuple[str, ...]]:
    collected: dict[str, list[str]] = {}
    for name, value in msg.raw_items():
        key = _clean(_fix_8bit(str(name))).strip().lower()
        if not key:
            continue
        collected.setdefault(key, []).append(_unfold(_fix_8bit(str(value))))
    return {k: tuple(v) for k, v in collected.items()}


def _unfold(value: str) -> str:
    """RFC 5322 unfolding: line breaks inside a header value go, the blanks stay."""
    return _clean(_FOLD.sub("", value)).strip()


def _fix_8bit(value: str) -> str:
    """Raw 8-bit header bytes (kept by ``email`` as surrogate escapes) as text:
    UTF-8 if they are valid UTF-8, else windows-1252."""
    if not _SURROGATES.search(value):
        return value
    data = value.encode("utf-8", "surrogateescape")
    text, _ = decode_bytes(data, None)
    return text


def _clean(text: str) -> str:
    """No lone surrogates in anything handed out."""
    return _LONE_SURROGATES.sub("\ufffd", text) if text else text


def _first(headers: Mapping[str, tuple[str, ...]], name: str) -> str | None:
    values = headers.get(name)
    return values[0] if values else None


def _sender(
    headers: Mapping[str, tuple[str, ...]], defects: list[str]
) -> tuple[str | None, str]:
    froms = headers.get("from", ())
    if len(froms) > 1:
        defects.append(f"{len(froms)} From headers; the first one is used")
    for name in ("from", "sender"):
        value = _first(headers, name)
        if value is None:
            continue
        addresses = _parse_addresses(name, value, defects)
        if addresses:
            if name == "sender":
                defects.append("no usable From address; the Sender header is used")
            return addresses[0]
        defects.append(f"no usable address in {name.title()} header {value[:200]!r}")
    if not froms:
        defects.append("no From header")
    return None, ""


def _first_address(
    headers: Mapping[str, tuple[str, ...]], name: str, defects: list[str]
) -> str | None:
    value = _first(headers, name)
    if value is None:
        return None
    addresses = _parse_addresses(name, value, defects)
    return addresses[0][0] if addresses else None


def _all_addresses(
    headers: Mapping[str, tuple[str, ...]], name: str, defects: list[str]
) -> list[str]:
    found: list[str] = []
    for value in headers.get(name, ()):
        for address, _ in _parse_addresses(name, value, defects):
            if address not in found:
                found.append(address)
    return found


def _parse_addresses(name: str, value: str, defects: list[str]) -> list[tuple[str, str]]:
    """(addr-spec lower case, decoded display name) for each valid address."""
    result: list[tuple[str, str]] = []
    if len(value) <= _MAX_STRUCTURED_HEADER:
        try:
            header = _POLICY.header_factory(name, value)
            for address in header.addresses:
                spec = _valid_address(address.addr_spec)
                if spec:
                    display = _clean(" ".join(str(address.display_name or "").split()))
                    result.append((spec, display))
        except Exception as exc:
            defects.append(f"{name} header unreadable ({type(exc).__name__}); addresses guessed")
        else:
            if result:
                return result
    else:
        defects.append(f"{name} header of {len(value)} characters; addresses guessed")
    for match in _ADDRESS.finditer(value):
        spec = _valid_address(match.group(0))
        if spec and all(spec != r[0] for r in result):
            result.append((spec, ""))
    return result


def _valid_address(spec: str | None) -> str | None:
    if not spec:
        return None
    spec = _clean(spec.strip()).strip("<>.")
    local, at, domain = spec.rpartition("@")
    if not at or not local or not domain or any(c.isspace() for c in spec):
        return None
    if "<" in spec or ">" in spec or not _DOMAIN.match(domain):
        return None
    return spec.lower()


def _subject(headers: Mapping[str, tuple[str, ...]], defects: list[str]) -> str:
    values = headers.get("subject", ())
    if not values:
        return ""
    if len(values) > 1:
        defects.append(f"{len(values)} Subject headers; the first one is used")
    return _decode_words(values[0], defects)


def _decode_words(value: str, defects: list[str]) -> str:
    """Decode RFC 2047 encoded words of an unstructured header, never failing."""
    decoded: str | None = None
    if len(value) <= _MAX_STRUCTURED_HEADER:
        try:
            decoded = str(_POLICY.header_factory("subject", value))
        except Exception:
            decoded = None
    if decoded is None:
        try:
            parts = []
            for chunk, charset in email.header.decode_header(value):
                if isinstance(chunk, bytes):
                    chunk, _ = decode_bytes(chunk, charset)
                parts.append(chunk)
            decoded = "".join(parts)
        except Exception:
            defects.append("encoded words in Subject unreadable; shown raw")
            decoded = value
    return " ".join(_clean(decoded).split())


def _date(headers: Mapping[str, tuple[str, ...]], defects: list[str]) -> datetime | None:
    value = _first(headers, "date")
    if value is None:
        return None
    try:
        parsed = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        defects.append(f"unreadable Date {value[:100]!r}")
        return None
    if parsed is None:
        defects.append(f"unreadable Date {value[:100]!r}")
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    try:
        return parsed.astimezone(UTC)
    except (OverflowError, ValueError):
        defects.append(f"Date out of range {value[:100]!r}")
        return None


def _message_id(value: str | None) -> str | None:
    if not value:
        return None
    match = _MSGID.search(value)
    if match:
        return match.group(0)
    stripped = value.strip()
    return f"<{stripped}>" if stripped and not any(c.isspace() for c in stripped) else None


# -- defects and the fallback -------------------------------------------------


def _mime_defects(msg: Message) -> list[str]:
    found: list[str] = []
    try:
        for part in msg.walk():
            for defect in getattr(part, "defects", ()):
                found.append(type(defect).__name__)
            if len(found) > _MAX_DEFECTS:
                break
    except Exception as exc:
        found.append(f"MIME walk failed: {type(exc).__name__}")
    return found


def _dedupe(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


_HEADER_LINE = re.compile(rb"^([!-9;-~]+)[ \t]*:[ \t]*(.*)$")


def _fallback(data: bytes, reason: str) -> InboundMail:
    """Best effort when ``email`` itself failed: headers by regex, body as text."""
    defects = [reason]
    try:
        blank = re.search(rb"\r\n\r\n|\n\n|\r\r", data)
        head, rest = (data[: blank.start()], data[blank.end() :]) if blank else (data, b"")
        headers: dict[str, list[str]] = {}
        last: str | None = None
        for line in re.split(rb"\r\n|\r|\n", head):
            if line[:1] in (b" ", b"\t") and last:
                headers[last][-1] += " " + decode_bytes(line.strip(), None)[0]
                continue
            match = _HEADER_LINE.match(line)
            if match:
                last = match.group(1).decode("ascii").lower()
                headers.setdefault(last, []).append(decode_bytes(match.group(2), None)[0])
        frozen = {k: tuple(_clean(x) for x in v) for k, v in headers.items()}
        sender, sender_name = _sender(frozen, defects)
        text = _clean(decode_bytes(rest[: MAX_PART_CHARS * 2], None)[0][:MAX_PART_CHARS])
        return InboundMail(
            size=len(data),
            sender=sender,
            sender_name=sender_name,
            subject=_subject(frozen, defects),
            message_id=_message_id(_first(frozen, "message-id")),
            headers=frozen,
            text=text,
            fresh_text=fresh_part(text),
            body_source="plain" if text.strip() else "none",
            defects=tuple(defects),
            unreadable=sender is None and not text.strip(),
        )
    except Exception as exc:
        defects.append(f"fallback reader failed: {type(exc).__name__}: {exc}")
        return InboundMail(size=len(data), defects=tuple(defects), unreadable=True)

