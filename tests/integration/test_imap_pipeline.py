"""The application against a REAL Dovecot and a real SMTP server.

Players' mails are APPENDed over IMAP by another connection; an ``App`` built
by ``build_app`` from an ``imap`` configuration (``ImapMailbox``, security
'none', processed folder 'Processed'; ``SmtpSender`` to the test SMTP server)
polls, applies and answers. Checked: the moves in the database, every mail
moved to Processed (none deleted), one threaded reply per mail; the server
killed before the MOVE and during a FETCH, the bot killed half-way through a
batch: nothing lost, nothing doubled; IDLE wakes the bot within seconds.
"""

from __future__ import annotations

import email
import hashlib
import re
import threading
import time
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from email import policy
from email.message import EmailMessage
from pathlib import Path

import pytest

import bot.app
from bot.app import App, build_app
from bot.config import Config
from bot.league.settings import LeagueSettings
from bot.mail.imap_source import ImapMailbox
from bot.mail.spool import read_spooled
from bot.mail.transport import IncomingMail, TransportError
from bot.service import inbound
from tests.servers import BOT_ADDRESS, DovecotServer, SmtpServer
from tests.support import mails
from tests.support.clock import FakeClock

pytestmark = pytest.mark.servers

START = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)  # a Tuesday; deadline Sunday 20:00
LEAGUE = LeagueSettings(password_cost=2**4, simulations=0)


# ---------------------------------------------------------------- set-up


def imap_config(tmp_path: Path, dovecot: DovecotServer, smtp: SmtpServer) -> Config:
    return Config.from_mapping(
        {
            "state_dir": "state",
            "game": {"name": "Turnited IMAP"},
            "schedule": {"timezone": "Europe/Berlin", "deadlines": {"cron": "0 20 * * SUN"}},
            "gm": {"address": "gm@example.org", "name": "Greta GM"},
            "mail": {
                "transport": "imap",
                "address": BOT_ADDRESS,
                "imap": {
                    "host": dovecot.host,
                    "port": dovecot.imap_port,
                    "security": "none",
                    "username": BOT_ADDRESS,
                    "password": dovecot.password(BOT_ADDRESS),
                    "processed_folder": "Processed",
                },
                "smtp": {
                    "host": smtp.host,
                    "port": smtp.port,
                    "security": "none",
                    "rate_per_minute": 10_000,
                },
            },
        },
        tmp_path,
    )


def make_app(config: Config, clock: FakeClock) -> App:
    app = build_app(config, clock=clock, league_settings=LEAGUE)
    app.ensure_started()
    return app


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(START)


@pytest.fixture
def app(
    tmp_path: Path, dovecot: DovecotServer, smtp_server: SmtpServer, clock: FakeClock
) -> Iterator[App]:
    app = make_app(imap_config(tmp_path, dovecot, smtp_server), clock)
    assert isinstance(app.source, ImapMailbox)
    yield app
    app.close()


# ---------------------------------------------------------------- players' mails


def player_mail(sender: str, subject: str, body: str, when: datetime = START) -> bytes:
    """A player's mail in the wire form (CRLF), as IMAP hands mail out."""
    return mails.player_mail(sender, body, to=f"Turnited <{BOT_ADDRESS}>", when=when,
                             subject=subject, crlf=True)


ANNA = "Anna Adler <anna@player.example>"
BERND = "Bernd Brook <bernd@player.example>"
CARLA = "Carla Cortes <carla@player.example>"
DORA = "Dora Dreher <dora@player.example>"


