"""Mail in, end to end: spool, dedupe, read, classify, apply, reply — once per mail.

``Ingestor.ingest`` handles one ``IncomingMail``:

1. the raw bytes are archived in the spool (before anything parses them);
2. the ledger (``inbound``) is asked whether this mail was handled already
   (same IMAP UIDVALIDITY+UID, or the very same bytes) — then nothing happens
   again and the caller may simply mark it processed;
3. the mail is read and classified; bounces are recorded against their
   manager, auto-replies and the bot's own mail are only ledgered;
4. a human's mail is checked against the limits, parsed, applied by the
   league, and its one reply rendered and queued in the outbox — the ledger
   row, the state change and the reply in ONE transaction;
5. if anything unexpected fails, the transaction is rolled back and the mail
   is ledgered as a dead letter with an "internal error" reply, so no mail
   is lost, none is applied twice, and the worker never crashes on input.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from bot.league.outcome import MoveOutcome
from bot.league.service import League
from bot.mail import outbox
from bot.mail.classify import Classification, classify
from bot.mail.compose import MailKind, compose, is_message_id
from bot.mail.grammar import parse_moves
from bot.mail.reading import InboundMail, read_message
from bot.mail.spool import SpooledMail, spool
from bot.mail.transport import IncomingMail
from bot.render.environment import Environments
from bot.render.model import RenderedMail
from bot.render.reply import Problem, render_problem, render_reply
from bot.storage.db import Database
from bot.storage.values import time_to_db

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class IngestSettings:
    """What the pipeline needs to know (built from the configuration)."""

    bot_address: str
    spool_dir: Path
    from_name: str = "Turnited"
    own_addresses: frozenset[str] = frozenset()
    timezone: str = "Europe/Berlin"
    game_name: str = "Turnited"
    language: str = "de"
    max_text_bytes: int = 512 * 1024
    max_command_lines: int = 60
    max_mails_per_hour: int = 20

    @property
    def all_own_addresses(self) -> frozenset[str]:
        return frozenset({self.bot_address.lower(), *(a.lower() for a in self.own_addresses)})


@dataclass(frozen=True, slots=True)
class IngestResult:
    """What happened to one mail (also written to the ledger)."""

    inbound_id: int | None
    kind: str
    outcome: str
    duplicate: bool = False
    replied: bool = False
    sender: str | None = None
    move: MoveOutcome | None = field(default=None, repr=False)


def source_kind(source: str) -> str:
    """The ledger's source column: ``imap`` or ``maildir`` (or ``cli``)."""
    for kind in ("imap", "maildir", "cli"):
        if source.startswith(kind):
            return kind
    return "cli"


