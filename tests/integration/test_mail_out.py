"""Mail out end to end: the App reads registrations from its Maildir inbox,
evaluates a round and sends every reply, newsletter and notice through a
real SMTP server (``tests.servers.SmtpServer``) with ``SmtpSender``.

Checked on the wire: one envelope recipient per message and the same single
address in ``To:``, no other player's address and no player lineup in any
message, From/Subject/Date, unique and stable Message-IDs, ``Auto-Submitted``,
``List-Id`` and ``List-Unsubscribe`` on newsletters and reminders (the bot's
``Abmelden`` for managers, the game master for subscribers), none on
personal mail, a text and an HTML part that both
decode; a server crash in the middle of a drain (nothing lost, at most the
one message in flight twice); a permanent 550 (row ``failed``, notice to the
game master) and a temporary 451 (kept, backed off, delivered later).
"""

from __future__ import annotations

import dataclasses
import random
import string
from collections import Counter
from datetime import UTC, datetime, timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage
from email.utils import parsedate_to_datetime
from html import escape
from pathlib import Path

import pytest

from bot.app import App
from bot.config import Config
from bot.mail.compose import MailKind, make_message_id
from bot.mail.maildir_transport import MaildirInbox, deliver
from bot.mail.smtp_sender import SmtpSender, SmtpSettings
from bot.rules.corrections import correct
from bot.rules.lineup import Lineup
from bot.rules.wp import budget
from bot.wiring import league_settings
from tests.render.leaks import Scan, mail_texts
from tests.render.rounds import player_lineup, team_name
from tests.servers import ReceivedMessage, SmtpServer
from tests.support.clock import FakeClock
from tests.support.mails import player_mail

pytestmark = pytest.mark.servers

START = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)  # a Tuesday
BOT = "turnited@game.example"
GM = "gm@game.example"
SUBSCRIBER = "fan@subscribers.example"
GAME = "Turnited Test"


@dataclasses.dataclass(frozen=True)
class Player:
    address: str
    name: str
    team: str
    lineup: Lineup
    #: The lineup after the budget corrections (what is actually fielded).
    played: Lineup


def players(count: int, seed: int) -> list[Player]:
    rng = random.Random(seed)
    out = []
    for i in range(count):
        first = "".join(rng.choice(string.ascii_lowercase) for _ in range(6))
        lineup = player_lineup(rng)
        out.append(Player(
            address=f"{first}.{i:02d}@player{i % 7}.example",
            name=f"Spieler Nummer {i}",
            team=team_name(i),
            lineup=lineup,
            played=correct(lineup, budget(90)).lineup,
        ))
    return out


def make_app(tmp_path: Path, clock: FakeClock, server: SmtpServer, *extra: str) -> App:
    config = Config.from_mapping({
        "state_dir": "state",
        "game": {"name": GAME},
        "analysis": {"simulations": 200},
        "schedule": {"timezone": "Europe/Berlin", "deadlines": {"cron": "0 20 * * SUN"}},
        "gm": {"address": GM, "name": "Greta GM"},
        "mail": {"transport": "maildir", "address": BOT},
        "newsletter": {"extra_recipients": list(extra)},
    }, tmp_path)
    settings = dataclasses.replace(league_settings(config), password_cost=16)
    app = App(
        config,
        source=MaildirInbox(config.maildir_root),
        sender=SmtpSender(SmtpSettings(host=server.host, port=server.port, security="none",
                                       timeout=10)),
        clock=clock,
        league_settings=settings,
    )
    app.ensure_started()
    return app


def registration(player: Player, when: datetime) -> bytes:
    return player_mail(
        f"{player.name} <{player.address}>",
        f"Hallo,\nNeues Team: {player.team}\nAufstellung: {player.lineup}\n",
        to=BOT, when=when, subject="Anmeldung",
    )


