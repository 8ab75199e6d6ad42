"""``mail.smtp.max_per_day``: a provider's daily sending limit, kept in any
24 hours. Replies and mail to the game master go first; a newsletter larger
than what is left of the day waits in the outbox and goes out the next day;
the game master's digest says so; nothing is lost or sent twice. Real
SQLite files, the real application and the real Maildir sender (the sent
mails are files), a fake clock for the days."""

from __future__ import annotations

import email
from collections import Counter
from datetime import UTC, datetime, timedelta
from email import policy
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.app import App
from bot.config import Config
from bot.league.settings import LeagueSettings
from bot.mail.maildir_transport import MaildirInbox, MaildirSender, deliver
from bot.render.digest import render_digest
from bot.service.drain import drain
from bot.service.sending_budget import DAY, DailyBudget, outlook, reserve, schedule
from bot.storage.db import open_database
from bot.storage.outbox import enqueue
from tests.support.clock import FakeClock
from tests.support.mails import player_mail

START = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)  # a Tuesday; deadline Sunday 20:00
BOT = "turnited@game.example"
GM = "gm@game.example"
LEAGUE = LeagueSettings(password_cost=2**4, simulations=0)


class TimedSender(MaildirSender):
    """The real Maildir sender, noting the (fake) time and recipient of every mail."""

    def __init__(self, root: Path, clock: FakeClock) -> None:
        super().__init__(root)
        self.clock = clock
        self.log: list[tuple[datetime, str, str]] = []  # (when, recipient, subject)

    def send(self, raw: bytes, mail_from: str, rcpt: str) -> None:
        super().send(raw, mail_from, rcpt)
        subject = str(email.message_from_bytes(raw, policy=policy.default)["Subject"])
        self.log.append((self.clock(), rcpt, subject))


# ---------------------------------------------------------------- the budget itself


def test_reserve_leaves_bulk_mail_a_way_through():
    assert [reserve(n) for n in (1, 2, 5, 10, 11, 100, 500)] == [0, 1, 1, 2, 3, 20, 100]


def test_a_rolling_window_frees_each_slot_24_hours_after_its_send():
    t = START
    budget = DailyBudget(3, [t, t + timedelta(hours=1), t + timedelta(hours=2)])
    now = t + timedelta(hours=3)
    assert budget.used(now) == 3 and not budget.allows(now, bulk=False)
    assert budget.frees_at(now, bulk=False) == t + DAY
    assert budget.limit(bulk=True) == 2
    assert budget.frees_at(now, bulk=True) == t + timedelta(hours=1) + DAY
    assert budget.allows(t + DAY + timedelta(seconds=1), bulk=False)
    assert budget.used(t + DAY + timedelta(hours=3)) == 0


@settings(max_examples=60)
@given(
    limit=st.integers(1, 30),
    personal=st.integers(0, 40),
    bulk=st.integers(0, 80),
    earlier=st.lists(st.integers(0, 24 * 60 - 1), max_size=30),
)
def test_the_schedule_never_exceeds_the_limit_in_any_24_hours(limit, personal, bulk, earlier):
    now = START + DAY
    sent = sorted(now - timedelta(minutes=m) for m in earlier)
    recorded: list[datetime] = []

    class Spy(DailyBudget):
        def record(self, at: datetime) -> None:
            recorded.append(at)
            super().record(at)

    times = schedule(Spy(limit, sent), now, personal, bulk)
    assert len(times) == bulk and times == sorted(times) and all(t >= now for t in times)
    assert len(recorded) == personal + bulk
    everything = sorted(sent + recorded)
    for first in everything:  # any 24 hours: the limit, or what was sent before already
        window = [t for t in everything if first <= t < first + DAY]
        before = [t for t in sent if first <= t < first + DAY]
        assert len(window) <= max(limit, len(before))
    for n, t in enumerate(recorded):  # each went only while its kind had room
        earlier_sends = [u for u in sent + recorded[:n] if u > t - DAY]
        kind_limit = limit - reserve(limit) if n >= personal else limit
        assert len(earlier_sends) < kind_limit


# ---------------------------------------------------------------- the drain


def queue(db, kind: str, recipients: list[str], clock: FakeClock) -> None:
    with db.transaction() as conn:
        for rcpt in recipients:
            raw = (f"From: {BOT}\r\nTo: {rcpt}\r\nSubject: {kind} {rcpt}\r\n"
                   f"Message-ID: <{kind}.{rcpt}>\r\n\r\n{kind}\r\n").encode()
            enqueue(conn, raw=raw, message_id=f"<{kind}.{rcpt}>", kind=kind, recipient=rcpt,
                    now=clock())


