"""The harness of the worker's end-to-end tests.

A ``Game`` is a game directory with an ``imap`` configuration against a
private Dovecot (the bot's mailbox and every player's) and a recording SMTP
server on loopback. The worker is the real program: ``python -m bot --config
CFG run --log-format json`` in its own process group, so a test can send it
SIGTERM or pull the plug with SIGKILL. Players write by APPENDing mails to
the bot's INBOX over IMAP; what the bot sends is read at the SMTP server (and,
with ``forward=True``, also from the players' own IMAP mailboxes). The state
is only ever read, through a read-only SQLite connection.

Everything waits for conditions (``wait_until``) rather than sleeping, so
the tests hold on a loaded two-core machine.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from email import message_from_bytes, policy
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from pathlib import Path
from typing import Any, TypeVar
from zoneinfo import ZoneInfo

import pytest
import yaml

from bot.storage.db import DATABASE_FILE
from tests.servers import BOT_ADDRESS, DovecotServer, ServerMissingError, SmtpServer

T = TypeVar("T")

ZONE_NAME = "Europe/Berlin"
ZONE = ZoneInfo(ZONE_NAME)
BOT = BOT_ADDRESS
GM = "gm@example.org"
IMAP_ENV = "TURNITED_E2E_IMAP_PASSWORD"
SMTP_ENV = "TURNITED_E2E_SMTP_PASSWORD"
SMTP_LOGIN = "turnited-bot"
SMTP_PASSWORD = "smtp-secret-e2e-4711"
#: Generous, for a loaded two-core machine; a healthy run needs a fraction.
TIMEOUT = 60.0
REPO = Path(__file__).resolve().parents[2]
PASSWORD_LINE = re.compile(r"^\s*(?:Passwort|Password): (\S+)\s*$", re.M)


# ---------------------------------------------------------------- waiting


def wait_until(
    condition: Callable[[], T],
    what: str,
    *,
    timeout: float = TIMEOUT,
    interval: float = 0.1,
    context: Callable[[], str] | None = None,
) -> T:
    """Poll ``condition`` until it returns something true and return that;
    fail naming ``what`` (and ``context()``, e.g. the worker's log) after
    ``timeout`` seconds."""
    end = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > end:
            extra = f"\n{context()}" if context else ""
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}{extra}")
        time.sleep(interval)


def local_text(moment: datetime) -> str:
    """``moment`` as the configuration and ``turnited deadline set`` take it:
    wall-clock time in the game's zone (with the offset only when that
    wall-clock time is ambiguous, i.e. in the hour the clocks go back)."""
    local = moment.astimezone(ZONE)
    naive = local.replace(tzinfo=None)
    other = naive.replace(tzinfo=ZONE, fold=1 - local.fold)
    if other.utcoffset() != local.utcoffset():
        return local.isoformat(sep=" ", timespec="seconds")
    return naive.isoformat(sep=" ", timespec="seconds")


def whole_seconds(moment: datetime) -> datetime:
    return moment.replace(microsecond=0)


# ---------------------------------------------------------------- mail


def player(number: int) -> str:
    return f"player{number:02d}@example.org"


def team_name(address: str) -> str:
    return "FC " + address.split("@")[0].capitalize()


def compose_mail(sender: str, subject: str, body: str, *, name: str | None = None) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = f"{name or sender.split('@')[0].capitalize()} <{sender}>"
    msg["To"] = f"Turnited <{BOT}>"
    msg["Subject"] = subject
    msg["Date"] = format_datetime(datetime.now(UTC))
    msg["Message-ID"] = make_msgid(domain="players.example.org")
    msg.set_content(body)
    return msg


@dataclass(frozen=True)
class Sent:
    """One message as the SMTP server received it."""

    message_id: str
    kind: str  # reply, newsletter, reminder, digest, notice (from the Message-ID)
    rcpt: str
    subject: str
    in_reply_to: str | None
    message: EmailMessage

    @property
    def text(self) -> str:
        part = self.message.get_body(("plain",))
        return part.get_content() if part is not None else ""

    @property
    def password(self) -> str | None:
        match = PASSWORD_LINE.search(self.text)
        return match.group(1) if match else None


_KIND = re.compile(r"^<turnited\.([a-z]+)\.")


def parse_sent(content: bytes, rcpt: str) -> Sent:
    message = message_from_bytes(content, policy=policy.default)
    message_id = str(message["Message-ID"]).strip()
    match = _KIND.match(message_id)
    return Sent(
        message_id=message_id,
        kind=match.group(1) if match else "?",
        rcpt=rcpt.lower(),
        subject=str(message["Subject"]),
        in_reply_to=str(message["In-Reply-To"]).strip() if message["In-Reply-To"] else None,
        message=message,  # type: ignore[arg-type]
    )


class _SlowHandler:
    """Wraps the recording handler: the reply to DATA comes ``delay``
    seconds after the message was stored, as on a slow, distant server."""

    def __init__(self, inner: Any, delay: float) -> None:
        self.inner = inner
        self.delay = delay

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        return await self.inner.handle_RCPT(server, session, envelope, address, rcpt_options)

    async def handle_DATA(self, server, session, envelope):
        reply = await self.inner.handle_DATA(server, session, envelope)
        if self.delay:
            await asyncio.sleep(self.delay)
        return reply


class RecordingSmtp(SmtpServer):
    """The test SMTP server with a settable answer delay (``delay`` seconds
    between storing a message and the 250 reply)."""

    def __init__(self, *, delay: float = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.delay = delay

    def start(self) -> None:
        super().start()
        controller = self._controller
        assert controller is not None
        # Every new SMTP session is built from controller.handler.
        controller.handler = _SlowHandler(controller.handler, self.delay)

    def set_delay(self, delay: float) -> None:
        self.delay = delay
        if self._controller is not None:
            self._controller.handler.delay = delay

    def sent(self) -> list[Sent]:
        """Every received copy (one per recipient), in arrival order."""
        return [parse_sent(m.content, rcpt) for m in self.messages() for rcpt in m.rcpt_tos]

    def sent_of(self, kind: str) -> list[Sent]:
        return [s for s in self.sent() if s.kind == kind]


def duplicates(sent: Sequence[Sent]) -> dict[str, int]:
    """Message-IDs that arrived more than once -> extra copies."""
    return {mid: n - 1 for mid, n in Counter(s.message_id for s in sent).items() if n > 1}


# ---------------------------------------------------------------- the worker


class WorkerProcess:
    """``python -m bot --config CFG run --log-format json`` in its own
    process group, its log in a file."""

    def __init__(self, game: Game, log_path: Path) -> None:
        self.game = game
        self.log_path = log_path
        with open(log_path, "wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "bot", "--config", str(game.config_path), "run",
                 "--log-format", "json"],
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                cwd=game.dir, env=game.env(), start_new_session=True,
            )

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def log_text(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def log_tail(self, lines: int = 40) -> str:
        return f"--- {self.log_path.name} ---\n" + "\n".join(self.log_text().splitlines()[-lines:])

    def events(self, name: str | None = None) -> list[dict[str, Any]]:
        found = []
        for line in self.log_text().splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict) and (name is None or record.get("event") == name):
                found.append(record)
        return found

    def wait_event(
        self, name: str, *, count: int = 1, timeout: float = TIMEOUT,
        where: Callable[[dict[str, Any]], bool] = lambda _e: True,
    ) -> list[dict[str, Any]]:
        def seen() -> list[dict[str, Any]]:
            if not self.alive():
                raise AssertionError(
                    f"the worker exited ({self.proc.returncode}) while waiting for "
                    f"{name!r}\n{self.log_tail()}"
                )
            hits = [e for e in self.events(name) if where(e)]
            return hits if len(hits) >= count else []

        return wait_until(seen, f"{count} log event(s) {name!r}", timeout=timeout,
                          interval=0.05, context=self.log_tail)

    def kill9(self) -> None:
        """Pull the plug: SIGKILL to the whole process group."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)

    def terminate(self, timeout: float = TIMEOUT) -> int:
        """SIGTERM to the process group; the exit status."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill9()
            raise AssertionError(
                f"the worker did not stop on SIGTERM\n{self.log_tail()}") from None


# ---------------------------------------------------------------- the game


class Game:
    """One game directory, its servers and its worker processes."""

    def __init__(self, base: Path, dovecot: DovecotServer, smtp: RecordingSmtp) -> None:
        self.dir = base / "game"
        self.dir.mkdir()
        self.config_path = self.dir / "config.yaml"
        self.state = self.dir / "state"
        self.dovecot = dovecot
        self.smtp = smtp
        self.workers: list[WorkerProcess] = []

    # -- configuration

    def configure(
        self,
        deadlines: Sequence[datetime],
        *,
        hours_before: Sequence[int] = (),
        simulations: int = 0,
        rate_per_minute: int | None = None,
        language: str = "de",
    ) -> dict[str, Any]:
        """Write ``config.yaml``: explicit local deadlines, the IMAP and SMTP
        servers with their passwords in environment variables."""
        data: dict[str, Any] = {
            "game": {"name": "Turnited E2E", "language": language},
            "analysis": {"simulations": simulations},
            "state_dir": "state",
            "schedule": {
                "timezone": ZONE_NAME,
                "deadlines": [local_text(d) for d in deadlines],
            },
            "reminders": {"hours_before": list(hours_before)},
            "gm": {"address": GM, "name": "Greta Spielleitung"},
            "mail": {
                "transport": "imap",
                "address": BOT,
                "imap": {
                    "host": self.dovecot.host,
                    "port": self.dovecot.imap_port,
                    "security": "none",
                    "username": BOT,
                    "password_env": IMAP_ENV,
                    "folder": "INBOX",
                    "processed_folder": "Processed",
                    "idle": True,
                    "poll_seconds": 5,
                },
                "smtp": {
                    "host": self.smtp.host,
                    "port": self.smtp.port,
                    "security": "none",
                    "username": SMTP_LOGIN,
                    "password_env": SMTP_ENV,
                    "rate_per_minute": rate_per_minute,
                },
            },
        }
        self.config_path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
        return data

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env[IMAP_ENV] = self.dovecot.password(BOT)
        env[SMTP_ENV] = SMTP_PASSWORD
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
        return env

    def secrets(self) -> tuple[str, str]:
        return self.dovecot.password(BOT), SMTP_PASSWORD

    # -- processes

    def start_worker(self) -> WorkerProcess:
        worker = WorkerProcess(self, self.dir / f"worker-{len(self.workers) + 1}.log")
        self.workers.append(worker)
        return worker

    def cli(self, *argv: str, timeout: float = TIMEOUT) -> subprocess.CompletedProcess[str]:
        """``python -m bot --config CFG ARGV...`` (another process, as a GM would)."""
        return subprocess.run(
            [sys.executable, "-m", "bot", "--config", str(self.config_path), *argv],
            capture_output=True, text=True, timeout=timeout, cwd=self.dir, env=self.env(),
            stdin=subprocess.DEVNULL,
        )

    def logs(self) -> str:
        return "\n".join(w.log_tail() for w in self.workers)

    def reply_to(self, message_id: str, timeout: float = TIMEOUT) -> Sent:
        """Wait for the bot's answer to the player's mail ``message_id``."""
        found = wait_until(
            lambda: [r for r in self.smtp.sent_of("reply") if r.in_reply_to == message_id],
            f"the answer to {message_id}", timeout=timeout, context=self.logs)
        return found[0]

    def outbox_empty(self) -> bool:
        return self.scalar("SELECT count(*) FROM outbox WHERE state <> 'sent'") == 0

    def events_of_all(self, name: str) -> list[dict[str, Any]]:
        """The log events ``name`` of every worker started so far."""
        return [e for w in self.workers for e in w.events(name)]

    def kill_all(self) -> None:
        for worker in self.workers:
            if worker.alive():
                worker.kill9()

    # -- players

    def send(self, sender: str, subject: str, body: str, *, name: str | None = None) -> str:
        """A player's mail APPENDed to the bot's INBOX; returns its Message-ID."""
        msg = compose_mail(sender, subject, body, name=name)
        self.dovecot.append(msg.as_bytes(policy=policy.SMTP))
        return str(msg["Message-ID"])

    def send_many(self, mails: Sequence[tuple[str, str, str]]) -> list[str]:
        msgs = [compose_mail(s, subject, body) for s, subject, body in mails]
        self.dovecot.append_many([m.as_bytes(policy=policy.SMTP) for m in msgs])
        return [str(m["Message-ID"]) for m in msgs]

    # -- the state, read only

    @contextlib.contextmanager
    def db(self) -> Iterator[sqlite3.Connection]:
        path = self.state / DATABASE_FILE
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
        conn.row_factory = sqlite3.Row
        try:
            yield conn
        finally:
            conn.close()

    def query(self, sql: str, *params: Any) -> list[sqlite3.Row]:
        if not (self.state / DATABASE_FILE).exists():
            return []
        with self.db() as conn:
            return conn.execute(sql, params).fetchall()

    def scalar(self, sql: str, *params: Any) -> Any:
        rows = self.query(sql, *params)
        return rows[0][0] if rows else None

    def rounds(self) -> list[tuple[int, str]]:
        return [(r["number"], r["state"]) for r in
                self.query("SELECT number, state FROM rounds ORDER BY number")]

    def round_deadline(self, number: int) -> datetime | None:
        text = self.scalar("SELECT deadline FROM rounds WHERE number = ?", number)
        return datetime.fromisoformat(text) if text else None

    def latest_lineups(self, round_number: int) -> dict[str, str]:
        """Team name -> the lineup of its latest move for ``round_number``."""
        rows = self.query(
            "SELECT t.name, m.lineup FROM moves m JOIN teams t ON t.id = m.team_id"
            " WHERE m.round = ? AND m.id = (SELECT max(id) FROM moves x"
            " WHERE x.team_id = m.team_id AND x.round = m.round)", round_number)
        return {r["name"]: r["lineup"] for r in rows}


@pytest.fixture
def game(tmp_path: Path) -> Iterator[Game]:
    """Dovecot (bot, game master and 40 players), the recording SMTP server
    with password login, and a game directory; every worker is killed at the end."""
    users = {BOT: "bot-imap-secret-e2e", GM: "gm-secret"}
    users.update({player(i): f"secret-{i}" for i in range(1, 41)})
    try:
        dovecot = DovecotServer(users, name="e2e")
    except ServerMissingError as exc:
        pytest.fail(str(exc), pytrace=False)
    smtp = RecordingSmtp(users={SMTP_LOGIN: SMTP_PASSWORD})
    the_game: Game | None = None
    try:
        dovecot.start()
        smtp.start()
        the_game = Game(tmp_path, dovecot, smtp)
        yield the_game
    finally:
        if the_game is not None:
            the_game.kill_all()
        smtp.wait_stopped()
        smtp.stop()
        dovecot.remove()