def first_mails() -> list[bytes]:
    """A German and an English registration with lineups, a registration
    without a lineup, and a German lineup in the labelled notation."""
    return [
        player_mail(ANNA, "Aufstellung", "Hallo,\n\nNeues Team: Rote Teufel / Teufel\n"
                    "Aufstellung: 10-10-15-15-20\n\nGruß Anna\n"),
        player_mail(BERND, "my lineup", "Hi,\n\nNew team: Blue Devils / Devils\n"
                    "Lineup: GK 10 SW 10 D 20 M 25 F 25\n\nRegards, Bernd\n"),
        player_mail(CARLA, "Anmeldung", "Neues Team: FC Cortes / Cortes\n"),
        player_mail(DORA, "Aufstellung", "Neues Team: Dreher 04\nT8 A9 V20 M25 S28\n"),
    ]


FIRST_MOVES = [
    ("Rote Teufel", "10-10-15-15-20"),
    ("Blue Devils", "10-10-20-25-25"),
    ("Dreher 04", "8-9-20-25-28"),
]


def quoted_reply(password: str, when: datetime) -> bytes:
    """Anna answers the bot's reply: new lineup on top, the old one quoted below."""
    return player_mail(
        ANNA, "Re: Aufstellung",
        f"Passwort: {password}\nRote Teufel: 5-5-20-20-30\n\nGruß Anna\n\n"
        "Am 01.12.2026 um 13:00 schrieb Turnited <bot@example.org>:\n"
        "> Aufstellung für „Rote Teufel“ gespeichert: 10-10-15-15-20\n"
        "> Rote Teufel: 10-10-15-15-20\n> Aufstellung: 9-9-9-9-9\n",
        when,
    )


# ---------------------------------------------------------------- checks


def message_id(raw: bytes) -> str:
    return str(email.message_from_bytes(raw, policy=policy.default)["Message-ID"])


def parse(raw: bytes) -> EmailMessage:
    return email.message_from_bytes(raw, policy=policy.default)  # type: ignore[return-value]


def moves(app: App) -> list[tuple[str, str]]:
    with app.db.read() as conn:
        return [
            (str(r[0]), str(r[1]))
            for r in conn.execute(
                "SELECT t.name, m.lineup FROM moves m JOIN teams t ON t.id = m.team_id"
                " ORDER BY m.id"
            )
        ]


def ledger(app: App) -> list[tuple]:
    with app.db.read() as conn:
        return conn.execute(
            "SELECT id, source, uidvalidity, uid, message_id, sha256, kind FROM inbound"
            " ORDER BY id"
        ).fetchall()


def replies(app: App) -> dict[int, list[bytes]]:
    """inbound id -> the raw replies queued for it (b'' once sent: the outbox
    keeps no delivered body, only its digest)."""
    out: dict[int, list[bytes]] = {}
    with app.db.read() as conn:
        for inbound_id, raw, state, digest in conn.execute(
            "SELECT inbound_id, raw, state, sha256 FROM outbox WHERE kind = 'reply' ORDER BY id"
        ):
            assert bool(raw) == (state != "sent") and len(digest) == 64
            out.setdefault(inbound_id, []).append(bytes(raw))
    return out


def assert_each_mail_once_with_one_threaded_reply(app: App, raws: Sequence[bytes]) -> None:
    """Every mail has exactly one ledger row (from IMAP, with its UID and the
    sha256 of its bytes) and exactly one reply queued, threaded under it."""
    rows = ledger(app)
    assert len(rows) == len(raws)
    by_sha = {row[5]: row for row in rows}
    queued = replies(app)
    assert sorted(queued) == sorted(row[0] for row in rows)
    for raw in raws:
        row = by_sha[hashlib.sha256(raw).hexdigest()]
        inbound_id, source, uidvalidity, uid, mid, _sha, kind = row
        assert (source, kind, mid) == ("imap", "human", message_id(raw))
        assert uidvalidity and uid
        [reply] = queued[inbound_id]
        if not reply:  # delivered: its threading was checked on the SMTP side
            continue
        head = parse(reply)
        assert str(head["In-Reply-To"]).strip() == mid
        assert str(head["References"]).split()[-1] == mid


