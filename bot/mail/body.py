"""The text of a parsed mail: which MIME parts to read, how to decode them.

Rules (RULES.md §9, robustness corpus ``tests/corpus``):

* ``multipart/alternative``: the ``text/plain`` alternative if it has text,
  else the HTML one converted to text;
* ``multipart/mixed`` and friends: every inline text part in order; parts
  with ``Content-Disposition: attachment``, forwarded ``message/*`` parts and
  non-text parts are skipped; ``multipart/related``, ``signed`` and
  ``report``: the first (main) part only;
* a ``multipart`` whose boundary never matches is read as plain text;
* transfer encodings (base64, quoted-printable, uuencode) via ``email``;
  charsets: the declared one if Python knows it, with fallbacks
  (UTF-8, then windows-1252, then latin-1) for unknown or wrong labels;
  ``iso-8859-1``/``us-ascii`` are read as windows-1252 (as browsers do), and
  a western label on valid UTF-8 bytes is taken as UTF-8;
* ``format=flowed`` (RFC 3676) is unwrapped.

``message/delivery-status`` parts are parsed into ``DsnRecipient`` blocks.
Nothing here raises: problems become notes (strings) in the result.
"""

from __future__ import annotations

import codecs
import email.charset
import email.utils
import re
from dataclasses import dataclass, field
from email.message import Message

from bot.mail.dsn import DsnRecipient, parse_delivery_status_text, recipient_from_fields
from bot.mail.htmltext import html_to_text
from bot.mail.quotes import strip_quotes

__all__ = [
    "MAX_FRESH_CHARS",
    "MAX_HTML_CHARS",
    "MAX_PART_CHARS",
    "Body",
    "decode_bytes",
    "extract_body",
    "fresh_part",
    "unflow",
]

_MAX_DEPTH = 30
_MAX_PARTS = 500
#: Decoded text kept of one part (characters); the rest is dropped with a note.
MAX_PART_CHARS = 512 * 1024
#: HTML converted of one part (characters): commands stand at the top.
MAX_HTML_CHARS = 256 * 1024
#: Text looked at for the fresh part (characters): far more than any player
#: writes, and it bounds the quote stripper's work per mail.
MAX_FRESH_CHARS = 64 * 1024
_WESTERN = frozenset({"ascii", "iso8859-1", "cp1252", "latin-1"})
_NO_CHARSET = frozenset({"", "unknown-8bit", "x-unknown", "unknown", "default", "none", "8bit"})


@dataclass
class Body:
    """What ``extract_body`` found in a message."""

    text: str = ""
    fresh_text: str = ""
    source: str = "none"  # 'plain', 'html', 'mixed' or 'none'
    content_type: str = "text/plain"
    report_type: str | None = None
    part_types: list[str] = field(default_factory=list)
    delivery_status: list[DsnRecipient] = field(default_factory=list)
    nested_delivery_status: list[DsnRecipient] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass
class _Counter:
    leaves: int = 0


@dataclass
class _Chunk:
    kind: str  # 'plain' or 'html'
    text: str
    fresh_input: str


def extract_body(msg: Message) -> Body:
    """Text, fresh text and structure of ``msg`` (never raises)."""
    body = Body()
    try:
        body.content_type = content_type(msg)
    except Exception as exc:
        body.notes.append(f"content type unreadable: {exc!r}")
    try:
        _scan_structure(msg, body, 0)
    except Exception as exc:
        body.notes.append(f"MIME structure scan failed: {exc!r}")
    try:
        chunks = _collect(msg, body, 0, _Counter())
    except Exception as exc:
        body.notes.append(f"body extraction failed: {exc!r}")
        chunks = []
    chunks = [c for c in chunks if c.text.strip()]
    if chunks:
        kinds = {c.kind for c in chunks}
        body.source = kinds.pop() if len(kinds) == 1 else "mixed"
        body.text = "\n\n".join(c.text.strip("\n") for c in chunks)
        try:
            body.fresh_text = fresh_part("\n\n".join(c.fresh_input for c in chunks))
        except Exception as exc:
            body.notes.append(f"quote stripping failed: {exc!r}")
            body.fresh_text = body.text
    return body


def fresh_part(text: str) -> str:
    """``strip_quotes`` of the first ``MAX_FRESH_CHARS`` characters of ``text``."""
    if len(text) > MAX_FRESH_CHARS:
        cut = text.rfind("\n", 0, MAX_FRESH_CHARS)
        text = text[: cut if cut > 0 else MAX_FRESH_CHARS]
    return strip_quotes(text)


