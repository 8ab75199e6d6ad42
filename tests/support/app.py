"""The application over real files, as the tests of the app, the console and
the use cases drive it: a small game on the embedded Maildir (``make_app``),
a player's mail into it (``mail``), what it sent (``sent``, ``body_of``), the
same game's ``config.yaml`` for the command line (``write_config``), a field
of managers with lineups (``field``) and the rows an evaluation writes
(``state_rows``)."""

from __future__ import annotations

import email
import re
from datetime import UTC, datetime
from email import policy
from email.message import EmailMessage
from pathlib import Path

import yaml

from bot.app import App, build_app
from bot.config import Config
from bot.mail.maildir_transport import deliver, read_sent
from tests.support.clock import FakeClock
from tests.support.mails import player_mail

START = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)  # a Tuesday
BOT = "turnited@game.example"
GM = "gm@game.example"

#: The game of ``write_config``: the one ``make_app`` plays, with fewer Monte
#: Carlo runs.
CONFIG = {
    "state_dir": "state",
    "game": {"name": "Turnited Test"},
    "analysis": {"simulations": 200},
    "schedule": {"timezone": "Europe/Berlin", "deadlines": {"cron": "0 20 * * SUN"}},
    "gm": {"address": GM, "name": "Greta GM"},
    "mail": {"transport": "maildir", "address": BOT},
}


def make_app(tmp_path: Path, clock: FakeClock, **extra: object) -> App:
    """The App of a test game in ``tmp_path/state``, started (round 1 open)."""
    data = {**CONFIG, "analysis": {"simulations": 500}, **extra}
    config = Config.from_mapping(data, tmp_path)
    app = build_app(config, clock=clock)
    app.ensure_started()
    return app


def mail(sender: str, body: str, when: datetime, subject: str = "Aufstellung") -> bytes:
    """A player's mail to the bot (the shared builder)."""
    return player_mail(sender, body, to=BOT, when=when, subject=subject)


def sent(app: App) -> list[EmailMessage]:
    """Every mail the app delivered, oldest first."""
    return [
        email.message_from_bytes(m.raw, policy=policy.default)
        for m in read_sent(app.config.maildir_root)
    ]


def body_of(msg: EmailMessage) -> str:
    """The plain-text body of a mail ('' if it has none)."""
    part = msg.get_body(("plain",))
    return part.get_content() if part else ""


def write_config(tmp_path: Path, language: str = "de") -> Path:
    """The test game's ``config.yaml`` in ``tmp_path``, for the command line."""
    data = {**CONFIG, "game": {**CONFIG["game"], "language": language}}
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def field(app: App, clock: FakeClock, count: int = 5) -> dict[str, str]:
    """``count`` managers register a team each with a lineup; returns their passwords."""
    for i in range(count):
        deliver(app.config.maildir_root / "inbox", mail(
            f"Manager {i} <m{i}@player.example>",
            f"Neues Team: Team Nummer {i}\nAufstellung: {i % 3 + 1}-{i % 2 + 2}-{17 + i}-"
            f"{19 + i}-{23 + i}\n", clock.now))
    app.poll_once()
    passwords = {}
    with app.db.read() as conn:
        for row in conn.execute("SELECT raw FROM outbox WHERE kind = 'reply'"):
            msg = email.message_from_bytes(row[0], policy=policy.default)
            body = msg.get_body(("plain",)).get_content()
            found = re.search(r"Passwort: (\S+)", body)
            if found:
                passwords[msg["To"].addresses[0].addr_spec] = found.group(1)
    return passwords


def state_rows(app: App) -> dict[str, object]:
    """The rows an evaluation writes, to compare a state before and after."""
    with app.db.read() as conn:
        q = conn.execute
        return {
            "results": q("SELECT round, inputs, report, public_report FROM round_results"
                         " ORDER BY round").fetchall(),
            "entries": q("SELECT * FROM round_entries ORDER BY round, team_id").fetchall(),
            "wp": q("SELECT * FROM wp_history ORDER BY team_id, round, kind").fetchall(),
            "teams": q("SELECT id, wp, psz, deleted_round, last_played_round FROM teams"
                       " ORDER BY id").fetchall(),
        }