def assert_mailbox_done(dovecot: DovecotServer, raws: Sequence[bytes]) -> None:
    """INBOX empty, every mail in Processed exactly once, byte for byte."""
    assert dovecot.list_folder("INBOX") == []
    assert sorted(dovecot.list_folder("Processed")) == sorted(raws)


def assert_sent_once_each(smtp: SmtpServer, raws: Sequence[bytes]) -> list[EmailMessage]:
    """The SMTP server got exactly one reply per mail, to its sender."""
    got = [parse(m.content) for m in smtp.messages()]
    parents = [str(m["In-Reply-To"]).strip() for m in got]
    assert sorted(parents) == sorted(message_id(raw) for raw in raws)
    for raw in raws:
        [reply] = [m for m in got if str(m["In-Reply-To"]).strip() == message_id(raw)]
        sender = parse(raw)["From"].addresses[0].addr_spec
        assert reply["To"].addresses[0].addr_spec == sender
    return got


def body(msg: EmailMessage) -> str:
    part = msg.get_body(("plain",))
    return part.get_content() if part else ""


def password_in(msg: EmailMessage) -> str:
    match = re.search(r"^\s*(?:Passwort|Password): (\S+)\s*$", body(msg), re.M)
    assert match, body(msg)
    return match.group(1)


# ---------------------------------------------------------------- the happy path


def test_players_mails_become_moves_replies_and_processed_mail(
    app: App, dovecot: DovecotServer, smtp_server: SmtpServer, clock: FakeClock
) -> None:
    raws = first_mails()
    dovecot.append_many(raws)  # over a real IMAP connection of its own
    report = app.poll_once()
    assert (report.processed, report.replies) == (4, 4)
    assert [r.kind for r in report.results] == ["human"] * 4
    assert moves(app) == FIRST_MOVES
    assert_each_mail_once_with_one_threaded_reply(app, raws)
    assert_mailbox_done(dovecot, raws)
    for raw in raws:  # archived byte for byte as IMAP handed it out
        assert read_spooled(app.config.state_dir / "spool",
                            f"2026-12/{hashlib.sha256(raw).hexdigest()}.eml.gz") == raw

    drained = app.drain_outbox()
    assert (drained.sent, drained.failed) == (4, [])
    sent = assert_sent_once_each(smtp_server, raws)
    by_parent = {str(m["In-Reply-To"]).strip(): m for m in sent}
    anna, bernd, carla, dora = (by_parent[message_id(raw)] for raw in raws)
    assert "Aufstellung für „Rote Teufel“ gespeichert: 10-10-15-15-20" in body(anna)
    assert str(anna["Content-Language"]) == "de"
    assert str(bernd["Content-Language"]) == "en" and "Blue Devils" in body(bernd)
    assert "noch keine Aufstellung" in body(carla)
    assert "8-9-20-25-28" in body(dora)

    # Anna answers the reply, quoting it: only her new lineup counts.
    clock.now += timedelta(hours=1)
    answer = quoted_reply(password_in(anna), clock.now)
    dovecot.append(answer)
    report = app.poll_once()
    assert report.processed == 1 and report.results[0].move.accepted
    assert moves(app) == [*FIRST_MOVES, ("Rote Teufel", "5-5-20-20-30")]
    assert_each_mail_once_with_one_threaded_reply(app, [*raws, answer])
    assert_mailbox_done(dovecot, [*raws, answer])
    app.drain_outbox()
    assert_sent_once_each(smtp_server, [*raws, answer])
    assert app.poll_once().results == ()  # nothing is read twice


# ---------------------------------------------------------------- crashes