def content_type(part: Message) -> str:
    """The part's content type in lower case; a header without ``/`` is not
    taken as text (except the bare word ``text``)."""
    raw = part.get("content-type")
    if raw is not None:
        value = str(raw).split(";", 1)[0].strip().lower()
        if value and "/" not in value:
            return "text/plain" if value == "text" else "application/octet-stream"
    return part.get_content_type()


def _scan_structure(part: Message, body: Body, depth: int, nested: bool = False) -> None:
    """Record part types, the report type and DSN blocks. DSN blocks inside
    attached messages go to ``nested_delivery_status`` (a forwarded bounce
    is not a bounce, but a gateway may wrap a real one)."""
    if depth > _MAX_DEPTH or len(body.part_types) > _MAX_PARTS:
        return
    ctype = content_type(part)
    if nested:
        if ctype in {"message/delivery-status", "message/global-delivery-status"}:
            body.nested_delivery_status.extend(_delivery_status(part))
        elif part.is_multipart() and isinstance(part.get_payload(), list):
            for child in part.get_payload():
                if isinstance(child, Message):
                    _scan_structure(child, body, depth + 1, nested=True)
        return
    body.part_types.append(ctype)
    if ctype == "multipart/report" and body.report_type is None:
        report = part.get_param("report-type")
        if isinstance(report, tuple):
            report = email.utils.collapse_rfc2231_value(report)
        body.report_type = str(report).strip().lower() if report else ""
    if ctype in {"message/delivery-status", "message/global-delivery-status"}:
        body.delivery_status.extend(_delivery_status(part))
        return
    if ctype.startswith("message/"):
        if ctype == "message/rfc822" and part.is_multipart():
            for child in part.get_payload():
                if isinstance(child, Message):
                    _scan_structure(child, body, depth + 1, nested=True)
        return
    if part.is_multipart():
        payload = part.get_payload()
        if isinstance(payload, list):
            for child in payload:
                if isinstance(child, Message):
                    _scan_structure(child, body, depth + 1)


def _delivery_status(part: Message) -> list[DsnRecipient]:
    payload = part.get_payload()
    found: list[DsnRecipient] = []
    if isinstance(payload, list):
        for block in payload:
            if not isinstance(block, Message):
                continue
            fields = {str(k).lower(): str(v) for k, v in block.items()}
            recipient = recipient_from_fields(fields)
            if recipient is not None:
                found.append(recipient)
        if found:
            return found
    data = _payload_bytes(part)
    text, _ = decode_bytes(data, None)
    return parse_delivery_status_text(text)


def _collect(part: Message, body: Body, depth: int, seen: _Counter) -> list[_Chunk]:
    if depth > _MAX_DEPTH:
        body.notes.append("MIME nesting too deep; inner parts skipped")
        return []
    seen.leaves += 1
    if seen.leaves > _MAX_PARTS:
        if seen.leaves == _MAX_PARTS + 1:
            body.notes.append(f"more than {_MAX_PARTS} MIME parts; the rest is skipped")
        return []
    ctype = content_type(part)
    if ctype.startswith("multipart/"):
        payload = part.get_payload()
        if not isinstance(payload, list):
            # The boundary never matched (or there are no parts): read the raw text.
            body.notes.append(f"{ctype} without readable parts; body read as plain text")
            return _leaf(part, "text/plain", body)
        children = [c for c in payload if isinstance(c, Message)]
        subtype = ctype.split("/", 1)[1]
        if subtype == "alternative":
            return _alternative(children, body, depth, seen)
        if subtype in {"related", "signed", "report"}:
            return _collect(children[0], body, depth + 1, seen) if children else []
        if subtype == "encrypted":
            body.notes.append("encrypted mail cannot be read")
            return []
        chunks: list[_Chunk] = []
        for child in children:
            if _is_attachment(child):
                continue
            chunks.extend(_collect(child, body, depth + 1, seen))
        return chunks
    if ctype.startswith("message/"):
        return []
    if depth > 0 and _is_attachment(part):
        return []
    if ctype in {"text/plain", "text/html"}:
        return _leaf(part, ctype, body)
    return []


def _alternative(
    children: list[Message], body: Body, depth: int, seen: _Counter
) -> list[_Chunk]:
    candidates = [_collect(child, body, depth + 1, seen) for child in children]
    candidates = [[c for c in chunks if c.text.strip()] for chunks in candidates]
    for wanted in ("plain", "html"):
        for chunks in candidates:
            if chunks and all(c.kind == wanted for c in chunks):
                return chunks
    for chunks in reversed(candidates):
        if chunks:
            return chunks
    return []