def register_all(app: App, clock: FakeClock, field: list[Player]) -> None:
    inbox = app.config.maildir_root / "inbox"
    for player in field:
        deliver(inbox, registration(player, clock.now))
    report = app.poll_once()
    assert (report.processed, report.replies) == (len(field), len(field)), report.kinds


def pass_deadline(app: App, clock: FakeClock) -> None:
    clock.now = app.open_round_deadline() + timedelta(minutes=1)
    assert app.evaluate_due() == 1


def parse(message: ReceivedMessage) -> EmailMessage:
    return message_from_bytes(message.content, _class=EmailMessage, policy=policy.default)


def message_id_of(msg: EmailMessage) -> str:
    """The Message-ID without the folding white space a long id is written with."""
    return str(msg["Message-ID"]).strip()


def outbox_rows(app: App) -> list[dict]:
    with app.db.read() as conn:
        return [dict(r) for r in conn.execute("SELECT * FROM outbox ORDER BY id")]


def ids_received(server: SmtpServer) -> Counter[str]:
    return Counter(message_id_of(parse(m)) for m in server.messages())


# ---------------------------------------------------------------- one full round


def test_fifty_managers_one_round_every_message_on_the_wire(tmp_path, smtp_server) -> None:
    clock = FakeClock(START)
    field = players(50, seed=6)
    also_player = field[7].address.upper()  # a subscriber who is a player: one copy only
    app = make_app(tmp_path, clock, smtp_server, SUBSCRIBER, also_player)
    register_all(app, clock, field)
    times = [clock.now]
    first = app.drain_outbox()
    assert (first.sent, first.failed, first.stopped) == (50, [], None)
    pass_deadline(app, clock)
    times.append(clock.now)
    second = app.drain_outbox()
    assert (second.sent, second.failed, second.stopped) == (52, [], None)
    clock.now = app.open_round_deadline() - timedelta(hours=48)
    times.append(clock.now)
    assert app.send_reminders(clock.now, 48) == 50
    assert app.drain_outbox().sent == 50

    received = smtp_server.messages()
    rows = outbox_rows(app)
    kind_of = {r["message_id"]: r["kind"] for r in rows}
    by_address = {p.address: p for p in field}
    kinds: Counter[str] = Counter()
    for wire in received:
        msg = parse(wire)
        # one recipient: the envelope's and the To header's single address agree
        assert len(wire.rcpt_tos) == 1
        rcpt = wire.rcpt_tos[0]
        assert len(msg["To"].addresses) == 1
        assert msg["To"].addresses[0].addr_spec == rcpt
        assert "Cc" not in msg and "Bcc" not in msg
        assert wire.mail_from == BOT
        assert [a.addr_spec for a in msg["From"].addresses] == [BOT]
        assert msg["From"].addresses[0].display_name == GAME
        assert msg["Subject"].startswith((f"{GAME}: ", "Re: "))
        assert parsedate_to_datetime(msg["Date"]) in times
        message_id = message_id_of(msg)
        assert message_id.startswith("<turnited.") and message_id.endswith("@game.example>")
        # no other player's address anywhere, in raw bytes or decoded parts
        everything = "\n".join(mail_texts(wire.content)).lower()
        assert rcpt in everything  # the search does see addresses: the recipient's own
        leaked = [p.address for p in field if p.address != rcpt and p.address in everything]
        assert not leaked, f"mail to {rcpt} names {leaked}"
        # no player's lineup (a reply confirms the recipient's own lineup only)
        own = by_address.get(rcpt)
        shown = lineups_shown(wire.content, field)
        assert shown <= {own}, (
            f"mail to {rcpt} shows the lineups of {sorted(p.team for p in shown - {own})}")
        kind = kind_of[message_id]
        if kind == "reply":
            assert shown == {own}  # the scanner does see a lineup: the reply confirms it
        kinds[kind] += 1
        CHECKS[kind](msg, rcpt, own, {p.team for p in field})

    assert kinds == {"reply": 50, "newsletter": 51, "digest": 1, "reminder": 50}
    # every message once under its own Message-ID; the outbox agrees with the wire
    assert {r["state"] for r in rows} == {"sent"}
    assert Counter(r["message_id"] for r in rows) == ids_received(smtp_server)
    assert set(ids_received(smtp_server).values()) == {1}
    newsletters = [r["recipient"] for r in rows if r["kind"] == "newsletter"]
    assert sorted(newsletters) == sorted([p.address for p in field] + [SUBSCRIBER])
    # stable ids: publishing the round again queues nothing new
    app.publish(1)
    assert len(outbox_rows(app)) == len(rows)
    assert app.drain_outbox().sent == 0


