"""Every outgoing mail enters the outbox through ``queue_mail``: composed once
(stable Message-ID from ``key``), queued in the caller's transaction.

Replies, newsletters, reminders, the digest and notices to the game master
all pass here, so headers, threading and idempotence are the same for all.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import datetime

from bot.mail.compose import Attachment, MailKind, compose
from bot.render.model import RenderedMail
from bot.service.settings import Sender
from bot.storage import outbox


def queue_mail(
    conn: sqlite3.Connection,
    *,
    sender: Sender,
    kind: MailKind,
    to: str,
    to_name: str | None,
    rendered: RenderedMail,
    key: str,
    now: datetime,
    round_number: int | None = None,
    inbound_id: int | None = None,
    in_reply_to: str | None = None,
    references: Sequence[str] = (),
    list_unsubscribe: str | None = None,
    reply_to: str | None = None,
) -> int:
    """Compose ``rendered`` for ``to`` and queue it; returns the outbox row id.
    Queuing the same ``key`` for the same recipient again changes nothing."""
    mail = compose(
        kind=kind,
        sender=sender.address,
        sender_name=sender.name,
        to=to,
        to_name=to_name,
        subject=rendered.subject,
        text=rendered.text,
        html=rendered.html,
        date=now,
        key=key,
        in_reply_to=in_reply_to,
        references=references,
        list_unsubscribe=list_unsubscribe,
        reply_to=reply_to,
        language=rendered.language,
        attachments=tuple(Attachment(*a) for a in rendered.attachments),
    )
    return outbox.enqueue(
        conn, raw=mail.data, message_id=mail.message_id, kind=kind.value,
        recipient=mail.recipient, now=now, inbound_id=inbound_id, round=round_number,
    )
