"""The one builder of a player's mail, as raw bytes the way a transport hands
it to the bot."""

from __future__ import annotations

from datetime import datetime
from email import policy
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid


def player_mail(
    sender: str,
    body: str,
    *,
    to: str,
    when: datetime,
    subject: str = "Aufstellung",
    crlf: bool = False,
    subtype: str = "plain",
    **headers: str,
) -> bytes:
    """A plain-text mail from ``sender`` to ``to`` sent at ``when``, with a fresh
    Message-ID. ``headers`` add more (``In_Reply_To=...`` -> ``In-Reply-To``);
    ``crlf`` gives the wire form with CRLF line ends (as IMAP hands mail out),
    otherwise ``\\n`` (as a Maildir file holds it); ``subtype="html"`` sends
    ``body`` as the only, HTML, part."""
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = subject
    msg["Date"] = format_datetime(when)
    msg["Message-ID"] = make_msgid(domain="player.example")
    for key, value in headers.items():
        msg[key.replace("_", "-")] = value
    msg.set_content(body, subtype=subtype)
    return msg.as_bytes(policy=policy.SMTP) if crlf else bytes(msg)