def lineups_shown(content: bytes, field: list[Player]) -> set[Player | None]:
    """The players whose lineup (as sent or as played) occurs in the mail, in
    its raw bytes, decoded headers or any decoded part (``leaks.mail_texts``).
    The head and the body are scanned apart: the body of a newsletter is the
    same for every recipient and is scanned once."""
    head, _, body = content.partition(b"\r\n\r\n")
    headers = mail_texts(head + b"\r\n\r\n")
    return _shown("\n".join(headers), tuple(field)) | _body_shown(content, body, tuple(field))


def _body_shown(content: bytes, body: bytes, field: tuple[Player, ...]) -> set[Player | None]:
    key = (body, field)
    if key not in _BODY_SCANS:
        message = message_from_bytes(content, policy=policy.default)
        parts = [part.get_content() for part in message.walk()
                 if part.get_content_maintype() == "text"]
        _BODY_SCANS[key] = _shown("\n".join([body.decode("latin-1"), *parts]), field)
    return _BODY_SCANS[key]


_BODY_SCANS: dict[tuple[bytes, tuple[Player, ...]], set[Player | None]] = {}


def _shown(text: str, field: tuple[Player, ...]) -> set[Player | None]:
    scan = Scan(text)
    return {p for p in field if scan.hits(p.lineup) or scan.hits(p.played)}


def check_reply(msg: EmailMessage, rcpt: str, own: Player | None, teams: set[str]) -> None:
    assert own is not None, f"reply to a stranger {rcpt}"
    assert msg["Auto-Submitted"] == "auto-replied"
    assert msg["In-Reply-To"] and msg["Subject"] == "Re: Anmeldung"
    assert "List-Unsubscribe" not in msg and "Precedence" not in msg and "List-Id" not in msg
    assert own.team in msg.get_body(("plain",)).get_content()


def check_digest(msg: EmailMessage, rcpt: str, own: Player | None, teams: set[str]) -> None:
    assert rcpt == GM and msg["Auto-Submitted"] == "auto-generated"
    assert "Rundenbericht zu Runde" in msg["Subject"]
    assert msg.get_body(("plain",)).get_content().strip()


def check_newsletter(msg: EmailMessage, rcpt: str, own: Player | None, teams: set[str]) -> None:
    assert msg["Subject"] == f"{GAME}: Ergebnisse der Spielrunde 1 (Saison 1, Runde 1)"
    assert message_id_of(msg) == make_message_id(
        MailKind.NEWSLETTER, "newsletter/round-1", rcpt, "game.example")
    if own is None:  # a subscriber who does not play
        assert rcpt == SUBSCRIBER
        assert msg["List-Unsubscribe"].strip() == (
            f"<mailto:{GM}?subject=unsubscribe%20{SUBSCRIBER}>")
    else:  # a manager leaves the list with the bot's own command (RULES.md §12)
        assert msg["List-Unsubscribe"].strip() == f"<mailto:{BOT}?subject=Abmelden>"
    assert msg["List-Id"] == f'"{GAME}" <turnited.game.example>'
    text, html = bulk_parts(msg)
    assert "Endstand" in text and "Endstand" in html
    # every player team is named, in both parts
    assert all(team in text for team in teams)
    assert all(escape(team) in html for team in teams)