class KillBeforeMark:
    """A source that pulls the server's plug just before the first MOVE:
    the batch is ingested and committed, the mails are still in INBOX."""

    def __init__(self, inner: ImapMailbox, server: DovecotServer) -> None:
        self.inner = inner
        self.server = server
        self.killed = False

    def fetch_new(
        self, limit: int | None = None, *, max_size: int | None = None
    ) -> list[IncomingMail]:
        return self.inner.fetch_new(limit, max_size=max_size)

    def quarantine(self, mail: IncomingMail) -> None:
        self.inner.quarantine(mail)

    def mark_processed(self, mail: IncomingMail) -> None:
        self.mark_processed_many([mail])

    def mark_processed_many(self, mails: list[IncomingMail]) -> None:
        if not self.killed:
            self.killed = True
            self.server.kill()
        self.inner.mark_processed_many(mails)

    def wait_for_mail(self, timeout: float) -> bool:
        return self.inner.wait_for_mail(timeout)

    def close(self) -> None:
        self.inner.close()


def test_server_killed_before_the_move_loses_and_doubles_nothing(
    app: App, dovecot: DovecotServer, smtp_server: SmtpServer
) -> None:
    raws = first_mails()
    dovecot.append_many(raws)
    assert isinstance(app.source, ImapMailbox)
    app.source = KillBeforeMark(app.source, dovecot)
    with pytest.raises(TransportError) as info:
        app.poll_once()
    assert info.value.retryable
    # the ingest committed: moves and replies are there, the mails are not moved
    assert moves(app) == FIRST_MOVES
    assert_each_mail_once_with_one_threaded_reply(app, raws)
    dovecot.start()
    assert sorted(dovecot.list_folder("INBOX")) == sorted(raws)

    report = app.poll_once()  # the same UIDs again: recognised, only moved
    assert len(report.results) == 4 and all(r.duplicate for r in report.results)
    assert (report.processed, report.replies) == (0, 0)
    assert moves(app) == FIRST_MOVES
    assert_each_mail_once_with_one_threaded_reply(app, raws)
    assert_mailbox_done(dovecot, raws)
    app.drain_outbox()
    assert_sent_once_each(smtp_server, raws)


#: FETCH commands per batch: the sizes first (RFC822.SIZE), then the bodies.
FETCHES_PER_BATCH = 2


class KillDuringFetch(ImapMailbox):
    """An ``ImapMailbox`` whose server dies when the n-th FETCH command is sent
    (after the SEARCH of that poll). With ``restart_after`` the server comes
    back during the mailbox's own reconnect back-off."""

    def __init__(self, config: Config, server: DovecotServer, *, at_fetch: int,
                 restart_in_backoff: bool) -> None:
        super().__init__(config.imap_settings(), backoff_base=0.05, sleep=self._pause)
        self.server = server
        self.at_fetch = at_fetch
        self.restart_in_backoff = restart_in_backoff
        self.fetches = 0
        self.pauses: list[float] = []

    def _pause(self, seconds: float) -> None:
        self.pauses.append(seconds)
        if self.restart_in_backoff and not self.server.running:
            self.server.start()
        time.sleep(seconds)

    def _connect(self):  # type: ignore[no-untyped-def]
        client = super()._connect()
        real_fetch = client.fetch

        def fetch(*args: object, **kwargs: object):  # type: ignore[no-untyped-def]
            self.fetches += 1
            if self.fetches == self.at_fetch:
                self.server.kill()
            return real_fetch(*args, **kwargs)

        client.fetch = fetch  # type: ignore[method-assign]
        return client


def five_mails() -> list[bytes]:
    emil = player_mail("Emil Eck <emil@player.example>", "Lineup",
                       "New team: Eck United\nLineup: 10/10/15/15/20\n")
    return [*first_mails(), emil]


