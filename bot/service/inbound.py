"""The inbound use case: a mail -> spool, dedupe, read, classify, moves, ONE reply — once.

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
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from bot.league.outcome import MoveOutcome
from bot.league.service import League
from bot.mail.classify import Classification, classify
from bot.mail.compose import MailKind, is_message_id
from bot.mail.grammar import parse_moves
from bot.mail.reading import InboundMail, read_message
from bot.mail.spool import SpooledMail, spool
from bot.mail.transport import IncomingMail, MailSource
from bot.render.environment import Environments
from bot.render.model import RenderedMail
from bot.render.reply import Problem, render_problem, render_reply
from bot.service.outgoing import Sender, queue_mail
from bot.storage import ledger, managers
from bot.storage.db import Database, savepoint
from bot.storage.ledger import InboundKind, InboundRecord, Outcome, source_kind

log = logging.getLogger(__name__)

#: The ledger outcome of a mail from a manager the game master banned.
BANNED = "banned"


@dataclass(frozen=True, slots=True)
class IngestSettings:
    """What the ingest needs to know (built from the configuration)."""

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


class Ingestor:
    """Turns incoming mails into league moves and replies (see module doc).
    ``environments`` is the renderer's cache, shared with the other use cases."""

    def __init__(
        self,
        db: Database,
        league: League,
        settings: IngestSettings,
        *,
        clock: Callable[[], datetime],
        environments: Environments,
    ) -> None:
        self.db = db
        self.league = league
        self.settings = settings
        self.clock = clock
        self.environments = environments

    # -- public ----------------------------------------------------------------

    def ingest(self, mail: IncomingMail) -> IngestResult:
        """Handle one mail exactly once; never raises for anything in the mail."""
        now = self.clock()
        spooled = spool(self.settings.spool_dir, mail.raw, now)
        known = self._known(mail, spooled)
        if known is not None:
            return IngestResult(known, InboundKind.DUPLICATE, "already processed",
                                duplicate=True)
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
            return ledger.known(conn, source=mail.source, uidvalidity=mail.uidvalidity,
                                uid=mail.uid, sha256=spooled.sha256)

    def _ledger(
        self,
        conn: sqlite3.Connection,
        mail: IncomingMail,
        spooled: SpooledMail,
        parsed: InboundMail,
        kind: str,
        now: datetime,
    ) -> int:
        return ledger.insert(conn, InboundRecord(
            source=source_kind(mail.source), uidvalidity=mail.uidvalidity, uid=mail.uid,
            message_id=parsed.message_id, sha256=spooled.sha256,
            spool_path=spooled.relative_path, received_at=now, sender=parsed.sender,
            subject=parsed.subject, kind=kind,
        ))

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
        if verdict.kind == InboundKind.BOUNCE:
            for address in verdict.bounced_recipients:
                self.league.record_bounce(conn, address, inbound_id, verdict.reason, now=now)
            summary = f"{Outcome.BOUNCE} ({verdict.reason}): " + (
                ", ".join(verdict.bounced_recipients) or "recipient unknown"
            )
            return self._finish(conn, inbound_id, verdict.kind, summary, parsed)
        if not verdict.answerable or not parsed.sender:
            return self._finish(
                conn, inbound_id, verdict.kind, f"{Outcome.NO_REPLY}: {verdict.reason}", parsed
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
        if self.league.is_banned(conn, parsed.sender):  # the game master banned him
            return self._finish(conn, inbound_id, InboundKind.HUMAN,
                                f"{BANNED}: no reply, nothing changed", parsed)
        recent = ledger.recent_human_outcomes(
            conn, parsed.sender, since=now - timedelta(hours=1), other_than=inbound_id
        )
        if len(recent) >= s.max_mails_per_hour:
            if any(outcome.startswith(Outcome.SLOW_DOWN) for outcome in recent):
                return self._finish(
                    conn, inbound_id, InboundKind.HUMAN,
                    f"{Outcome.RATE_LIMITED}: no reply (told already)", parsed,
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
            env=self.environments,
        )
        self._queue_reply(conn, inbound_id, parsed, spooled, rendered, now)
        manager_id = None
        if outcome.manager is not None:
            manager_id = managers.manager_id_of(conn, outcome.manager.address)
        ledger.link(conn, inbound_id, round_number=outcome.round, manager_id=manager_id)
        result = self._finish(conn, inbound_id, InboundKind.HUMAN, outcome.summary, parsed,
                              replied=True)
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
            env=self.environments,
        )
        self._queue_reply(conn, inbound_id, parsed, spooled, rendered, now)
        return self._finish(conn, inbound_id, InboundKind.HUMAN, f"{problem}: nothing changed",
                            parsed, replied=True)

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
        queue_mail(
            conn,
            sender=Sender(s.bot_address, s.from_name),
            kind=MailKind.REPLY,
            to=parsed.sender,
            to_name=parsed.sender_name or None,
            rendered=rendered,
            key=f"reply/{spooled.sha256}",
            now=now,
            inbound_id=inbound_id,
            in_reply_to=parent,
            references=references[-10:],
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
        ledger.set_outcome(conn, inbound_id, summary)
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
        summary = f"{Outcome.INTERNAL_ERROR}: {type(exc).__name__}: {exc}"
        with self.db.transaction() as conn:
            inbound_id = self._ledger(conn, mail, spooled, parsed, verdict.kind, now)
            replied = False
            if verdict.answerable and parsed.sender:
                try:
                    with savepoint(conn, "reply"):
                        self._problem(conn, inbound_id, parsed, spooled, now, "internal_error",
                                      None)
                    replied = True
                except Exception:  # the apology itself failed: ledger only
                    log.exception("could not queue the internal-error reply")
            self._finish(conn, inbound_id, verdict.kind, summary, parsed)
        return IngestResult(inbound_id, verdict.kind, summary, sender=parsed.sender,
                            replied=replied)


@dataclass(frozen=True, slots=True)
class PollReport:
    """One pass over the inbox."""

    results: tuple[IngestResult, ...] = ()

    @property
    def processed(self) -> int:
        return sum(1 for r in self.results if not r.duplicate)

    @property
    def replies(self) -> int:
        return sum(1 for r in self.results if r.replied)

    @property
    def kinds(self) -> Counter[str]:
        return Counter(r.kind for r in self.results)


def poll(source: MailSource, ingestor: Ingestor, *, batch: int) -> PollReport:
    """Read the inbox up to now, ``batch`` mails per fetch, each handled once;
    raises ``TransportError`` when the mailbox cannot be read."""
    results: list[IngestResult] = []
    while True:
        mails = source.fetch_new(limit=batch)
        results.extend(ingestor.ingest(mail) for mail in mails)
        # Each mail's transaction has committed; a crash before this line
        # only makes the next poll see them again, and the ledger skips them.
        source.mark_processed_many(mails)
        if len(mails) < batch:
            return PollReport(tuple(results))
