"""The inbound use case: a mail -> spool, dedupe, read, classify, moves, ONE reply — once.

``Ingestor.ingest_batch`` handles the ``IncomingMail``s of one poll batch
(``Ingestor.ingest`` is a batch of one):

1. the raw bytes of the whole batch are archived in the spool (before
   anything parses them) and flushed to disk with one sync;
2. ONE write transaction on ONE connection then takes the mails in order
   (a batch that holds the write lock longer than
   ``IngestSettings.max_transaction_seconds`` is committed in parts, all
   before the caller marks anything processed);
3. per mail, the ledger (``inbound``) is asked whether it was handled
   already (same IMAP UIDVALIDITY+UID, or the very same bytes; earlier
   mails of the batch count) — then nothing happens again;
4. the mail is read and classified; bounces are recorded against their
   manager, auto-replies and the bot's own mail are only ledgered;
5. a human's mail is checked against the limits, parsed, applied by the
   league, and its one reply rendered and queued in the outbox — the ledger
   row, the state change and the reply inside ONE savepoint of the batch; a
   message to a person in it is forwarded to the game master in the same
   savepoint (``bot.service.forward``);
6. if anything unexpected fails, or reading the mail runs past
   ``handling_seconds``, only that mail's savepoint is rolled back and the
   failed attempt is counted in the ledger (a ``retry`` row); the mail stays
   in the inbox and is tried again at the next poll, reading it in a child
   process killed at the budget (``bot.service.bounded``). After
   ``max_attempts`` it is quarantined: ledgered, answered with the
   "internal error" reply, and moved to the quarantine folder by ``poll``;
   the rest of the batch stands. So no mail is lost, none is applied
   twice, and the worker never crashes on input. A crash before the commit
   loses the whole batch's work, not its mails: they are still in the
   inbox, and the next poll handles them again.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from bot.league.addresses import normalize_address
from bot.league.moves import sender_team_names
from bot.league.outcome import MoveOutcome
from bot.league.passwords import verify_password
from bot.mail.auth import sender_trust
from bot.mail.classify import Classification, classify
from bot.mail.compose import MailKind, is_message_id
from bot.mail.grammar import parse_moves
from bot.mail.quotes import is_bot_reply_id, is_bot_reply_marker
from bot.mail.reading import InboundMail, read_message
from bot.mail.spool import SpooledMail, spool_many
from bot.mail.transport import IncomingMail, MailSource, header_section
from bot.mail.vocabulary import Vocabulary
from bot.render.model import RenderedMail
from bot.render.reply import Problem, render_problem, render_reply
from bot.rules.requests import ParsedMoves
from bot.service import erasure
from bot.service.bounded import ISOLATE_ABOVE, run_bounded
from bot.service.commands import Registry, registry
from bot.service.commands import gm_access as gm_mail
from bot.service.commands.runner import carry_out, password_candidates
from bot.service.context import Context
from bot.service.forward import forward_to_gm, gm_reachable
from bot.service.outgoing import Sender, queue_mail
from bot.service.settings import IngestSettings
from bot.storage import ledger, managers
from bot.storage.db import Database, savepoint
from bot.storage.ledger import InboundKind, InboundRecord, Outcome, source_kind

log = logging.getLogger(__name__)

#: The ledger outcome of a mail from a manager the game master banned.
BANNED = Outcome.BANNED


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
    #: Handling failed; the mail stays in the inbox for another attempt.
    retry: bool = False
    #: Handling failed every attempt; the caller moves the mail to quarantine.
    quarantined: bool = False


class Ingestor:
    """Turns incoming mails into league moves and replies (see module doc).
    ``context`` is what every use case shares (the database, the league, the
    clock, the render cache); ``commands`` the command registry."""

    def __init__(
        self, context: Context, settings: IngestSettings, *, commands: Registry | None = None
    ) -> None:
        self.context = context
        self.db: Database = context.db
        self.league = context.league
        self.settings = settings
        self.clock: Callable[[], datetime] = context.clock
        self.environments = context.environments
        self.commands = commands or registry()

    # -- public ----------------------------------------------------------------

    def ingest(self, mail: IncomingMail) -> IngestResult:
        """Handle one mail exactly once; never raises for anything in the mail."""
        return self.ingest_batch([mail])[0]

    def ingest_batch(self, mails: Sequence[IncomingMail]) -> list[IngestResult]:
        """Handle each mail exactly once, in order, in one transaction (see the
        module doc); never raises for anything in a mail. Raises ``OSError`` or
        ``StorageError`` when the spool or the database fails — then nothing
        of the batch was committed (or, past ``max_transaction_seconds``, only
        whole mails were), and the caller must not mark the mails processed."""
        if not mails:
            return []
        spooled = spool_many(self.settings.spool_dir, [m.raw for m in mails], self.clock())
        pending = list(zip(mails, spooled, strict=True))
        results: list[IngestResult] = []
        limit = self.settings.max_transaction_seconds
        while pending:
            with self.db.transaction() as conn:
                began = time.monotonic()
                while pending:
                    mail, spooled_mail = pending.pop(0)
                    results.append(self._one(conn, mail, spooled_mail))
                    if time.monotonic() - began >= limit:
                        break
                erased = erasure.spool_to_remove(conn)
            if erased:  # an erasure (``Daten löschen``) committed: its raw mails go now
                erasure.remove_spool(self.db, self.settings.spool_dir, erased)
        return results

    # -- steps -----------------------------------------------------------------

    def _one(
        self, conn: sqlite3.Connection, mail: IncomingMail, spooled: SpooledMail
    ) -> IngestResult:
        """One mail inside the batch's transaction, in its own savepoint."""
        now = self.clock()
        s = self.settings
        retry = ledger.retry_of(conn, source=mail.source, uidvalidity=mail.uidvalidity,
                                uid=mail.uid, sha256=spooled.sha256)
        if retry is None:
            known = self._known(conn, mail, spooled)
            if known is not None:
                quarantined = ledger.is_quarantined(conn, known)
                return IngestResult(known, InboundKind.DUPLICATE, "already processed",
                                    duplicate=True, quarantined=quarantined)
        # Reading depends on the mail's content: bounded (module doc, bot.service.bounded).
        isolate = retry is not None or mail.whole_size > ISOLATE_ABOVE
        try:
            parsed, verdict = run_bounded(
                read_mail, mail.raw, s.all_own_addresses,
                seconds=s.handling_seconds, isolate=isolate,
            )
        except Exception as exc:
            log.warning("reading %r failed (%s); it is tried again later", mail, exc)
            return self._failed(conn, mail, spooled, None, None, retry, now, exc)
        try:
            with savepoint(conn, "mail"):
                if retry is not None:
                    ledger.forget_retry(conn, retry)
                return self._apply(conn, mail, spooled, parsed, verdict, now, isolate)
        except Exception as exc:  # a bug must not lose the mail, nor the batch
            if not conn.in_transaction:  # the database itself gave up: abort the batch
                raise
            log.exception("ingest failed for %r; it is tried again later", mail)
            return self._failed(conn, mail, spooled, parsed, verdict, retry, now, exc)

    def _known(
        self, conn: sqlite3.Connection, mail: IncomingMail, spooled: SpooledMail
    ) -> int | None:
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
        isolate: bool,
    ) -> IngestResult:
        inbound_id = self._ledger(conn, mail, spooled, parsed, verdict.kind, now)
        if verdict.kind == InboundKind.BOUNCE:
            for address in verdict.bounced_recipients:
                self.league.record_bounce(conn, address, inbound_id, verdict.reason, now=now)
            summary = f"{Outcome.BOUNCE} ({verdict.reason}): " + (
                ", ".join(verdict.bounced_recipients) or "recipient unknown"
            )
            return self._finish(conn, inbound_id, verdict.kind, summary, parsed,
                                code=Outcome.BOUNCE)
        if not verdict.answerable or not parsed.sender:
            return self._finish(
                conn, inbound_id, verdict.kind, f"{Outcome.NO_REPLY}: {verdict.reason}", parsed,
                code=Outcome.NO_REPLY,
            )
        gm = gm_mail.identify(parsed, self.settings, self.commands)  # RULES.md §13
        if gm is not None and not gm.verified:
            summary = gm_mail.refuse(conn, self.context, self.settings, parsed, gm, inbound_id, now)
            return self._finish(conn, inbound_id, InboundKind.HUMAN, summary, parsed,
                                code=Outcome.GM_REFUSED)
        trust = sender_trust(parsed.header_values("authentication-results"),
                             self.settings.authserv_id)
        if trust.forged:
            return self._finish(conn, inbound_id, InboundKind.HUMAN,
                                f"{Outcome.FORGED}: {trust.reason}; nothing changed, no reply",
                                parsed, code=Outcome.FORGED)
        if not mail.complete:
            return self._problem(conn, inbound_id, parsed, spooled, now, "too_large",
                                 self.settings.max_mail_bytes)
        # A mail that arrived before a deadline is in time, even when it is
        # read only afterwards (the deadline job reads the inbox first).
        arrived = min(now, mail.arrived) if mail.arrived is not None else now
        return self._human(conn, inbound_id, parsed, spooled, now, arrived, isolate, gm)

    def _human(
        self,
        conn: sqlite3.Connection,
        inbound_id: int,
        parsed: InboundMail,
        spooled: SpooledMail,
        now: datetime,
        arrived: datetime,
        isolate: bool,
        gm: gm_mail.GmMail | None = None,
    ) -> IngestResult:
        """A person's mail; ``gm``: the game master's, which passed his checks."""
        s = self.settings
        assert parsed.sender is not None
        if gm is None and self.league.is_banned(conn, parsed.sender):  # banned by the GM
            return self._finish(conn, inbound_id, InboundKind.HUMAN,
                                f"{BANNED}: no reply, nothing changed", parsed, code=BANNED)
        too_large = len(parsed.text.encode("utf-8", "replace")) > s.max_text_bytes
        moves: ParsedMoves | None = None
        if not too_large and not parsed.unreadable and gm is not None:
            moves = run_bounded(gm_mail.read_moves, gm.text, self.commands,
                                seconds=s.handling_seconds, isolate=isolate)
        elif not too_large and not parsed.unreadable:  # the grammar, bounded like reading
            moves = run_bounded(
                parse_mail, parsed.subject, parsed.fresh_text,
                tuple(sender_team_names(conn, parsed.sender)), self.commands.vocabulary(),
                seconds=s.handling_seconds, isolate=isolate,
            )
        hour = now - timedelta(hours=1)
        # Fair limits (RULES.md §9): only mails without a valid password count,
        # and a mail with the right password is always processed.
        authenticated = gm is not None or self._valid_password(conn, parsed.sender, moves)
        unverified = ledger.unverified_since(conn, parsed.sender, since=hour,
                                             other_than=inbound_id)
        if unverified >= s.max_mails_per_hour and not authenticated:
            if ledger.slowed_down_since(conn, parsed.sender, since=hour, other_than=inbound_id):
                return self._finish(
                    conn, inbound_id, InboundKind.HUMAN,
                    f"{Outcome.RATE_LIMITED}: no reply (told already)", parsed,
                    code=Outcome.RATE_LIMITED,
                )
            return self._problem(conn, inbound_id, parsed, spooled, now, "slow_down",
                                 s.max_mails_per_hour)
        if too_large:
            return self._problem(conn, inbound_id, parsed, spooled, now, "too_large",
                                 s.max_text_bytes)
        if parsed.unreadable or moves is None:
            return self._problem(conn, inbound_id, parsed, spooled, now, "unreadable", None)
        if len(moves.requests) + len(moves.errors) > s.max_command_lines:
            return self._problem(conn, inbound_id, parsed, spooled, now, "too_many_lines",
                                 s.max_command_lines, language=moves.language)
        # A message to a person goes to the game master, once (RULES.md §11).
        forward = bool(moves.prose) and gm_reachable(self.context, parsed.sender)
        if forward:
            forward_to_gm(conn, self.context, parsed, key=spooled.sha256, now=now,
                          inbound_id=inbound_id)
        thread = bot_thread(parsed) if moves.empty else None
        if thread is not None and ledger.thread_answered_since(
            conn, parsed.sender, thread, since=now - timedelta(days=1), other_than=inbound_id
        ):
            return self._finish(
                conn, inbound_id, InboundKind.HUMAN,
                f"{Outcome.NO_REPLY}: answers the bot's mail without a command; "
                f"that thread was answered today already"
                f"{'; forwarded' if forward else ''} {thread_tag(thread)}", parsed,
                code=Outcome.NO_REPLY, thread=thread,
            )
        outcome = carry_out(
            conn, self.league.settings,
            sender=parsed.sender,
            sender_name=parsed.sender_name or None,
            moves=moves,
            now=arrived,
            lot=self.league.lot,
            context=self.context,
            inbound_id=inbound_id,
            message_id=parsed.message_id,
            commands=self.commands,
            forwarded=forward,
            gm=gm is not None,
        )
        if gm is not None:  # answered to gm.address only
            outcome = gm_mail.reply_outcome(outcome, moves, gm.language or s.language,
                                            self.context.settings.gm_name)
        rendered = render_reply(
            outcome,
            subject=parsed.subject,
            now=now,
            timezone=s.timezone,
            game_name=s.game_name,
            game_address=s.bot_address,
            env=self.environments,
            to_gm=gm is not None,
        )
        to = (self.context.settings.gm_address, self.context.settings.gm_name) if gm else (
            outcome.reply_to, outcome.reply_to_name)
        self._queue_reply(conn, inbound_id, parsed, spooled, rendered, now, to=to[0],
                          to_name=to[1])
        manager_id = None
        if outcome.manager is not None:
            manager_id = managers.manager_id_of(conn, outcome.manager.address)
        ledger.link(conn, inbound_id, round_number=outcome.round, manager_id=manager_id)
        summary = outcome.summary
        if thread is not None:
            summary += f" {thread_tag(thread)}"
        if authenticated:
            summary += f" {PASSWORD_OK}"
        result = self._finish(conn, inbound_id, InboundKind.HUMAN, summary, parsed,
                              replied=True, authenticated=authenticated, thread=thread,
                              code=self._code(outcome), notices=outcome.codes())
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
                            parsed, replied=True, code=Outcome(problem))

    def _queue_reply(
        self,
        conn: sqlite3.Connection,
        inbound_id: int,
        parsed: InboundMail,
        spooled: SpooledMail,
        rendered: RenderedMail,
        now: datetime,
        *,
        to: str | None = None,
        to_name: str | None = None,
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
            to=to or parsed.sender,
            to_name=(to_name if to else parsed.sender_name) or None,
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
        code: Outcome,
        replied: bool = False,
        authenticated: bool = False,
        thread: str | None = None,
        notices: Sequence[str] = (),
    ) -> IngestResult:
        ledger.finish(conn, inbound_id, code=code, text=summary, authenticated=authenticated,
                      thread=thread, notices=notices)
        return IngestResult(inbound_id, kind, summary, replied=replied, sender=parsed.sender)

    @staticmethod
    def _code(outcome: MoveOutcome) -> Outcome:
        """The ledger's code of a mail the commands answered."""
        if outcome.ledger is not None:
            return Outcome(outcome.ledger[0])
        return Outcome.ACCEPTED if outcome.accepted else Outcome.REJECTED

    def _valid_password(
        self, conn: sqlite3.Connection, sender: str, moves: ParsedMoves | None
    ) -> bool:
        """The mail carries the right password of its sender's manager (a
        flood of candidates is checked by nobody: ``password_candidates``)."""
        given = password_candidates(moves) if moves else None
        if not given:
            return False
        try:
            manager = managers.manager_by_address(conn, normalize_address(sender))
        except ValueError:
            return False
        if manager is None or not manager.password_hash:
            return False
        return any(verify_password(p, manager.password_hash) for p in given)

    def _failed(
        self,
        conn: sqlite3.Connection,
        mail: IncomingMail,
        spooled: SpooledMail,
        parsed: InboundMail | None,
        verdict: Classification | None,
        retry: ledger.RetryRow | None,
        now: datetime,
        exc: BaseException,
    ) -> IngestResult:
        """Count a failed attempt; after ``max_attempts`` quarantine the mail
        with the "internal error" reply (one reply, as for every mail)."""
        s = self.settings
        error = f"{type(exc).__name__}: {exc}"
        if parsed is None:  # reading failed: the header alone (at most 64 KiB) names the sender
            try:
                parsed = read_message(header_section(mail.raw))
                verdict = classify(parsed, s.all_own_addresses)
            except Exception:  # pragma: no cover - read_message never raises
                parsed, verdict = None, None
        kind = verdict.kind if verdict is not None else InboundKind.UNREADABLE
        record = InboundRecord(
            source=source_kind(mail.source), uidvalidity=mail.uidvalidity, uid=mail.uid,
            message_id=parsed.message_id if parsed else None, sha256=spooled.sha256,
            spool_path=spooled.relative_path, received_at=now,
            sender=parsed.sender if parsed else None,
            subject=parsed.subject if parsed else "", kind=kind,
        )
        with savepoint(conn, "attempt"):
            row = ledger.record_failed_attempt(conn, record, retry, error)
        sender = parsed.sender if parsed else None
        if row.attempts < s.max_attempts:
            return IngestResult(row.inbound_id, kind, row.outcome, sender=sender, retry=True)
        summary = (f"{Outcome.QUARANTINED}: handling failed {row.attempts} times "
                   f"(last: {error}); the mail is in the quarantine folder")
        replied = False
        if parsed is not None and verdict is not None and verdict.answerable and parsed.sender:
            try:
                with savepoint(conn, "reply"):
                    self._problem(conn, row.inbound_id, parsed, spooled, now, "internal_error",
                                  None)
                replied = True
            except Exception:  # the apology itself failed: ledger only
                log.exception("could not queue the internal-error reply")
        ledger.finish(conn, row.inbound_id, code=Outcome.QUARANTINED, text=summary)
        log.error("mail %r quarantined after %d failed attempts: %s", mail, row.attempts, error)
        return IngestResult(row.inbound_id, kind, summary, sender=sender, replied=replied,
                            quarantined=True)


