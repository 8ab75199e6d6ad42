"""Failed recipients of a bounce, found by GNU Mailman's ``flufl.bounce``.

``flufl.bounce`` knows the report formats of some twenty MTAs and providers
(RFC 3464 DSNs, Postfix, Exim, Sendmail, qmail, Exchange, Yahoo, GMX, ...),
nested ones included. It is run only on mails that look like a delivery
report (cheap header checks in ``may_be_bounce``) and not larger than
``MAX_SCANNED``, so a personal mail costs nothing and no hostile mail can
make it slow. Which kind a mail is stays ``bot.mail.classify``'s decision;
this module only names the addresses.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from email.message import Message

__all__ = ["MAX_SCANNED", "bounce_failures", "may_be_bounce"]

#: Larger mails are not given to the detectors (a real bounce is small).
MAX_SCANNED = 96 * 1024

_DAEMONS = ("mailer-daemon", "mailerdaemon", "mail-daemon", "postmaster", "mdaemon")
_SUBJECT_WORDS = (
    "undeliver", "returned mail", "delivery", "failure", "failed", "unzustellbar",
    "nicht zustellbar", "zustellung", "non recapitabile", "non remis", "non distribuable",
    "no entregado", "onbestelbaar", "bounce", "warning", "delayed", "returned to sender",
)

logging.getLogger("flufl.bounce").setLevel(logging.CRITICAL)


def may_be_bounce(headers: Mapping[str, tuple[str, ...]], part_types: list[str]) -> bool:
    """Cheap checks: a report part, a daemon sender, a null envelope sender,
    ``X-Failed-Recipients`` or a bounce word in the first 200 characters of
    the Subject."""
    if any(t.startswith(("multipart/report", "message/delivery-status")) for t in part_types):
        return True
    if "x-failed-recipients" in headers or "x-ms-exchange-message-is-ndr" in headers:
        return True
    sender = " ".join(headers.get("from", ()))[:500].lower()
    if any(daemon in sender for daemon in _DAEMONS):
        return True
    path = " ".join(headers.get("return-path", ()))[:50].replace(" ", "")
    if path in {"<>", ""} and "return-path" in headers:
        return True
    subject = " ".join(headers.get("subject", ()))[:200].lower()
    return any(word in subject for word in _SUBJECT_WORDS)


def bounce_failures(msg: Message, size: int) -> tuple[tuple[str, ...], tuple[str, ...], str]:
    """(permanent failures, temporary failures, note) of ``msg``; addresses in
    lower case, sorted. Never raises: a detector that fails gives a note."""
    if size > MAX_SCANNED:
        return (), (), f"mail of {size} bytes not scanned for bounce recipients"
    try:
        from flufl.bounce import all_failures

        temporary, permanent = all_failures(msg)
    except Exception as exc:
        return (), (), f"bounce detector failed: {type(exc).__name__}"
    return _addresses(permanent), _addresses(temporary), ""


def _addresses(found: Iterable[object] | None) -> tuple[str, ...]:
    result: set[str] = set()
    for item in found or ():
        text = item.decode("utf-8", "replace") if isinstance(item, bytes) else str(item)
        text = text.strip().strip("<>").strip().lower()
        if "@" in text and not any(c.isspace() for c in text) and len(text) <= 320:
            result.add(text)
    return tuple(sorted(result)[:100])
