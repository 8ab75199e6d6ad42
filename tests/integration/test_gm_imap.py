"""The game master by mail against a REAL Dovecot and a real SMTP server
(RULES.md §13): his mails are APPENDed over IMAP like any player's, the
``App`` built from an ``imap`` configuration with ``gm.password_env`` and
the receiving server's ``authserv_id`` polls, applies and answers over SMTP.
A command of his is answered once, to ``gm.address`` only; a mail with the
right password that the receiving server did not confirm changes nothing
and is told to ``gm.address`` only, never to its sender."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

import pytest

from bot.app import App, build_app
from bot.config import Config
from bot.league.settings import LeagueSettings
from tests.servers import BOT_ADDRESS, DovecotServer, SmtpServer
from tests.support import mails
from tests.support.clock import FakeClock

pytestmark = pytest.mark.servers

START = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
GM = "gm@example.org"
ANNA = "anna@player.example"
AUTHSERV = "mx.turnited.example"
GM_PASSWORD = "Grün-und-geheim-42"
PASSED = f"{AUTHSERV}; dkim=pass header.d=example.org; dmarc=pass header.from=example.org"
FAILED = f"{AUTHSERV}; dmarc=fail header.from=example.org"


@pytest.fixture
def app(tmp_path: Path, dovecot: DovecotServer, smtp_server: SmtpServer) -> Iterator[App]:
    config = Config.from_mapping({
        "state_dir": "state",
        "game": {"name": "Turnited IMAP"},
        "schedule": {"timezone": "Europe/Berlin", "deadlines": {"cron": "0 20 * * SUN"}},
        "gm": {"address": GM, "name": "Greta GM", "password_env": "TURNITED_GM_PASSWORD"},
        "mail": {
            "transport": "imap", "address": BOT_ADDRESS,
            "trust": {"authserv_id": AUTHSERV},
            "imap": {"host": dovecot.host, "port": dovecot.imap_port, "security": "none",
                     "username": BOT_ADDRESS, "password": dovecot.password(BOT_ADDRESS),
                     "processed_folder": "Processed"},
            "smtp": {"host": smtp_server.host, "port": smtp_server.port, "security": "none",
                     "rate_per_minute": 10_000},
        },
    }, tmp_path, environ={"TURNITED_GM_PASSWORD": GM_PASSWORD})
    app = build_app(config, clock=FakeClock(START),
                    league_settings=LeagueSettings(password_cost=2**4, simulations=0))
    app.ensure_started()
    yield app
    app.close()


def mail(sender: str, body: str, verdict: str) -> bytes:
    return mails.player_mail(sender, body, to=f"Turnited <{BOT_ADDRESS}>", when=START,
                             subject="Spielleitung", crlf=True, Authentication_Results=verdict)


def sent(smtp: SmtpServer) -> list[tuple[tuple[str, ...], EmailMessage]]:
    return [(m.rcpt_tos, message_from_bytes(m.content, _class=EmailMessage,
                                            policy=policy.default))
            for m in smtp.messages()]


def text(msg: EmailMessage) -> str:
    part = msg.get_body(("plain",))
    assert part is not None
    return " ".join(part.get_content().split())


def test_a_gm_command_is_answered_to_him_and_a_forged_one_refused(
        app: App, dovecot: DovecotServer, smtp_server: SmtpServer) -> None:
    dovecot.append(mails.player_mail(ANNA, "Neues Team: Rote Teufel\nAufstellung: "
                                     "10-10-15-15-20", to=BOT_ADDRESS, when=START, crlf=True))
    app.poll_once()
    app.drain_outbox()
    before = len(smtp_server.messages())
    dovecot.append(mail(GM, f"GM-Passwort: {GM_PASSWORD}\nFehlend\nStatus", PASSED))
    assert app.poll_once().processed == 1
    assert app.drain_outbox().sent == 1
    ((rcpt, reply),) = sent(smtp_server)[before:]
    assert rcpt == (GM,) and "Wer fehlt:" in text(reply) and "Wo das Spiel steht:" in text(reply)
    assert GM_PASSWORD not in text(reply)

    # The right password, but the receiving server did not confirm the sender.
    with app.db.read() as conn:
        managers = conn.execute("SELECT address, banned_at FROM managers").fetchall()
    dovecot.append(mail(GM, f"GM-Passwort: {GM_PASSWORD}\nSperren: {ANNA}", FAILED))
    dovecot.append(mail(ANNA, f"GM-Passwort: {GM_PASSWORD}\nFehlend", PASSED))
    assert app.poll_once().processed == 2
    app.drain_outbox()
    told = sent(smtp_server)[before + 1:]
    assert [rcpt for rcpt, _ in told] == [(GM,), (GM,)]  # never to the sender
    assert all("Wer fehlt" not in text(m) and "Bestätigen:" not in text(m) for _, m in told)
    assert "Empfangsserver hat nicht bestätigt" in text(told[0][1])
    with app.db.read() as conn:
        assert conn.execute("SELECT address, banned_at FROM managers").fetchall() == managers
        assert conn.execute("SELECT COUNT(*) FROM confirmations").fetchone()[0] == 0