def test_replies_first_then_bulk_within_the_budget_the_rest_the_next_day(tmp_path):
    clock = FakeClock(START)
    db = open_database(tmp_path / "state")
    sender = TimedSender(tmp_path / "maildir", clock)
    players = [f"p{n}@example.org" for n in range(15)]
    queue(db, "newsletter", players, clock)
    clock.advance(minutes=1)
    queue(db, "reply", ["late@example.org"], clock)  # queued after the newsletter
    run = lambda: drain(db, sender, now=clock, mail_from=BOT, max_per_day=10)  # noqa: E731

    first = run()
    assert sender.log[0][1] == "late@example.org"  # the reply jumps the queue
    assert first.sent == 8 and first.deferred == 8  # bulk leaves 2 of 10 for replies
    assert first.resume_at == clock() + DAY
    clock.advance(hours=2)
    queue(db, "reply", ["r1@example.org", "r2@example.org", "r3@example.org"], clock)
    second = run()
    assert [r for _t, r, _s in sender.log[8:]] == ["r1@example.org", "r2@example.org"]
    assert second.sent == 2 and second.deferred == 8  # the day's 10 are used up
    clock.advance(hours=21, minutes=59)
    assert run().sent == 0  # still within 24 hours of the first sends
    clock.advance(minutes=2)  # 24 h after the first batch: its 8 slots are free
    third = run()
    assert [r for _t, r, _s in sender.log[10:11]] == ["r3@example.org"]  # still first
    assert third.sent == 6  # r3 + 5 newsletters: r1 and r2 still count in the window
    assert third.deferred == 3 and third.resume_at == START + timedelta(hours=2, minutes=1) + DAY
    clock.advance(hours=2)  # r1 and r2 age out
    fourth = run()
    assert fourth.sent == 2 and fourth.deferred == 1
    clock.now = fourth.resume_at
    fifth = run()
    assert fifth.sent == 1 and fifth.deferred == 0 and fifth.resume_at is None

    newsletters = [(t, r) for t, r, s in sender.log if s.startswith("newsletter")]
    assert Counter(r for _t, r in newsletters) == Counter(players)  # each once, none lost
    assert sum(1 for t, _r in newsletters if t < START + DAY) == 7
    assert all(t >= START + DAY for t, _r in newsletters[7:])  # the rest: the next day
    times = sorted(t for t, _r, _s in sender.log)
    for i, t in enumerate(times):
        assert len([u for u in times[i:] if u < t + DAY]) <= 10  # never over the limit
    with db.read() as conn:
        states = Counter(r[0] for r in conn.execute("SELECT state FROM outbox"))
    assert states == Counter({"sent": 19})


def test_without_a_daily_limit_replies_still_go_first(tmp_path):
    clock = FakeClock(START)
    db = open_database(tmp_path / "state")
    sender = TimedSender(tmp_path / "maildir", clock)
    queue(db, "reminder", ["a@example.org", "b@example.org"], clock)
    queue(db, "digest", [GM], clock)
    report = drain(db, sender, now=clock, mail_from=BOT)
    assert report.sent == 3 and report.deferred == 0
    assert [r for _t, r, _s in sender.log] == [GM, "a@example.org", "b@example.org"]


# ---------------------------------------------------------------- a whole round


def budget_app(tmp_path: Path, clock: FakeClock, max_per_day: int) -> tuple[App, TimedSender]:
    config = Config.from_mapping({
        "state_dir": "state",
        "game": {"name": "Turnited Budget"},
        "schedule": {"timezone": "Europe/Berlin", "deadlines": {"cron": "0 20 * * SUN"}},
        "gm": {"address": GM, "name": "Greta GM"},
        "mail": {
            "transport": "imap", "address": BOT,
            # The servers are never reached: the app below reads and sends through
            # the Maildir transport, with the SMTP settings' limits.
            "imap": {"host": "imap.invalid", "password": "unused"},
            "smtp": {"host": "smtp.invalid", "rate_per_minute": None,
                     "max_per_day": max_per_day},
        },
    }, tmp_path)
    sender = TimedSender(config.maildir_root, clock)
    app = App(config, source=MaildirInbox(config.maildir_root), sender=sender, clock=clock,
              league_settings=LEAGUE)
    app.ensure_started()
    return app, sender