def _is_attachment(part: Message) -> bool:
    try:
        disposition = part.get_content_disposition()
    except Exception:
        return False
    return disposition == "attachment"


def _leaf(part: Message, ctype: str, body: Body) -> list[_Chunk]:
    data = _payload_bytes(part)
    try:
        declared = part.get_content_charset()
    except Exception:
        declared = None
        body.notes.append("charset parameter unreadable")
    text, notes = decode_bytes(data, declared)
    body.notes.extend(notes)
    limit = MAX_HTML_CHARS if ctype == "text/html" else MAX_PART_CHARS
    if len(text) > limit:
        body.notes.append(f"{ctype} part of {len(text)} characters; the first {limit} are read")
        text = text[:limit]
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    if ctype == "text/html":
        return [_Chunk("html", html_to_text(text), html_to_text(text, drop_quotes=True))]
    fmt = str(part.get_param("format") or "").lower()
    if fmt == "flowed":
        delsp = str(part.get_param("delsp") or "").lower() == "yes"
        text = unflow(text, delsp=delsp)
    return [_Chunk("plain", text, text)]


def _payload_bytes(part: Message) -> bytes:
    try:
        data = part.get_payload(decode=True)
    except Exception:
        data = None
    if isinstance(data, bytes):
        return data
    payload = part.get_payload()
    if isinstance(payload, str):
        return payload.encode("utf-8", "surrogateescape")
    return b""


def decode_bytes(data: bytes, declared: str | None) -> tuple[str, list[str]]:
    """Decode ``data`` labelled with charset ``declared``; never raises.

    Returns the text and notes about what was wrong with the label.
    """
    notes: list[str] = []
    codec = codec_name(declared)
    if declared and codec is None and declared.strip().lower() not in _NO_CHARSET:
        notes.append(f"unknown charset {declared!r}; guessed from the bytes")
    if codec is not None:
        if codec in _WESTERN and not data.isascii():
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                pass
            else:
                notes.append(f"charset {declared!r} declared but the text is UTF-8")
                return text, notes
            codec = "cp1252"
        try:
            return data.decode(codec), notes
        except (UnicodeDecodeError, LookupError, ValueError):
            notes.append(f"text is not valid {declared!r}; guessed from the bytes")
    return _guess(data), notes


def codec_name(charset: str | None) -> str | None:
    """Python's codec name for a MIME charset label, or None if unknown or
    not a text encoding."""
    if not charset:
        return None
    name = charset.strip().strip("\"'").lower()
    if name in _NO_CHARSET:
        return None
    name = email.charset.ALIASES.get(name, name)
    if name in {"iso-8859-8-i", "iso-8859-8-e"}:
        name = "iso-8859-8"
    try:
        info = codecs.lookup(name)
    except (LookupError, ValueError, TypeError):
        return None
    if not getattr(info, "_is_text_encoding", True):
        return None
    return info.name


def _guess(data: bytes) -> str:
    """UTF-8 if valid (or nearly: a few broken bytes among many good UTF-8
    sequences), else windows-1252, else latin-1 (which never fails)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    lenient = data.decode("utf-8", "replace")
    broken = lenient.count("\ufffd")
    good = sum(1 for ch in lenient if ord(ch) > 127) - broken
    if good >= 4 * broken:
        return lenient
    try:
        return data.decode("cp1252")
    except UnicodeDecodeError:
        return data.decode("latin-1")


_QUOTE_PREFIX = re.compile(r"^(>+)")


def unflow(text: str, *, delsp: bool = False) -> str:
    """Undo ``format=flowed`` (RFC 3676): join soft-broken lines of equal quote depth."""
    out: list[str] = []
    pending: str | None = None
    pending_depth = 0
    for raw_line in text.split("\n"):
        match = _QUOTE_PREFIX.match(raw_line)
        depth = len(match.group(1)) if match else 0
        line = raw_line[depth:]
        if line.startswith(" "):
            line = line[1:]  # space stuffing
        is_signature = line == "-- "
        flowed = line.endswith(" ") and not is_signature
        if flowed and delsp:
            line = line[:-1]
        if pending is not None and depth == pending_depth:
            line = pending + line
            pending = None
        elif pending is not None:
            out.append(_with_depth(pending, pending_depth))
            pending = None
        if flowed:
            pending, pending_depth = line, depth
        else:
            out.append(_with_depth(line, depth))
    if pending is not None:
        out.append(_with_depth(pending, pending_depth))
    return "\n".join(out)


def _with_depth(line: str, depth: int) -> str:
    return ("> " * depth + line) if depth else line
