"""The ledger keeps what code reads as columns (issue 19): the outcome code,
whether the mail carried its manager's right password, the bot thread it
answers, the failed attempts. The human line is never read back: rewriting
it changes no decision. Migration 10 fills the columns of old rows from the
lines version 7 wrote; every reader's query uses an index. Real SQLite files,
and the real ingest for the decisions."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta

import pytest

from bot.storage import Database, ledger, open_database
from bot.storage.ledger import InboundRecord, Outcome
from bot.storage.migrations import MIGRATIONS, apply_migrations
from tests.service.harness import Game

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
HANS = "hans@player.example"


def record(n: int, sender: str = HANS, when: datetime = T0, kind: str = "human",
           uid: int | None = None) -> InboundRecord:
    return InboundRecord(source="maildir", uidvalidity=None, uid=uid, message_id=f"<m{n}@x>",
                         sha256=f"{n:064x}", spool_path=f"2026-12/{n:064x}.eml.gz",
                         received_at=when, sender=sender, subject="Aufstellung", kind=kind)


def mail(conn: sqlite3.Connection, n: int, code: Outcome, text: str = "anything", *,
         minutes: int = 0, sender: str = HANS, **facts: object) -> int:
    row_id = ledger.insert(conn, record(n, sender, T0 + timedelta(minutes=minutes)))
    ledger.finish(conn, row_id, code=code, text=text, **facts)  # type: ignore[arg-type]
    return row_id


def test_each_decision_reads_the_columns_not_the_line(tmp_path) -> None:
    db = open_database(tmp_path)
    with db.transaction() as conn:
        # Lines that say the opposite of the facts: only the facts count.
        mail(conn, 1, Outcome.ACCEPTED, "accepted round 1: lineup_set [password ok]")
        mail(conn, 2, Outcome.ACCEPTED, "accepted round 1: lineup_set", authenticated=True)
        mail(conn, 3, Outcome.REJECTED, "slow_down: nothing changed [bot thread <b1@bot>]")
        mail(conn, 4, Outcome.SLOW_DOWN, "accepted", minutes=1)
        mail(conn, 5, Outcome.NO_REPLY, "no reply", thread="<b2@bot>", minutes=2)
        mail(conn, 6, Outcome.PASSWORD_RESET, "rejected", minutes=3)
        mail(conn, 7, Outcome.ACCEPTED, "password_reset: ...", sender="anna@x", minutes=4)
        now = mail(conn, 8, Outcome.ACCEPTED, minutes=5)
        since = T0 - timedelta(seconds=1)
        assert ledger.unverified_since(conn, HANS, since=since, other_than=now) == 5
        assert ledger.slowed_down_since(conn, HANS, since=since, other_than=now)
        assert not ledger.slowed_down_since(conn, HANS, since=T0 + timedelta(minutes=1),
                                            other_than=now)
        assert ledger.thread_answered_since(conn, HANS, "<b2@bot>", since=since, other_than=now)
        assert not ledger.thread_answered_since(conn, HANS, "<b1@bot>", since=since,
                                                other_than=now)
        assert ledger.password_reset_since(conn, HANS, since=since, other_than=now)
        assert not ledger.password_reset_since(conn, "anna@x", since=since, other_than=now)
        # The mail itself never counts, nor another sender's.
        assert ledger.unverified_since(conn, "anna@x", since=since, other_than=7) == 0


def test_retry_and_quarantine_are_codes_with_a_count(tmp_path) -> None:
    db = open_database(tmp_path)
    with db.transaction() as conn:
        first = ledger.record_failed_attempt(conn, record(1, uid=7), None, "RuntimeError: boom")
        again = ledger.retry_of(conn, source="maildir", uidvalidity=None, uid=7,
                                sha256="ignored")
        assert again is not None and (again.inbound_id, again.attempts) == (first.inbound_id, 1)
        second = ledger.record_failed_attempt(conn, record(1, uid=7), again, "RuntimeError: boom")
        assert second.attempts == 2 and second.outcome.startswith("retry: 2 failed attempt(s)")
        assert ledger.quarantined_count(conn) == (0, 1)
        ledger.finish(conn, second.inbound_id, code=Outcome.QUARANTINED, text="given up")
        assert ledger.retry_of(conn, source="maildir", uidvalidity=None, uid=7,
                               sha256="ignored") is None
        assert ledger.is_quarantined(conn, second.inbound_id)
        assert ledger.quarantined_count(conn) == (1, 0)
        assert ledger.quarantined_between(conn, "2026", "2027") == [
            (HANS, "Aufstellung", "given up")]
        attempts = conn.execute("SELECT attempts FROM inbound WHERE id = ?",
                                (second.inbound_id,)).fetchone()[0]
        assert attempts == 2
        # A handled retry row is dropped; any other row never is.
        other = ledger.record_failed_attempt(conn, record(2), None, "OSError")
        ledger.forget_retry(conn, other)
        ledger.forget_retry(conn, ledger.RetryRow(second.inbound_id, 2, ""))
        ids = [r[0] for r in conn.execute("SELECT id FROM inbound")]
    assert ids == [second.inbound_id]


def test_the_ingest_decides_by_the_columns(tmp_path) -> None:
    """Through the real pipeline: the rows carry the facts, and after every
    line is rewritten by hand the loop guard still holds."""
    game = Game(tmp_path, max_mails_per_hour=3)
    game.send(game.mail(HANS, "Neues Team: Rote Teufel\nAufstellung: 10-10-15-15-20\n"))
    with game.db.read() as conn:
        password = None
        (raw,) = conn.execute("SELECT raw FROM outbox ORDER BY id LIMIT 1").fetchone()
        (bot_id,) = conn.execute("SELECT message_id FROM outbox ORDER BY id LIMIT 1").fetchone()
    for line in bytes(raw).decode("utf-8", "replace").splitlines():
        if line.strip().startswith("Passwort: "):
            password = line.split(": ", 1)[1].strip()
    assert password
    game.send(game.mail(HANS, f"Passwort: {password}\nAufstellung: 5-5-20-25-35\n"))
    game.send(game.mail(HANS, "Danke!\n", subject="Re: Aufstellung", In_Reply_To=bot_id))
    with game.db.read() as conn:
        rows = conn.execute("SELECT code, authenticated, thread FROM inbound ORDER BY id")
        assert [tuple(r) for r in rows] == [
            # a thanks without a command needs no password (RULES.md §11): answered
            ("accepted", 0, None), ("accepted", 1, None), ("accepted", 0, bot_id)]
    with game.db.transaction() as conn:
        conn.execute("UPDATE inbound SET outcome = 'edited by hand'")
    [again] = game.send(game.mail(HANS, "Nochmals danke!\n", subject="Re: Aufstellung",
                                  In_Reply_To=bot_id))
    assert again.outcome.startswith("no reply") and not again.replied
    # Three unverified mails in the hour (the registration and the thanks; the
    # one with the password does not count): the fourth is asked to slow down.
    [slow] = game.send(game.mail(HANS, "Aufstellung: 1-1-1-1-1\n"))
    assert slow.outcome.startswith("slow_down")
    [ok] = game.send(game.mail(HANS, f"Passwort: {password}\nAufstellung: 6-6-20-25-33\n"))
    assert ok.outcome.startswith("accepted")


# -- migration 10 -----------------------------------------------------------------------

#: Lines as version 7 of the ingest wrote them, and the facts they hold.
V7_LINES = [
    ("accepted round 3: lineup_set [password ok]", ("accepted", 1, None, 0)),
    ("accepted round 3: nothing_to_do [bot thread <r.1@turnited.example>]",
     ("accepted", 0, "<r.1@turnited.example>", 0)),
    ("accepted round 3: status [bot thread text] [password ok]", ("accepted", 1, "text", 0)),
    ("rejected round 3: nothing_changed, password_wrong", ("rejected", 0, None, 0)),
    ("rejected: forgot password again within a day; nothing changed", ("rejected", 0, None, 0)),
    ("no reply: answers the bot's mail without a command; that thread was answered today "
     "already [bot thread <r.2@[10.0.0.1]>]", ("no reply", 0, "<r.2@[10.0.0.1]>", 0)),
    ("no reply: auto-reply (Auto-Submitted)", ("no reply", 0, None, 0)),
    ("slow_down: nothing changed", ("slow_down", 0, None, 0)),
    ("rate_limited: no reply (told already)", ("rate_limited", 0, None, 0)),
    ("password_reset: a new password was mailed to hans@player.example",
     ("password_reset", 0, None, 0)),
    ("retry: 2 failed attempt(s): RuntimeError: boom", ("retry", 0, None, 2)),
    ("quarantined: handling failed 3 times (last: KeyError: 'x'); the mail is in the "
     "quarantine folder", ("quarantined", 0, None, 3)),
    ("bounce (mailbox full): anna@x.example", ("bounce", 0, None, 0)),
    ("forged: dmarc=fail; nothing changed, no reply", ("forged", 0, None, 0)),
    ("banned: no reply, nothing changed", ("banned", 0, None, 0)),
    ("too_large: nothing changed", ("too_large", 0, None, 0)),
    ("something a person typed", (None, 0, None, 0)),
    (None, (None, 0, None, 0)),
]


def _version_7_state(tmp_path) -> None:
    old = Database(tmp_path / "turnited.sqlite3")
    apply_migrations(old, tuple(m for m in MIGRATIONS if m.version <= 7))
    with old.transaction() as conn:
        for n, (line, _facts) in enumerate(V7_LINES):
            conn.execute(
                "INSERT INTO inbound (source, sha256, spool_path, received_at, sender, kind,"
                " outcome) VALUES ('maildir', ?, 'x', ?, ?, 'human', ?)",
                (f"{n:064x}", (T0 + timedelta(minutes=n)).isoformat(), HANS, line))
    old.close()


def test_migration_10_reads_the_facts_out_of_the_old_lines(tmp_path) -> None:
    _version_7_state(tmp_path)
    db = open_database(tmp_path)
    assert db.schema_version() >= 10
    with db.read() as conn:
        rows = conn.execute(
            "SELECT outcome, code, authenticated, thread, attempts FROM inbound ORDER BY id")
        assert [(r[0], tuple(r[1:])) for r in rows] == V7_LINES
        # The readers answer as the old line readers did.
        last = len(V7_LINES) + 1
        since = T0 - timedelta(seconds=1)
        assert ledger.unverified_since(conn, HANS, since=since, other_than=last) == len(
            V7_LINES) - 2
        assert ledger.thread_answered_since(conn, HANS, "<r.1@turnited.example>", since=since,
                                            other_than=last)
        assert ledger.password_reset_since(conn, HANS, since=since, other_than=last)
        assert ledger.slowed_down_since(conn, HANS, since=since, other_than=last)
        assert ledger.quarantined_count(conn) == (1, 1)


# -- every reader's query uses an index ---------------------------------------------------

READERS = [
    (lambda c: ledger.unverified_since(c, HANS, since=T0, other_than=1), "inbound_sender"),
    (lambda c: ledger.slowed_down_since(c, HANS, since=T0, other_than=1), "inbound_sender"),
    (lambda c: ledger.thread_answered_since(c, HANS, "<b@x>", since=T0, other_than=1),
     "inbound_sender"),
    (lambda c: ledger.password_reset_since(c, HANS, since=T0, other_than=1), "inbound_sender"),
    (lambda c: ledger.quarantined_count(c), "inbound_trouble"),
    (lambda c: ledger.quarantined_between(c, "2026", "2027"), "inbound_received"),
    (lambda c: ledger.received_between(c, "2026", "2027"), "inbound_received"),
]


@pytest.mark.parametrize(("read", "index"), READERS)
def test_each_reader_uses_an_index(tmp_path, read, index) -> None:
    db = open_database(tmp_path)
    with db.transaction() as conn:
        for n in range(50):
            mail(conn, n, Outcome.ACCEPTED, minutes=n, sender=f"p{n % 7}@x")
        conn.execute("ANALYZE")
    with db.read() as conn:
        statements: list[str] = []
        conn.set_trace_callback(statements.append)
        read(conn)
        conn.set_trace_callback(None)
        [sql] = [s for s in statements if s.lstrip().upper().startswith("SELECT")]
        plan = " ".join(str(row[-1]) for row in conn.execute(f"EXPLAIN QUERY PLAN {sql}"))
    assert f"USING INDEX {index}" in plan or f"USING COVERING INDEX {index}" in plan, plan
    assert "SCAN" not in plan.replace(f"INDEX {index}", ""), plan


def test_the_notice_codes_of_an_old_line() -> None:
    from bot.storage.ledger_migration import notices_of

    assert notices_of("accepted round 3: lineup_set [password ok]") == "lineup_set"
    assert notices_of("rejected round 3: nothing_changed, password_wrong") == (
        "nothing_changed password_wrong")
    assert notices_of("slow_down: nothing changed") is None and notices_of(None) is None