class Ingestor:
    """Turns incoming mails into league moves and replies (see module doc)."""

    def __init__(
        self,
        db: Database,
        league: League,
        settings: IngestSettings,
        *,
        clock: Callable[[], datetime],
    ) -> None:
        self.db = db
        self.league = league
        self.settings = settings
        self.clock = clock
        self.environments = Environments()

    # -- public ----------------------------------------------------------------

    def ingest(self, mail: IncomingMail) -> IngestResult:
        """Handle one mail exactly once; never raises for anything in the mail."""
        now = self.clock()
        spooled = spool(self.settings.spool_dir, mail.raw, now)
        known = self._known(mail, spooled)
        if known is not None:
            return IngestResult(known, "duplicate", "already processed", duplicate=True)
        parsed = read_message(mail.raw)
        verdict = classify(parsed, self.settings.all_own_addresses)
        try:
            with self.db.transaction() as conn:
                return self._apply(conn, mail, spooled, parsed, verdict, now)
        except Exception as exc:  # a bug or a broken database must not lose the mail
            log.exception("ingest failed for %r; recording it as a dead letter", mail)
            return self._dead_letter(mail, spooled, parsed, verdict, now, exc)

    # -- steps -----------------------------------------------------------------

    def _known(self, mail: IncomingMail, spooled: SpooledMail) -> int | None:
        with self.db.read() as conn:
            if mail.uid is not None:
                row = conn.execute(
                    "SELECT id FROM inbound WHERE source = ? AND uidvalidity IS ? AND uid = ?",
                    (source_kind(mail.source), mail.uidvalidity, mail.uid),
                ).fetchone()
                if row:
                    return int(row[0])
            row = conn.execute(
                "SELECT id FROM inbound WHERE sha256 = ? ORDER BY id LIMIT 1", (spooled.sha256,)
            ).fetchone()
            return int(row[0]) if row else None

    def _ledger(
        self,
        conn: sqlite3.Connection,
        mail: IncomingMail,
        spooled: SpooledMail,
        parsed: InboundMail,
        kind: str,
        now: datetime,
    ) -> int:
        cur = conn.execute(
            "INSERT INTO inbound (source, uidvalidity, uid, message_id, sha256, spool_path,"
            " received_at, sender, subject, kind) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                source_kind(mail.source), mail.uidvalidity, mail.uid, parsed.message_id,
                spooled.sha256, spooled.relative_path, time_to_db(now), parsed.sender,
                parsed.subject[:500], kind,
            ),
        )
        return int(cur.lastrowid)  # type: ignore[arg-type]

    def _apply(
        self,
        conn: sqlite3.Connection,
        mail: IncomingMail,
        spooled: SpooledMail,
        parsed: InboundMail,
        verdict: Classification,
        now: datetime,
    ) -> IngestResult:
        inbound_id = self._ledger(conn, mail, spooled, parsed, verdict.kind, now)
        if verdict.kind == "bounce":
            for address in verdict.bounced_recipients:
                self.league.record_bounce(conn, address, inbound_id, verdict.reason, now=now)
            summary = f"bounce ({verdict.reason}): " + (
                ", ".join(verdict.bounced_recipients) or "recipient unknown"
            )
            return self._finish(conn, inbound_id, verdict.kind, summary, parsed)
        if not verdict.answerable or not parsed.sender:
            return self._finish(
                conn, inbound_id, verdict.kind, f"no reply: {verdict.reason}", parsed
            )
        # A mail that arrived before a deadline is in time, even when it is
        # read only afterwards (the deadline job reads the inbox first).
        arrived = min(now, mail.arrived) if mail.arrived is not None else now
        return self._human(conn, inbound_id, parsed, spooled, now, arrived)

    def _human(
        self,
        conn: sqlite3.Connection,
        inbound_id: int,
        parsed: InboundMail,
        spooled: SpooledMail,
        now: datetime,
        arrived: datetime,
    ) -> IngestResult:
        s = self.settings
        assert parsed.sender is not None
        recent = conn.execute(
            "SELECT outcome FROM inbound WHERE sender = ? AND kind = 'human' AND id <> ?"
            " AND received_at > ?",
            (parsed.sender, inbound_id, time_to_db(now - timedelta(hours=1))),
        ).fetchall()
        if len(recent) >= s.max_mails_per_hour:
            if any((r[0] or "").startswith("slow_down") for r in recent):
                return self._finish(
                    conn, inbound_id, "human", "rate_limited: no reply (told already)", parsed
                )
            return self._problem(conn, inbound_id, parsed, spooled, now, "slow_down",
                                 s.max_mails_per_hour)
        if len(parsed.text.encode("utf-8", "replace")) > s.max_text_bytes:
            return self._problem(conn, inbound_id, parsed, spooled, now, "too_large",
                                 s.max_text_bytes)
        if parsed.unreadable:
            return self._problem(conn, inbound_id, parsed, spooled, now, "unreadable", None)
        moves = parse_moves(parsed.subject, parsed.fresh_text)
        if len(moves.requests) + len(moves.errors) > s.max_command_lines:
            return self._problem(conn, inbound_id, parsed, spooled, now, "too_many_lines",
                                 s.max_command_lines, language=moves.language)
        outcome = self.league.submit(
            conn,
            sender=parsed.sender,
            sender_name=parsed.sender_name or None,
            moves=moves,
            now=arrived,
            inbound_id=inbound_id,
            message_id=parsed.message_id,
        )
        rendered = render_reply(
            outcome,
            subject=parsed.subject,
            now=now,
            timezone=s.timezone,
            game_name=s.game_name,
            game_address=s.bot_address,
            env=self.environments.get(outcome.language),
        )
        self._queue_reply(conn, inbound_id, parsed, spooled, rendered, now)
        manager_id = None
        if outcome.manager is not None:
            manager_id = conn.execute(
                "SELECT id FROM managers WHERE address = ?", (outcome.manager.address,)
            ).fetchone()
        conn.execute(
            "UPDATE inbound SET round = ?, manager_id = ? WHERE id = ?",
            (outcome.round, manager_id[0] if manager_id else None, inbound_id),
        )
        result = self._finish(conn, inbound_id, "human", outcome.summary, parsed, replied=True)
        return IngestResult(
            result.inbound_id, result.kind, result.outcome, replied=True,
            sender=parsed.sender, move=outcome,
        )

    def _problem(
        self,
        conn: sqlite3.Connection,
        inbound_id: int,
        parsed: InboundMail,
        spooled: SpooledMail,
        now: datetime,
        problem: Problem,
        limit: int | None,
        *,
        language: str | None = None,
    ) -> IngestResult:
        language = language or self.settings.language
        rendered = render_problem(
            problem,
            subject=parsed.subject,
            language=language,
            game_name=self.settings.game_name,
            game_address=self.settings.bot_address,
            limit=limit,
            env=self.environments.get(language),
        )
        self._queue_reply(conn, inbound_id, parsed, spooled, rendered, now)
        return self._finish(conn, inbound_id, "human", f"{problem}: nothing changed", parsed,
                            replied=True)

    def _queue_reply(
        self,
        conn: sqlite3.Connection,
        inbound_id: int,
        parsed: InboundMail,
        spooled: SpooledMail,
        rendered: RenderedMail,
        now: datetime,
    ) -> None:
        assert parsed.sender is not None
        s = self.settings
        # A reply threads under the mail's Message-ID; an id compose would refuse
        # (e.g. "<xxxx>" without a domain) must not cost the player the reply.
        parent = parsed.message_id
        if parent is not None and not is_message_id(parent):
            parent = None
        references = [r for r in parsed.references if is_message_id(r)] if parent else []
        if parent:
            references.append(parent)
        mail = compose(
            kind=MailKind.REPLY,
            sender=s.bot_address,
            sender_name=s.from_name,
            to=parsed.sender,
            to_name=parsed.sender_name or None,
            subject=rendered.subject,
            text=rendered.text,
            html=rendered.html,
            date=now,
            key=f"reply/{spooled.sha256}",
            in_reply_to=parent,
            references=references[-10:],
            language=rendered.language,
        )
        outbox.enqueue(
            conn, raw=mail.data, message_id=mail.message_id, kind="reply",
            recipient=mail.recipient, now=now, inbound_id=inbound_id,
        )

    def _finish(
        self,
        conn: sqlite3.Connection,
        inbound_id: int,
        kind: str,
        summary: str,
        parsed: InboundMail,
        *,
        replied: bool = False,
    ) -> IngestResult:
        conn.execute("UPDATE inbound SET outcome = ? WHERE id = ?", (summary[:1000], inbound_id))
        return IngestResult(inbound_id, kind, summary, replied=replied, sender=parsed.sender)

    def _dead_letter(
        self,
        mail: IncomingMail,
        spooled: SpooledMail,
        parsed: InboundMail,
        verdict: Classification,
        now: datetime,
        exc: BaseException,
    ) -> IngestResult:
        summary = f"internal_error: {type(exc).__name__}: {exc}"
        with self.db.transaction() as conn:
            inbound_id = self._ledger(conn, mail, spooled, parsed, verdict.kind, now)
            replied = False
            if verdict.answerable and parsed.sender:
                try:
                    conn.execute("SAVEPOINT reply")
                    self._problem(conn, inbound_id, parsed, spooled, now, "internal_error", None)
                    conn.execute("RELEASE reply")
                    replied = True
                except Exception:  # the apology itself failed: ledger only
                    conn.execute("ROLLBACK TO reply")
                    conn.execute("RELEASE reply")
                    log.exception("could not queue the internal-error reply")
            self._finish(conn, inbound_id, verdict.kind, summary, parsed)
        return IngestResult(inbound_id, verdict.kind, summary, sender=parsed.sender,
                            replied=replied)