def test_a_newsletter_larger_than_the_daily_limit(tmp_path):
    clock = FakeClock(START)
    app, sender = budget_app(tmp_path, clock, max_per_day=10)
    inbox = app.config.maildir_root / "inbox"
    managers = [f"manager{n}@player.example" for n in range(12)]
    for n, address in enumerate(managers):
        deliver(inbox, player_mail(address, f"Neues Team: Elf {n}\nAufstellung: 10-10-15-15-20\n",
                                   to=BOT, when=clock()))
    assert app.poll_once().processed == 12
    app.drain_outbox()
    assert len(sender.log) == 10  # the registration day: 10 replies, 2 wait
    clock.advance(days=1, minutes=1)
    app.drain_outbox()
    assert len(sender.log) == 12

    clock.now = app.open_round_deadline() + timedelta(minutes=1)
    deadline_passed = clock()
    assert app.evaluate_due() == 1  # 12 newsletters and the digest queued
    # (a command: a question to a person would also be forwarded to the game master)
    deliver(inbox, player_mail(managers[0], "Status\n", to=BOT, when=clock(),
                               subject="Frage"))
    assert app.poll_once().processed == 1  # its reply is queued after the newsletters
    report = app.drain_outbox()

    day_one = sender.log[12:]
    subjects = [s for _t, _r, s in day_one]
    assert day_one[0][1] == GM and "Rundenbericht" in subjects[0]  # the digest first,
    assert (day_one[1][1], subjects[1]) == (managers[0], "Re: Frage")  # then the reply,
    assert all("Ergebnisse der Spielrunde 1" in s for s in subjects[2:])  # then newsletters
    assert report.sent == 8 and report.deferred == 6
    digest = read_digest(app)
    assert "5 Newsletter und Erinnerungen warten auf das Tageslimit" in digest
    assert "(mail.smtp.max_per_day: 10)" in " ".join(digest.split())

    clock.advance(hours=12)
    assert app.drain_outbox().sent == 0  # the same day: they wait
    clock.now = deadline_passed + DAY + timedelta(minutes=1)
    assert app.drain_outbox().sent == 6
    newsletters = [(t, r) for t, r, _s in sender.log[14:]]
    assert Counter(r for _t, r in newsletters) == Counter(managers)  # each once
    assert sum(1 for t, _r in newsletters if t >= deadline_passed + DAY) == 6
    with app.db.read() as conn:
        assert {r[0] for r in conn.execute("SELECT state FROM outbox")} == {"sent"}
    app.close()


def read_digest(app: App) -> str:
    for path in sorted((app.config.maildir_root / "sent").rglob("*")):
        if path.is_file():
            msg = email.message_from_bytes(path.read_bytes(), policy=policy.default)
            if msg["To"] and GM in str(msg["To"]) and "Rundenbericht" in str(msg["Subject"]):
                return msg.get_body(("plain",)).get_content()
    raise AssertionError("no digest sent")


# ---------------------------------------------------------------- the digest's line


def test_outlook_is_none_when_everything_fits(tmp_path):
    clock = FakeClock(START)
    db = open_database(tmp_path / "state")
    queue(db, "newsletter", [f"p{n}@example.org" for n in range(5)], clock)
    assert outlook(db, clock(), None) is None
    assert outlook(db, clock(), 10) is None
    deferral = outlook(db, clock(), 4, also_personal=1)
    assert deferral is not None and deferral.count == 3 and deferral.last_at == clock() + DAY


@pytest.mark.parametrize(("language", "words"), [
    ("de", "1 Newsletter oder Erinnerung wartet auf das Tageslimit beim Versand"),
    ("en", "1 newsletter or reminder waits for the daily sending limit"),
])
def test_the_digest_says_how_many_wait_and_until_when(language, words):
    stats = {"deferred_mail": {"count": 1, "max_per_day": 100,
                               "last_at": datetime(2026, 12, 7, 19, 5, tzinfo=UTC)}}
    text = " ".join(render_digest(stats, now=START, timezone="Europe/Berlin", game_name="T",
                                  language=language).text.split())
    assert words in text and "mail.smtp.max_per_day: 100" in text
    assert "7. Dezember 2026, 20:05" in text if language == "de" else "7 Dec 2026, 20:05" in text
    with pytest.raises(TypeError, match="deferred_mail"):
        render_digest({"deferred_mail": {"count": 0}}, now=START, timezone="UTC",
                      game_name="T", language=language)
