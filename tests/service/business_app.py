"""The whole application over real files for the tests of the players' own
business by mail (RULES.md §12): the embedded Maildir transport, real
SQLite, real evaluations, newsletters and reminders; mail in through the
inbox, mail out read from the Maildir's ``sent`` folder."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from bot.app import App, build_app
from bot.config import Config
from bot.mail.maildir_transport import deliver, read_sent
from bot.wiring import league_settings
from tests.support.clock import FakeClock
from tests.support.mails import player_mail

START = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)  # a Tuesday
BOT = "turnited@game.example"
GM = "gm@game.example"
GAME = "Turnited Test"


class League:
    """An ``App`` on a Maildir, a fake clock, and the mails it sent."""

    def __init__(self, root: Path, extra: Mapping[str, Mapping[str, Any]] | None = None,
                 environ: Mapping[str, str] | None = None) -> None:
        """``extra``: more keys of a section (``{"gm": {"password_env": ...}}``),
        ``environ``: the environment the configuration reads."""
        self.root = root
        self.clock = FakeClock(START)
        sections: dict[str, Any] = {
            "game": {"name": GAME},
            "analysis": {"simulations": 0},
            "schedule": {"timezone": "Europe/Berlin", "deadlines": {"cron": "0 20 * * SUN"}},
            "gm": {"address": GM, "name": "Greta GM"},
            "mail": {"transport": "maildir", "address": BOT},
        }
        for name, values in (extra or {}).items():
            sections[name] = {**sections.get(name, {}), **values}
        config = Config.from_mapping({"state_dir": "state", **sections}, root, environ=environ)
        settings = dataclasses.replace(league_settings(config), password_cost=16)
        self.app = build_app(config, clock=self.clock, league_settings=settings)
        self.app.ensure_started()
        self.seen = 0  # sent mails already handed out by ``new_mail``

    @property
    def state(self) -> Path:
        return self.app.config.state_dir

    def send(self, sender: str, body: str, subject: str = "Aufstellung",
             to: str = BOT, **headers: str) -> list[EmailMessage]:
        """Deliver one mail, read the inbox, send the outbox; the mails sent."""
        deliver(self.app.config.maildir_root / "inbox",
                player_mail(sender, body, to=to, when=self.clock.now, subject=subject,
                            **headers))
        self.app.poll_once()
        return self.flush()

    def flush(self) -> list[EmailMessage]:
        """Drain the outbox as the worker does; the mails sent since the last call."""
        self.app.drain_outbox()
        return self.new_mail()

    def new_mail(self) -> list[EmailMessage]:
        every = sent(self.app)
        fresh, self.seen = every[self.seen:], len(every)
        return fresh

    def register(self, address: str, team: str, lineup: str, *, english: bool = False) -> str:
        """A new manager with one team; returns his password."""
        body = (f"Hello,\nNew team: {team}\nLineup: {lineup}\nCheers\n" if english
                else f"Hallo,\nNeues Team: {team}\nAufstellung: {lineup}\nGruß\n")
        (reply,) = self.send(address, body, "Sign-up" if english else "Anmeldung")
        found = re.search(r"^\s*(?:Passwort|Password): (\S+)\s*$", text_of(reply), re.M)
        assert found, text_of(reply)
        return found.group(1)

    def evaluate(self) -> list[EmailMessage]:
        """Past the deadline, evaluate, send: the mails sent."""
        self.clock.now = self.app.open_round_deadline() + timedelta(minutes=1)
        assert self.app.evaluate_due() is not None
        return self.flush()

    def remind(self, hours_before: int = 48) -> list[EmailMessage]:
        """The reminders ``hours_before`` the open round's deadline, sent."""
        self.clock.now = self.app.open_round_deadline() - timedelta(hours=hours_before)
        self.app.send_reminders(self.clock.now, hours_before)
        return self.flush()

    def sql(self, query: str, *args: object) -> list[tuple[object, ...]]:
        with self.app.db.read() as conn:
            return [tuple(row) for row in conn.execute(query, args)]


def sent(app: App) -> list[EmailMessage]:
    return [message_from_bytes(m.raw, _class=EmailMessage, policy=policy.default)
            for m in read_sent(app.config.maildir_root)]


def to(msg: EmailMessage) -> str:
    return msg["To"].addresses[0].addr_spec


def text_of(msg: EmailMessage) -> str:
    part = msg.get_body(("plain",))
    assert part is not None
    return part.get_content().replace("\r\n", "\n")


def flat(msg: EmailMessage) -> str:
    """The plain text with its lines joined (a sentence may be wrapped)."""
    return " ".join(text_of(msg).split())


def kind(msg: EmailMessage) -> str:
    """``reply``, ``newsletter``, ``reminder``, ``digest`` or ``notice`` (the Message-ID says)."""
    found = re.match(r"<turnited\.(\w+)\.", msg["Message-ID"].strip())
    assert found, msg["Message-ID"]
    return found.group(1)


def of_kind(mails: list[EmailMessage], wanted: str) -> dict[str, EmailMessage]:
    """The mails of one kind by recipient (one each)."""
    found: dict[str, EmailMessage] = {}
    for msg in mails:
        if kind(msg) == wanted:
            assert to(msg) not in found, f"two {wanted} mails to {to(msg)}"
            found[to(msg)] = msg
    return found
