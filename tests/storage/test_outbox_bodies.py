"""No password in clear at rest: a delivered (or given-up) mail's body leaves
the outbox, its Message-ID, recipient, kind, size and SHA-256 stay; queued
mail keeps its body. Real SQLite files, a real SMTP server; the migration
from a version-3 state directory written the old way."""

from __future__ import annotations

import hashlib
import sqlite3
from datetime import UTC, datetime

import pytest

from bot.mail.smtp_sender import SmtpSender, SmtpSettings
from bot.service.drain import drain
from bot.storage.db import DATABASE_FILE, Database, open_database
from bot.storage.migrations import MIGRATIONS, apply_migrations
from bot.storage.outbox import enqueue, records

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
FROM = "bot@example.org"


def welcome(n: int, to: str) -> bytes:
    return (f"From: {FROM}\r\nTo: {to}\r\nSubject: Willkommen\r\nMessage-ID: <w{n}@example.org>"
            f"\r\n\r\nDein Passwort: geheim-{n}\r\n" + "Regeln der Liga.\r\n" * 400).encode()


def sender(server) -> SmtpSender:
    return SmtpSender(SmtpSettings(server.host, server.port, "none", timeout=5))


def test_a_sent_mail_keeps_its_digest_not_its_body(tmp_path, smtp_server):
    db = open_database(tmp_path)
    mails = {f"m{n}@example.org": welcome(n, f"m{n}@example.org") for n in range(3)}
    with db.transaction() as conn:
        for n, (to, raw) in enumerate(mails.items()):
            enqueue(conn, raw=raw, message_id=f"<w{n}@example.org>", kind="reply",
                    recipient=to, now=NOW)
    with db.read() as conn:  # queued: the body is there to be sent
        assert [r.raw for r in records(conn)] == list(mails.values())
    report = drain(db, sender(smtp_server), now=lambda: NOW, mail_from=FROM)
    assert report.sent == 3
    assert len(smtp_server.messages()) == 3
    with db.read() as conn:
        kept = records(conn)
    assert [(r.recipient, r.kind, r.state, r.raw) for r in kept] == [
        (to, "reply", "sent", b"") for to in mails]
    assert [(r.size, r.sha256) for r in kept] == [
        (len(raw), hashlib.sha256(raw).hexdigest()) for raw in mails.values()]
    db.close()
    conn = sqlite3.connect(tmp_path / DATABASE_FILE)  # the WAL's pages into the file
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    # secure_delete: the freed pages are zeroed, no password lingers in the file
    assert b"geheim" not in (tmp_path / DATABASE_FILE).read_bytes()


def test_a_mail_given_up_drops_its_body_after_it_is_reported(tmp_path, smtp_server):
    db = open_database(tmp_path)
    with db.transaction() as conn:
        enqueue(conn, raw=welcome(1, "gone@example.org"), message_id="<w1@example.org>",
                kind="reply", recipient="gone@example.org", now=NOW)
        enqueue(conn, raw=welcome(2, "later@example.org"), message_id="<w2@example.org>",
                kind="reply", recipient="later@example.org", now=NOW)
    smtp_server.fail("permanent", "gone@example.org")
    smtp_server.fail("temporary", "later@example.org")
    report = drain(db, sender(smtp_server), now=lambda: NOW, mail_from=FROM)
    assert [r for r, _ in report.failed] == ["gone@example.org"]  # reported here
    with db.read() as conn:
        gone, later = records(conn)
    assert (gone.state, gone.raw, gone.size) == ("failed", b"", len(welcome(1, "gone@example.org")))
    assert later.state == "queued" and later.raw == welcome(2, "later@example.org")


def _version_3_state(state) -> Database:
    """A state directory as version 3 left it: sent, failed and queued bodies."""
    state.mkdir()
    db = Database(state / DATABASE_FILE)
    apply_migrations(db, MIGRATIONS[:3])
    with db.transaction() as conn:
        for n, status in enumerate(("sent", "failed", "queued", "sending")):
            conn.execute(
                "INSERT INTO outbox (message_id, kind, recipient, raw, created_at, state,"
                " next_attempt_at) VALUES (?, 'reply', ?, ?, 'then', ?, 'then')",
                (f"<w{n}@example.org>", f"m{n}@example.org", welcome(n, "x"), status))
    db.close()
    return db


def test_the_migration_purges_delivered_bodies_and_keeps_the_queued_ones(tmp_path):
    _version_3_state(tmp_path / "state")
    db = open_database(tmp_path / "state")
    assert db.schema_version() == MIGRATIONS[-1].version >= 5
    with db.read() as conn:
        rows = {r.state: r for r in records(conn)}
    assert rows["sent"].raw == rows["failed"].raw == b""
    assert rows["queued"].raw == welcome(2, "x") and rows["sending"].raw == welcome(3, "x")
    for n, status in enumerate(("sent", "failed", "queued", "sending")):
        assert rows[status].size == len(welcome(n, "x"))
        assert rows[status].sha256 == hashlib.sha256(welcome(n, "x")).hexdigest()


@pytest.mark.parametrize(("sql", "index"), [
    ("SELECT 1 FROM outbox o WHERE o.kind = 'newsletter' AND o.round = 3", "outbox_kind_round"),
    ("SELECT sender FROM inbound WHERE received_at > '2026' AND received_at <= '2027'",
     "inbound_received"),
    ("SELECT COUNT(*) FROM moves WHERE received_at > '2026' AND received_at <= '2027'",
     "moves_received"),
])
def test_the_queries_by_kind_round_and_received_time_use_an_index(tmp_path, sql, index):
    db = open_database(tmp_path)
    with db.read() as conn:
        plan = " ".join(str(row[-1]) for row in conn.execute(f"EXPLAIN QUERY PLAN {sql}"))
    assert f"USING INDEX {index}" in plan or f"USING COVERING INDEX {index}" in plan, plan
    assert "SCAN" not in plan.replace(f"INDEX {index}", ""), plan


def test_the_outbox_stays_small_after_many_large_mails(tmp_path, smtp_server):
    """Finished rows are packed: 300 newsletters of 30 KB each leave a few pages
    of outbox rows behind, the freed pages are reused by the next ones."""
    db = open_database(tmp_path)
    page = 4096

    def used_pages() -> int:
        with db.read() as conn:
            return (conn.execute("PRAGMA page_count").fetchone()[0]
                    - conn.execute("PRAGMA freelist_count").fetchone()[0])

    def batch(start: int) -> None:
        with db.transaction() as conn:
            for n in range(start, start + 150):
                body = (f"Subject: Runde\r\nMessage-ID: <n{n}@x>\r\n\r\n".encode()
                        + (b"x" * 70 + b"\r\n") * 420)
                enqueue(conn, raw=body, message_id=f"<n{n}@x>", kind="newsletter",
                        recipient=f"m{n}@example.org", now=NOW, round=1 + n // 150)
        assert drain(db, sender(smtp_server), now=lambda: NOW, mail_from=FROM).sent == 150

    empty = used_pages()
    batch(0)
    after_one = used_pages()
    with db.read() as conn:
        size_after_one = conn.execute("PRAGMA page_count").fetchone()[0]
    batch(150)
    assert (after_one - empty) * page < 150 * 1024  # < 1 KB a finished mail
    assert (used_pages() - empty) * page < 300 * 1024
    with db.read() as conn:  # the second batch's bodies fit in the first one's freed pages
        assert conn.execute("PRAGMA page_count").fetchone()[0] <= size_after_one + 16
