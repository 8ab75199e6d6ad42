"""Delivery status notifications: the per-recipient fields of a DSN (RFC 3464)
and the failed addresses named in plain-text bounces.

Used by ``reading`` (structured ``message/delivery-status`` parts) and by
``classify`` (which recipients bounced, so the pipeline can mark a manager's
address as failing).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

__all__ = [
    "MAX_RECIPIENTS",
    "DsnRecipient",
    "address_from_field",
    "addresses_in_bounce_text",
    "parse_delivery_status_text",
    "recipient_from_fields",
]

# Bounded repetitions: a long run of address characters without ``@`` costs
# linear time, not quadratic. A quote or ``=`` glued on the front ("'anne@x'",
# "to=anne@x") is not part of the address; nor is a quote at the end.
_ADDRESS = re.compile(
    r"(?<![\w.+\-=@])([A-Za-z0-9!#$%&*+/?^_`{|}~.\-][A-Za-z0-9!#$%&'*+/=?^_`{|}~.\-]{0,63}"
    r"@[A-Za-z0-9](?:[A-Za-z0-9\-.]{0,253}[A-Za-z0-9])?)"
)
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_KEY_PREFIX = re.compile(r"^[A-Za-z][A-Za-z\-]{0,30}=")

# Where a plain-text bounce starts quoting the returned original message.
_ORIGINAL_STARTS = re.compile(
    r"^\s*(?:-{2,}.*(?:copy of the message|original message|below this line|header of the "
    r"original|returned message|undelivered message|message follows|headers? follows?)"
    r"|original message follows|bounced e-?mail\s*:"
    r"|the original message (?:was|is)(?! received at)"
    r"|-{2,}\s*(?:urspr(?:ü|ue)ngliche nachricht|original-nachricht)"
    r"|(?:return-path|received|dkim-signature|message-id|mime-version|x-[\w-]+)\s*:\s*\S)",
    re.IGNORECASE,
)

#: At most this many failed recipients are taken from one bounce.
MAX_RECIPIENTS = 100
#: Longer lines of a bounce report are read up to this length.
_MAX_LINE = 4000

#: Local parts that never belong to a player (mail software and role accounts).
ROLE_LOCAL_PARTS = frozenset(
    {
        "mailer-daemon", "mailerdaemon", "mail-daemon", "postmaster", "abuse", "hostmaster",
        "noreply", "no-reply", "no_reply", "donotreply", "do-not-reply", "do_not_reply",
        "bounce", "bounces", "root",
    }
)


@dataclass(frozen=True, slots=True)
class DsnRecipient:
    """One per-recipient block of a ``message/delivery-status`` part."""

    final_recipient: str | None
    original_recipient: str | None
    action: str | None  # lower case: failed, delayed, delivered, relayed, expanded
    status: str | None
    diagnostic: str | None = None

    @property
    def failed(self) -> bool:
        """True unless the block says the delivery is only delayed or did succeed."""
        return self.action not in {"delayed", "delivered", "relayed", "expanded"}

    @property
    def addresses(self) -> tuple[str, ...]:
        """Original recipient first (the address that was written to), then the final one."""
        found: list[str] = []
        for field in (self.original_recipient, self.final_recipient):
            if field and field not in found:
                found.append(field)
        return tuple(found)


def address_from_field(value: str | None) -> str | None:
    """``"rfc822; <Anne@Example.org>"`` -> ``"anne@example.org"`` (None if no address)."""
    if not value:
        return None
    _, _, rest = value.rpartition(";") if ";" in value else ("", "", value)
    match = _ADDRESS.search(rest) or _ADDRESS.search(value)
    return _tidy(match.group(1)) if match else None


def _tidy(address: str) -> str:
    """Lower case, without trailing dots, quotes, or a ``key=`` glued on the front."""
    address = _KEY_PREFIX.sub("", address.strip(".'")).strip(".'")
    return address.lower()


def recipient_from_fields(fields: Mapping[str, str]) -> DsnRecipient | None:
    """A ``DsnRecipient`` from one block of fields (keys lower case), or None
    if the block names no recipient (e.g. the per-message block)."""
    final = address_from_field(fields.get("final-recipient"))
    original = address_from_field(fields.get("original-recipient"))
    if final is None and original is None:
        return None
    action = (fields.get("action") or "").strip().lower().split(" ")[0] or None
    status = (fields.get("status") or "").strip() or None
    diagnostic = (fields.get("diagnostic-code") or "").strip() or None
    return DsnRecipient(final, original, action, status, diagnostic)


def parse_delivery_status_text(text: str) -> list[DsnRecipient]:
    """Per-recipient blocks of a delivery-status body given as text.

    Blocks are separated by blank lines; each line is ``Field: value`` with
    continuation lines starting with blanks. Unknown lines are skipped.
    """
    recipients: list[DsnRecipient] = []
    for block in _BLANK_LINE.split(text.replace("\r\n", "\n").replace("\r", "\n")):
        fields: dict[str, str] = {}
        last: str | None = None
        for line in block.split("\n"):
            if line[:1] in (" ", "\t") and last is not None:
                fields[last] += " " + line.strip()
                continue
            name, sep, value = line.partition(":")
            if sep and name.strip() and " " not in name.strip():
                last = name.strip().lower()
                fields.setdefault(last, value.strip())
        recipient = recipient_from_fields(fields)
        if recipient is not None:
            recipients.append(recipient)
    return recipients


def addresses_in_bounce_text(text: str, exclude: Iterable[str] = ()) -> list[str]:
    """Addresses named in the report part of a plain-text bounce.

    Reads ``text`` up to where the returned original message starts and
    collects every address there, except those in ``exclude`` (the bot's own
    addresses, the bounce's own sender and recipient) and role accounts such
    as ``postmaster``. Order of first appearance, lower case, no duplicates.
    """
    excluded = {a.lower() for a in exclude}
    found: list[str] = []
    seen: set[str] = set()
    for line in text.splitlines():
        if _ORIGINAL_STARTS.match(line):
            break
        if len(line) > _MAX_LINE:
            line = line[:_MAX_LINE]
        for match in _ADDRESS.finditer(line):
            address = _tidy(match.group(1))
            local = address.split("@", 1)[0]
            if address in excluded or local in ROLE_LOCAL_PARTS or address in seen:
                continue
            seen.add(address)
            found.append(address)
            if len(found) >= MAX_RECIPIENTS:
                return found
    return found
