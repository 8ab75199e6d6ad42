"""The outbox drain against a real SQLite file and a real SMTP server."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.mail.maildir_transport import MaildirSender, read_sent
from bot.mail.smtp_sender import SmtpSender, SmtpSettings
from bot.mail.transport import TransportError
from bot.service.drain import backoff, drain
from bot.storage.db import open_database
from bot.storage.outbox import counts, enqueue
from tests.support.clock import FakeClock

FROM = "turnited@example.org"

START = datetime(2026, 3, 1, 18, 0, tzinfo=UTC)


def raw(n: int, to: str) -> bytes:
    return (
        f"From: Turnited <{FROM}>\r\nTo: {to}\r\nSubject: Antwort {n}\r\n"
        f"Message-ID: <r{n}@example.org>\r\n\r\nDanke, Zug {n} ist angekommen.\r\n"
    ).encode()


@pytest.fixture
def db(tmp_path):
    return open_database(tmp_path)


def queue(db, recipients, clock, kind="reply") -> list[int]:
    ids = []
    with db.transaction() as conn:
        for n, rcpt in enumerate(recipients):
            ids.append(
                enqueue(
                    conn,
                    raw=raw(n, rcpt),
                    message_id=f"<r{n}@example.org>",
                    kind=kind,
                    recipient=rcpt,
                    now=clock(),
                )
            )
    return ids


def rows(db) -> list[dict]:
    with db.read() as conn:
        return [dict(r) for r in conn.execute("SELECT * FROM outbox ORDER BY id")]


def smtp(server) -> SmtpSender:
    return SmtpSender(SmtpSettings(server.host, server.port, "none", timeout=5))


def managers(count: int) -> list[str]:
    return [f"manager{n}@example.org" for n in range(count)]


# ---------------------------------------------------------------- queueing


def test_enqueue_is_idempotent_on_message_id(db):
    clock = FakeClock(START)
    first = queue(db, ["anna@example.org"], clock)
    again = queue(db, ["anna@example.org"], clock)
    assert first == again
    (row,) = rows(db)
    assert row["state"] == "queued" and row["attempts"] == 0
    assert row["raw"] == raw(0, "anna@example.org")
    assert row["created_at"] == row["next_attempt_at"] == "2026-03-01T18:00:00+00:00"


def test_enqueue_rejects_unknown_kind_and_naive_time(db):
    with db.transaction() as conn:
        with pytest.raises(ValueError, match=r"kind 'spam' is unknown.*reply"):
            enqueue(conn, raw=b"x", message_id="<a@b>", kind="spam", recipient="a@b", now=START)
        with pytest.raises(ValueError, match="naive"):
            enqueue(
                conn, raw=b"x", message_id="<a@b>", kind="reply", recipient="a@b",
                now=START.replace(tzinfo=None),
            )
    assert rows(db) == []


# ---------------------------------------------------------------- drain over SMTP


@pytest.mark.servers
def test_drain_sends_fifty_in_order_with_envelopes(db, smtp_server):
    clock = FakeClock(START)
    recipients = managers(50)
    queue(db, recipients, clock)
    report = drain(db, smtp(smtp_server), now=clock, mail_from=FROM)
    assert (report.sent, report.retried, report.failed, report.stopped) == (50, 0, [], None)
    got = smtp_server.messages()
    assert [m.rcpt_tos for m in got] == [(r,) for r in recipients]
    assert [m.content for m in got] == [raw(n, r) for n, r in enumerate(recipients)]
    assert {m.mail_from for m in got} == {FROM}
    assert len({m.peer for m in got}) == 1
    assert all(r["state"] == "sent" and r["attempts"] == 1 and r["sent_at"] for r in rows(db))
    # a second drain has nothing to do
    assert drain(db, smtp(smtp_server), now=clock, mail_from=FROM).sent == 0
    assert len(smtp_server.messages()) == 50


@pytest.mark.servers
def test_temporary_refusal_backs_off_exponentially_then_gives_up(db, smtp_server):
    clock = FakeClock(START)
    queue(db, ["anna@example.org", "busy@example.org", "bernd@example.org"], clock)
    smtp_server.fail("temporary", "busy@example.org")
    sender = smtp(smtp_server)

    report = drain(db, sender, now=clock, mail_from=FROM, max_attempts=3)
    assert (report.sent, report.retried, report.failed) == (2, 1, [])
    busy = rows(db)[1]
    assert busy["state"] == "queued" and busy["attempts"] == 1
    assert busy["next_attempt_at"] == "2026-03-01T18:01:00+00:00"  # + 60 s
    assert "451" in busy["last_error"]

    clock.advance(seconds=59)  # not due yet
    assert drain(db, sender, now=clock, mail_from=FROM).retried == 0
    clock.advance(seconds=1)
    assert drain(db, sender, now=clock, mail_from=FROM, max_attempts=3).retried == 1
    assert rows(db)[1]["next_attempt_at"] == "2026-03-01T18:03:00+00:00"  # + 120 s

    clock.advance(minutes=2)
    report = drain(db, sender, now=clock, mail_from=FROM, max_attempts=3)
    assert report.failed and report.failed[0][0] == "busy@example.org"
    assert "gave up after 3 tries" in report.failed[0][1]
    assert rows(db)[1]["state"] == "failed"
    assert [m.rcpt_tos for m in smtp_server.messages()] == [
        ("anna@example.org",),
        ("bernd@example.org",),
    ]


@pytest.mark.servers
def test_temporary_refusal_then_success(db, smtp_server):
    clock = FakeClock(START)
    queue(db, ["busy@example.org"], clock)
    smtp_server.fail("temporary", "busy@example.org")
    drain(db, smtp(smtp_server), now=clock, mail_from=FROM)
    smtp_server.heal()
    clock.advance(minutes=1)
    assert drain(db, smtp(smtp_server), now=clock, mail_from=FROM).sent == 1
    (row,) = rows(db)
    assert row["state"] == "sent" and row["attempts"] == 2


@pytest.mark.servers
def test_permanent_refusal_fails_at_once_and_is_reported(db, smtp_server):
    clock = FakeClock(START)
    queue(db, ["anna@example.org", "gone@example.org", "bernd@example.org"], clock)
    smtp_server.fail("permanent", "gone@example.org")
    report = drain(db, smtp(smtp_server), now=clock, mail_from=FROM)
    assert report.sent == 2
    assert [r for r, _e in report.failed] == ["gone@example.org"]
    assert "550" in report.failed[0][1]
    gone = rows(db)[1]
    assert gone["state"] == "failed" and gone["attempts"] == 1 and "550" in gone["last_error"]
    assert counts_now(db) == {"queued": 0, "sending": 0, "sent": 2, "failed": 1}


def counts_now(db) -> dict[str, int]:
    with db.read() as conn:
        return counts(conn)


@pytest.mark.servers
def test_server_down_keeps_everything_queued(db, smtp_server):
    clock = FakeClock(START)
    queue(db, managers(5), clock)
    smtp_server.stop()
    report = drain(db, smtp(smtp_server), now=clock, mail_from=FROM)
    assert report.sent == 0 and report.stopped and "cannot connect" in report.stopped
    assert [(r["state"], r["attempts"]) for r in rows(db)] == [("queued", 0)] * 5
    smtp_server.start()
    assert drain(db, smtp(smtp_server), now=clock, mail_from=FROM).sent == 5
    assert len(smtp_server.messages()) == 5


@pytest.mark.servers
def test_server_crash_mid_drain_loses_nothing_duplicates_only_the_one_in_flight(
    db, smtp_server
):
    clock = FakeClock(START)
    recipients = managers(30)
    queue(db, recipients, clock)
    smtp_server.crash_after(12)  # accepts the 12th, then dies before saying 250
    first = drain(db, smtp(smtp_server), now=clock, mail_from=FROM)
    assert first.sent == 11 and first.stopped and "connection lost" in first.stopped
    smtp_server.wait_stopped()
    assert counts_now(db) == {"queued": 19, "sending": 0, "sent": 11, "failed": 0}

    smtp_server.start()
    second = drain(db, smtp(smtp_server), now=clock, mail_from=FROM)
    assert second.sent == 19 and second.stopped is None
    arrived = Counter(m.rcpt_tos[0] for m in smtp_server.messages())
    assert set(arrived) == set(recipients)
    assert [r for r, n in arrived.items() if n > 1] == [recipients[11]]
    assert arrived[recipients[11]] == 2


def test_rows_left_sending_by_a_crash_are_sent_again(db, tmp_path):
    clock = FakeClock(START)
    queue(db, ["anna@example.org", "bernd@example.org"], clock)
    with db.transaction() as conn:  # what a drain killed mid-send leaves behind
        conn.execute("UPDATE outbox SET state = 'sending' WHERE id = 1")
    sender = MaildirSender(tmp_path / "maildir")
    report = drain(db, sender, now=clock, mail_from=FROM)
    assert report.recovered == 1 and report.sent == 2
    assert [m.rcpt for m in read_sent(tmp_path / "maildir")] == [
        "anna@example.org",
        "bernd@example.org",
    ]


@pytest.mark.servers
def test_unusable_configuration_surfaces_and_keeps_the_message(db, smtp_server):
    clock = FakeClock(START)
    queue(db, ["anna@example.org"], clock)
    sender = SmtpSender(SmtpSettings(smtp_server.host, smtp_server.port, "starttls"))
    with pytest.raises(TransportError, match="STARTTLS"):
        drain(db, sender, now=clock, mail_from=FROM)
    (row,) = rows(db)
    assert row["state"] == "queued" and row["attempts"] == 0 and "STARTTLS" in row["last_error"]


# ---------------------------------------------------------------- rate and back-off


class RecordingSender(MaildirSender):
    """The real Maildir sender, noting the (fake) time of every send."""

    def __init__(self, root, clock: FakeClock) -> None:
        super().__init__(root)
        self.clock = clock
        self.times: list[datetime] = []

    def send(self, raw: bytes, mail_from: str, rcpt: str) -> None:
        super().send(raw, mail_from, rcpt)
        self.times.append(self.clock())


def test_rate_limit_spreads_sends_over_minutes(db, tmp_path):
    clock = FakeClock(START)
    queue(db, managers(25), clock)
    sender = RecordingSender(tmp_path / "maildir", clock)
    report = drain(db, sender, now=clock, mail_from=FROM, rate_per_minute=10, sleep=clock.sleep)
    assert report.sent == 25
    times = sender.times
    for i, moment in enumerate(times):
        in_window = [t for t in times[: i + 1] if moment - t < timedelta(minutes=1)]
        assert len(in_window) <= 10
    assert times[-1] - times[0] == timedelta(minutes=2)  # 10 + 10 + 5, no longer waits
    assert len(clock.slept) == 2


def test_drain_without_rate_limit_never_sleeps(db, tmp_path):
    clock = FakeClock(START)
    queue(db, managers(5), clock)
    report = drain(db, MaildirSender(tmp_path), now=clock, mail_from=FROM, sleep=clock.sleep)
    assert report.sent == 5 and clock.slept == []


@given(
    st.integers(min_value=0, max_value=200),
    st.integers(min_value=1, max_value=600),
    st.integers(min_value=1, max_value=86400),
)
def test_backoff_doubles_and_is_capped(attempts, base_s, cap_s):
    base, cap = timedelta(seconds=base_s), timedelta(seconds=cap_s)
    wait = backoff(attempts, base, cap)
    assert wait <= cap
    assert wait == (cap if base_s * 2**attempts >= cap_s else base * 2**attempts)
    assert backoff(attempts + 1, base, cap) >= wait