def check_reminder(msg: EmailMessage, rcpt: str, own: Player | None, teams: set[str]) -> None:
    assert own is not None
    assert msg["List-Unsubscribe"].strip() == f"<mailto:{BOT}?subject=Abmelden>"
    assert msg["List-Id"] == f'"{GAME}" <turnited.game.example>'
    assert msg["Subject"].startswith(f"{GAME}: Erinnerung an die Aufstellung")
    text, html = bulk_parts(msg, calendar=True)
    assert own.team in text and escape(own.team) in html


def bulk_parts(msg: EmailMessage, *, calendar: bool = False) -> tuple[str, str]:
    """A newsletter's or reminder's text and HTML part, both decoded; a
    reminder (``calendar``) carries the deadline as an ``.ics`` attachment."""
    assert msg["Auto-Submitted"] == "auto-generated"
    assert msg["Precedence"] == "bulk"
    body = msg
    if calendar:
        assert msg.get_content_type() == "multipart/mixed"
        body, ics = msg.iter_parts()
        assert ics.get_content_type() == "text/calendar" and ics.get_filename().endswith(".ics")
        assert b"BEGIN:VEVENT" in ics.get_content().encode()
    assert body.get_content_type() == "multipart/alternative"
    assert [p.get_content_type() for p in body.iter_parts()] == ["text/plain", "text/html"]
    text = msg.get_body(("plain",)).get_content()
    html = msg.get_body(("html",)).get_content()
    assert text.strip() and html.lstrip().lower().startswith("<!doctype html")
    return text, html


CHECKS = {
    "reply": check_reply,
    "digest": check_digest,
    "newsletter": check_newsletter,
    "reminder": check_reminder,
}


# ---------------------------------------------------------------- crash mid-drain


def test_server_crash_mid_drain_loses_nothing(tmp_path, smtp_server) -> None:
    clock = FakeClock(START)
    field = players(12, seed=7)
    app = make_app(tmp_path, clock, smtp_server, SUBSCRIBER)
    register_all(app, clock, field)
    in_flight = []  # the message the server had stored when it went down

    smtp_server.crash_after(5)  # the 5th reply is stored, its 250 never comes
    report = app.drain_outbox()
    smtp_server.wait_stopped()
    assert not smtp_server.running
    in_flight.append(message_id_of(parse(smtp_server.messages()[4])))
    assert report.sent == 4 and report.stopped and report.failed == []
    assert _states(app) == {"sent": 4, "queued": 8}

    # while the server is down nothing is lost and nothing is given up
    pass_deadline(app, clock)
    down = app.drain_outbox()
    assert down.sent == 0 and down.stopped and down.failed == []
    assert _states(app) == {"sent": 4, "queued": 8 + 13 + 1}

    smtp_server.start()
    before = len(smtp_server.messages())
    smtp_server.crash_after(12)  # and once more, in the middle of the newsletters
    app.drain_outbox()
    smtp_server.wait_stopped()
    in_flight.append(message_id_of(parse(smtp_server.messages()[before + 11])))
    assert "Ergebnisse" in parse(smtp_server.messages()[before + 11])["Subject"]
    smtp_server.start()
    final = app.drain_outbox()
    assert final.stopped is None and final.failed == []

    rows = outbox_rows(app)
    assert len(rows) == 12 + 13 + 1  # replies, newsletters (+ subscriber), digest
    assert _states(app) == {"sent": len(rows)}
    got = ids_received(smtp_server)
    assert set(got) == {r["message_id"] for r in rows}, "a message was lost"
    # duplicates: exactly the two messages in flight, each twice
    assert sorted(mid for mid, n in got.items() if n > 1) == sorted(in_flight)
    assert max(got.values()) == 2
    # no GM notice: a server that went away is not a recipient's permanent failure
    assert not [r for r in rows if r["kind"] == "notice"]


