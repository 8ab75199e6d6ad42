"""``queue_mail``: the one way into the outbox, on a real SQLite file."""

from __future__ import annotations

import email
from datetime import UTC, datetime
from email import policy

import pytest

from bot.mail.compose import MailKind
from bot.render.model import RenderedMail
from bot.service.outgoing import Sender, queue_mail
from bot.storage.db import open_database
from bot.storage.outbox import OutboxState, counts

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
SENDER = Sender("bot@turnited.example", "Turnited")
TEXT = RenderedMail(subject="Runde 1", text="Hallo", html=None, language="de")


def _rows(db):
    with db.read() as conn:
        return [tuple(r) for r in conn.execute(
            "SELECT kind, recipient, state, round, inbound_id, raw FROM outbox ORDER BY id")]


def test_queue_mail_composes_and_queues_once_per_key_and_recipient(tmp_path):
    db = open_database(tmp_path)
    with db.transaction() as conn:
        first = queue_mail(conn, sender=SENDER, kind=MailKind.NEWSLETTER, to="a@x.example",
                           to_name="Anna", rendered=TEXT, key="newsletter/round-1", now=NOW,
                           round_number=1)
        again = queue_mail(conn, sender=SENDER, kind=MailKind.NEWSLETTER, to="a@x.example",
                           to_name="Anna", rendered=TEXT, key="newsletter/round-1", now=NOW,
                           round_number=1)
        other = queue_mail(conn, sender=SENDER, kind=MailKind.NEWSLETTER, to="b@x.example",
                           to_name=None, rendered=TEXT, key="newsletter/round-1", now=NOW,
                           round_number=1)
    assert first == again != other
    rows = _rows(db)
    assert [r[:4] for r in rows] == [("newsletter", "a@x.example", "queued", 1),
                                     ("newsletter", "b@x.example", "queued", 1)]
    msg = email.message_from_bytes(rows[0][5], policy=policy.default)
    assert msg["From"] == "Turnited <bot@turnited.example>"
    assert msg["To"] == "Anna <a@x.example>" and msg["Subject"] == "Runde 1"
    with db.read() as conn:
        assert counts(conn) == {OutboxState.QUEUED: 2, "sending": 0, "sent": 0, "failed": 0}


def test_a_reply_threads_under_the_mail_it_answers(tmp_path):
    db = open_database(tmp_path)
    with db.transaction() as conn:
        conn.execute(
            "INSERT INTO inbound (id, source, sha256, spool_path, received_at, kind)"
            " VALUES (5, 'cli', 'x', 'p', '2026-12-01T12:00:00+00:00', 'human')"
        )
        queue_mail(conn, sender=SENDER, kind=MailKind.REPLY, to="a@x.example", to_name=None,
                   rendered=TEXT, key="reply/abc", now=NOW, inbound_id=5,
                   in_reply_to="<m2@x.example>", references=["<m1@x.example>", "<m2@x.example>"])
    [(kind, _to, _state, _round, inbound_id, raw)] = _rows(db)
    msg = email.message_from_bytes(raw, policy=policy.default)
    assert (kind, inbound_id) == ("reply", 5)
    assert msg["In-Reply-To"] == "<m2@x.example>"
    assert str(msg["References"]) == "<m1@x.example> <m2@x.example>"


def test_a_mail_that_cannot_be_queued_leaves_nothing(tmp_path):
    db = open_database(tmp_path)
    with pytest.raises(ValueError), db.transaction() as conn:
        queue_mail(conn, sender=SENDER, kind=MailKind.NOTICE, to="a@x.example", to_name=None,
                   rendered=TEXT, key="notice/1", now=NOW)
        raise ValueError("the caller's transaction fails afterwards")
    assert _rows(db) == []