def test_server_killed_during_a_fetch_loses_and_doubles_nothing(
    app: App, dovecot: DovecotServer, smtp_server: SmtpServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bot.app, "POLL_BATCH", 2)  # three batches: 2 + 2 + 1
    raws = five_mails()
    dovecot.append_many(raws)
    app.source.close()
    app.source = KillDuringFetch(app.config, dovecot, at_fetch=FETCHES_PER_BATCH + 1,
                                  restart_in_backoff=False)
    with pytest.raises(TransportError):
        app.poll_once()  # the first batch went through, the second FETCH died
    assert len(ledger(app)) == 2
    dovecot.start()
    assert len(dovecot.list_folder("Processed")) == 2
    assert len(dovecot.list_folder("INBOX")) == 3

    report = app.poll_once()
    assert (report.processed, report.replies) == (3, 3)
    assert not any(r.duplicate for r in report.results)
    assert moves(app) == [*FIRST_MOVES, ("Eck United", "10-10-15-15-20")]
    assert_each_mail_once_with_one_threaded_reply(app, raws)
    assert_mailbox_done(dovecot, raws)
    app.drain_outbox()
    assert_sent_once_each(smtp_server, raws)


def test_server_back_within_the_reconnect_backoff_is_invisible_to_the_poll(
    app: App, dovecot: DovecotServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bot.app, "POLL_BATCH", 2)
    raws = five_mails()
    dovecot.append_many(raws)
    app.source.close()
    source = KillDuringFetch(app.config, dovecot, at_fetch=FETCHES_PER_BATCH + 1,
                            restart_in_backoff=True)
    app.source = source
    report = app.poll_once()  # one call: the mailbox reconnected by itself
    assert source.pauses and dovecot.running
    assert (report.processed, report.replies) == (5, 5)
    assert_each_mail_once_with_one_threaded_reply(app, raws)
    assert_mailbox_done(dovecot, raws)


def test_bot_killed_half_way_through_a_batch_resumes_without_doubles(
    tmp_path: Path, dovecot: DovecotServer, smtp_server: SmtpServer, clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    config = imap_config(tmp_path, dovecot, smtp_server)
    raws = first_mails()
    dovecot.append_many(raws)
    first = make_app(config, clock)
    real_carry_out = inbound.carry_out
    done: list[str] = []

    def carry_out_then_die(*args, **kwargs):  # type: ignore[no-untyped-def]
        if len(done) == 2:  # inside the batch's transaction, after two mails' work
            raise KeyboardInterrupt("the bot process is killed")  # not an Exception
        done.append(kwargs["sender"])
        return real_carry_out(*args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(inbound, "carry_out", carry_out_then_die)
        with pytest.raises(KeyboardInterrupt):
            first.poll_once()
    first.close()
    assert len(done) == 2
    assert len(dovecot.list_folder("INBOX")) == len(raws)  # none marked processed

    second = make_app(config, clock)  # a new process over the same state
    try:
        # One transaction per batch: the killed batch left nothing half done.
        assert ledger(second) == [] and moves(second) == []
        report = second.poll_once()
        assert [r.duplicate for r in report.results] == [False, False, False, False]
        assert moves(second) == FIRST_MOVES
        assert_each_mail_once_with_one_threaded_reply(second, raws)
        assert_mailbox_done(dovecot, raws)
        second.drain_outbox()
        assert_sent_once_each(smtp_server, raws)
    finally:
        second.close()


# ---------------------------------------------------------------- IDLE


def test_idle_wakes_the_bot_soon_after_another_connection_appends(
    app: App, dovecot: DovecotServer
) -> None:
    assert app.poll_once().results == ()  # connected, nothing there
    raw = first_mails()[0]
    appended: list[float] = []

    def append() -> None:
        dovecot.append(raw)  # a connection of its own, as the MTA's delivery would be
        appended.append(time.monotonic())

    timer = threading.Timer(0.3, append)
    timer.start()
    try:
        assert app.wait_for_mail(15) is True
        woke = time.monotonic()
    finally:
        timer.join()
    assert appended and woke - appended[0] < 3.0
    report = app.poll_once()
    assert (report.processed, report.replies) == (1, 1)
    assert moves(app) == [FIRST_MOVES[0]]
    assert_mailbox_done(dovecot, [raw])