def _states(app: App) -> dict[str, int]:
    with app.db.read() as conn:
        return {r[0]: r[1] for r in conn.execute(
            "SELECT state, COUNT(*) FROM outbox GROUP BY state")}


# ---------------------------------------------------------------- 550 and 451


@pytest.fixture
def evaluated(tmp_path, smtp_server) -> tuple[App, FakeClock, list[Player]]:
    """Six managers registered and answered; round 1 evaluated, newsletters queued."""
    clock = FakeClock(START)
    field = players(6, seed=8)
    app = make_app(tmp_path, clock, smtp_server)
    register_all(app, clock, field)
    assert app.drain_outbox().sent == 6
    pass_deadline(app, clock)
    return app, clock, field


def newsletter_row(app: App, address: str) -> dict:
    (row,) = [r for r in outbox_rows(app)
              if r["kind"] == "newsletter" and r["recipient"] == address]
    return row


def test_permanent_refusal_fails_the_row_and_tells_the_game_master(
    evaluated, smtp_server
) -> None:
    app, _clock, field = evaluated
    gone = field[2].address
    smtp_server.fail("permanent", gone)
    report = app.drain_outbox()
    assert [r for r, _ in report.failed] == [gone] and "550" in report.failed[0][1]
    row = newsletter_row(app, gone)
    assert (row["state"], row["attempts"]) == ("failed", 1)
    assert "550" in row["last_error"]
    # the notice is queued at once and goes out with the next drain
    notices = [r for r in outbox_rows(app) if r["kind"] == "notice"]
    assert len(notices) == 1 and notices[0]["recipient"] == GM
    assert app.drain_outbox().sent == 1
    to_gm = [parse(m) for m in smtp_server.messages() if m.rcpt_tos == (GM,)]
    notice = [m for m in to_gm if "nicht zugestellt" in m["Subject"]]
    assert len(notice) == 1
    assert notice[0]["Auto-Submitted"] == "auto-generated"
    body = notice[0].get_body(("plain",)).get_content()
    assert gone in body and "550" in body
    # the failure is also in the digest (read from the outbox)
    assert any(gone in line for line in app.digest_stats(1)["failed_sends"])
    # every other manager got the newsletter, the refused one none; the GM got
    # the digest and the notice
    delivered = [m.rcpt_tos[0] for m in smtp_server.messages()[len(field):]]
    expected = [p.address for p in field if p.address != gone] + [GM, GM]
    assert sorted(delivered) == sorted(expected)


def test_temporary_refusal_is_retried_after_the_backoff(evaluated, smtp_server) -> None:
    app, clock, field = evaluated
    busy = field[4].address
    smtp_server.fail("temporary", busy)
    report = app.drain_outbox()
    assert report.failed == [] and report.retried == 1
    row = newsletter_row(app, busy)
    assert (row["state"], row["attempts"]) == ("queued", 1)
    assert "451" in row["last_error"]
    retry_at = datetime.fromisoformat(row["next_attempt_at"])
    assert retry_at == clock.now + timedelta(seconds=60)
    assert not [r for r in outbox_rows(app) if r["kind"] == "notice"]

    smtp_server.heal()
    clock.now = retry_at - timedelta(seconds=1)  # not due yet: nothing is sent
    assert app.drain_outbox().sent == 0
    assert busy not in [m.rcpt_tos[0] for m in smtp_server.messages()[6:]]
    clock.now = retry_at + timedelta(seconds=1)
    assert app.drain_outbox().sent == 1
    row = newsletter_row(app, busy)
    assert (row["state"], row["attempts"]) == ("sent", 2)
    copies = [parse(m) for m in smtp_server.messages() if m.rcpt_tos == (busy,)]
    newsletter = [m for m in copies if "Ergebnisse" in m["Subject"]]
    assert len(newsletter) == 1
    assert message_id_of(newsletter[0]) == row["message_id"]