#: Ends the ledger line of a mail that carried its manager's right password:
#: such mails never count against ``max_mails_per_hour``.
PASSWORD_OK = "[password ok]"


def thread_tag(thread: str) -> str:
    """The ledger mark of a mail in one of the bot's threads (loops, see ``bot_thread``)."""
    return f"[bot thread {thread}]"


def bot_thread(parsed: InboundMail) -> str | None:
    """The bot's mail this one answers, if it does: the first of the bot's
    Message-IDs in In-Reply-To/References, or ``text`` when only the bot's
    reply marker in the body (quoted or not) shows it. Loops: such a mail
    without a command is answered at most once per thread and day."""
    for candidate in (parsed.in_reply_to, *parsed.references):
        if is_bot_reply_id(candidate):
            return candidate
    if any(is_bot_reply_marker(line) for line in parsed.text.splitlines()):
        return "text"
    return None


def read_mail(
    raw: bytes, own_addresses: frozenset[str]
) -> tuple[InboundMail, Classification]:
    """The content-dependent reading of one mail (run under ``run_bounded``)."""
    parsed = read_message(raw)
    return parsed, classify(parsed, own_addresses)


def parse_mail(
    subject: str, text: str, team_names: tuple[str, ...], vocabulary: Vocabulary
) -> ParsedMoves:
    """The grammar on one mail's text (run under ``run_bounded``)."""
    return parse_moves(subject, text, team_names=team_names, vocabulary=vocabulary)


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
    raises ``TransportError`` when the mailbox cannot be read. A mail whose
    handling failed stays in the inbox (tried once per poll); a quarantined
    one is moved to the quarantine folder."""
    results: list[IngestResult] = []
    again: set[str] = set()  # failed in this poll: next poll
    max_size = ingestor.settings.max_mail_bytes
    while True:
        fetched = source.fetch_new(limit=batch + len(again), max_size=max_size)
        mails = [m for m in fetched if m.key not in again][:batch]
        got = ingestor.ingest_batch(mails)
        results.extend(got)
        # The batch's transaction has committed; a crash before this line
        # only makes the next poll see the mails again, and the ledger skips them.
        source.mark_processed_many(
            [m for m, r in zip(mails, got, strict=True) if not (r.retry or r.quarantined)]
        )
        for mail, result in zip(mails, got, strict=True):
            if result.quarantined:
                source.quarantine(mail)
            elif result.retry:
                again.add(mail.key)
        if len(mails) < batch:
            return PollReport(tuple(results))
