"""The application: the one place where configuration, storage, the league,
mail in, mail out and rendering are wired together.

The worker (``bot.worker``), the CLI and the demo all drive an ``App``; each
method is one use case of the game master's service and is safe to call
again after a crash (every step is idempotent or guarded by the ledger and
the outbox's stable Message-IDs).
"""

from __future__ import annotations

import dataclasses
import logging
import sqlite3
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from email.utils import parseaddr
from pathlib import Path
from typing import Any

from bot.config import Config
from bot.league.service import EvaluationResult, League
from bot.league.settings import LeagueSettings
from bot.league.tables import PszRow as LeaguePszRow
from bot.league.tables import WpRow as LeagueWpRow
from bot.mail import outbox
from bot.mail.compose import MailKind, compose
from bot.mail.outbox import DrainReport
from bot.mail.pipeline import Ingestor, IngestResult, IngestSettings
from bot.mail.transport import MailSender, MailSource
from bot.render.archive import write_archive
from bot.render.digest import render_digest
from bot.render.model import PszRow, RenderedMail, RoundInfo, WpRow
from bot.render.newsletter import render_newsletter
from bot.render.reminder import render_reminder
from bot.storage.db import Database, open_database
from bot.storage.values import time_to_db
from bot.worker.schedule import DeadlinePlan

log = logging.getLogger(__name__)

#: Mails fetched and then marked processed (moved) with one command.
POLL_BATCH = 500


def utcnow() -> datetime:
    return datetime.now(UTC)


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


def _wp_rows(rows: list[LeagueWpRow]) -> list[WpRow]:
    return [WpRow(r.team, r.manager, r.wp, r.gain or Decimal("0.0")) for r in rows]


def _psz_rows(rows: list[LeaguePszRow]) -> list[PszRow]:
    return [PszRow(r.team, r.manager, r.psz) for r in rows]


class App:
    """The game master's service over one state directory."""

    def __init__(
        self,
        config: Config,
        *,
        source: MailSource,
        sender: MailSender,
        clock: Callable[[], datetime] = utcnow,
        db: Database | None = None,
        league_settings: LeagueSettings | None = None,
    ) -> None:
        self.config = config
        self.clock = clock
        self.db = db or open_database(config.state_dir)
        self.league = League(self.db, league_settings or config.league_settings())
        self.source = source
        self.sender = sender
        self.plan = DeadlinePlan.from_config(config)
        name, address = parseaddr(config.mail.from_header)
        self.from_name = name or config.game.name
        self.from_address = address or config.mail.address
        self.ingestor = Ingestor(
            self.db,
            self.league,
            IngestSettings(
                bot_address=config.mail.address,
                spool_dir=config.state_dir / "spool",
                from_name=self.from_name,
                own_addresses=frozenset({self.from_address.lower()}),
                timezone=config.schedule.timezone,
                game_name=config.game.name,
                language=config.game.language,
                max_text_bytes=config.mail.limits.max_text_bytes,
                max_command_lines=config.mail.limits.max_command_lines,
                max_mails_per_hour=config.mail.limits.max_mails_per_hour,
            ),
            clock=clock,
        )

    # -- rounds ----------------------------------------------------------------

    def ensure_started(self) -> None:
        """Open round 1 (with the first planned deadline) in an empty league."""
        now = self.clock()
        deadline = self.plan.next_deadline(now)
        if deadline is None:
            with self.db.read() as conn:
                if self.league.open_round(conn) is not None:
                    return
            raise ValueError(
                "schedule.deadlines has no deadline after now: add a future date-time "
                "or use schedule.deadlines.cron"
            )
        self.league.ensure_first_round(now, deadline)

    def open_round_deadline(self) -> datetime | None:
        with self.db.read() as conn:
            rnd = self.league.open_round(conn)
        return rnd.deadline if rnd else None

    def set_deadline(self, deadline: datetime) -> None:
        with self.db.read() as conn:
            rnd = self.league.open_round(conn)
        if rnd is None:
            raise ValueError("there is no open round to set a deadline for")
        if deadline <= self.clock():
            raise ValueError(f"deadline {deadline.isoformat()} is not in the future")
        self.league.set_deadline(rnd.number, deadline)

    # -- mail in ---------------------------------------------------------------

    def poll_once(self) -> PollReport:
        """Read the inbox up to now; raises ``TransportError`` when it cannot."""
        results: list[IngestResult] = []
        while True:
            batch = self.source.fetch_new(limit=POLL_BATCH)
            for mail in batch:
                results.append(self.ingestor.ingest(mail))
            # Each mail's transaction has committed; a crash before this line
            # only makes the next poll see them again, and the ledger skips them.
            self.source.mark_processed_many(batch)
            if len(batch) < POLL_BATCH:
                break
        return PollReport(tuple(results))

    def wait_for_mail(self, timeout: float) -> bool:
        return self.source.wait_for_mail(timeout)

    # -- mail out --------------------------------------------------------------

    def drain_outbox(self) -> DrainReport:
        report = outbox.drain(
            self.db,
            self.sender,
            now=self.clock,
            mail_from=self.from_address,
            rate_per_minute=self.config.mail.smtp.rate_per_minute
            if self.config.mail.transport == "imap"
            else None,
        )
        failed = [(r, e) for r, e in report.failed if r.lower() != self.config.gm.address.lower()]
        if failed:
            # A permanent failure needs a human: tell the game master now, not
            # only in the next digest. (Failures of mail to the GM are not
            # reported to the GM, which could only loop.)
            self.notify_gm(
                "Mail konnte nicht zugestellt werden / mail could not be delivered",
                "\n".join(f"{r}: {e}" for r, e in failed),
            )
        return report

    def _queue(
        self,
        conn: sqlite3.Connection,
        *,
        kind: MailKind,
        to: str,
        to_name: str | None,
        rendered: RenderedMail,
        key: str,
        round_number: int | None = None,
        list_unsubscribe: str | None = None,
    ) -> int:
        mail = compose(
            kind=kind,
            sender=self.from_address,
            sender_name=self.from_name,
            to=to,
            to_name=to_name,
            subject=rendered.subject,
            text=rendered.text,
            html=rendered.html,
            date=self.clock(),
            key=key,
            list_unsubscribe=list_unsubscribe,
            language=rendered.language,
        )
        return outbox.enqueue(
            conn, raw=mail.data, message_id=mail.message_id, kind=kind.value,
            recipient=mail.recipient, now=self.clock(), round=round_number,
        )

    def notify_gm(self, subject: str, text: str) -> None:
        """A notice to the game master (queued like every other mail)."""
        rendered = RenderedMail(subject=f"{self.config.game.name}: {subject}", text=text,
                                html=None, language=self.config.game.language)
        key = f"notice/{time_to_db(self.clock())}/{subject}"
        with self.db.transaction() as conn:
            self._queue(conn, kind=MailKind.NOTICE, to=self.config.gm.address,
                        to_name=self.config.gm.name, rendered=rendered, key=key)

    # -- evaluation ------------------------------------------------------------

    def evaluate_due(self, now: datetime | None = None, *, force: bool = False) -> int | None:
        """Evaluate the open round if its deadline passed (or ``force``), then queue
        the newsletters and the GM digest. Returns the round evaluated."""
        result = self._evaluate(now or self.clock(), force=force)
        if result is None:
            return None
        self.publish(result.round)
        self.send_digest(result.round)
        return result.round

    def _evaluate(self, now: datetime, *, force: bool) -> EvaluationResult | None:
        """The league's evaluation, with the next round's deadline from the plan
        (the first planned one after now and after the open round's deadline)."""
        current = self.open_round_deadline()
        after = max(now, current) if current else now
        return self.league.evaluate_due(
            now, next_deadline=self.plan.next_deadline(after), force=force
        )

    def unpublished_rounds(self, kind: str = "newsletter") -> list[int]:
        """Evaluated rounds whose newsletters (or digest) are not queued (a crash
        came between the evaluation and the queueing)."""
        with self.db.read() as conn:
            rows = conn.execute(
                "SELECT r.number FROM rounds r WHERE r.state = 'evaluated' AND NOT EXISTS"
                " (SELECT 1 FROM outbox o WHERE o.kind = ? AND o.round = r.number)"
                " ORDER BY r.number", (kind,),
            ).fetchall()
        return [int(r[0]) for r in rows]

    def catch_up(self) -> list[int]:
        """Queue missing newsletters and digests, then evaluate a missed deadline once."""
        for number in self.unpublished_rounds():
            self.publish(number)
        for number in self.unpublished_rounds("digest"):
            self.send_digest(number)
        done = self.evaluate_due()
        return [done] if done is not None else []

    def render_round(
        self, round_number: int, language: str | None = None, *,
        conn: sqlite3.Connection | None = None,
        public: dict[str, Any] | None = None,
    ) -> RenderedMail:
        """The newsletter of an evaluated round in ``language`` (``public``: the
        round's public report, if the caller has read it already)."""
        language = language or self.config.newsletter.language
        if public is None:
            public = self.league.stored_report(round_number, public=True)
        own = conn is None
        conn = conn or self.db.connect()
        try:
            rnd = conn.execute(
                "SELECT season, round_in_season FROM rounds WHERE number = ?", (round_number,)
            ).fetchone()
            nxt = conn.execute(
                "SELECT deadline FROM rounds WHERE number = ?", (round_number + 1,)
            ).fetchone()
            wp = _wp_rows(self.league.wp_table(conn, round_number))
            psz = _psz_rows(self.league.psz_table(conn, round_number))
        finally:
            if own:
                conn.close()
        next_deadline = datetime.fromisoformat(nxt[0]) if nxt and nxt[0] else None
        return render_newsletter(
            public,
            round_info=RoundInfo(season=rnd[0], round_in_season=rnd[1], number=round_number),
            wp_table=wp,
            psz_table=psz,
            next_deadline=next_deadline,
            timezone=self.config.schedule.timezone,
            language=language,
            game_name=self.config.game.name,
            game_address=self.config.mail.address,
            env=self.ingestor.environments.get(language),
        )

    def publish(self, round_number: int) -> int:
        """Archive a round's newsletter (in the configured language) and queue one
        copy per recipient in the recipient's language: a manager's is the one of
        their latest accepted mail, a subscriber's (``newsletter.extra_recipients``)
        the configured one. Each language is rendered once, not once per recipient.
        The Message-ID does not depend on the language, so publishing again after a
        crash never queues a second copy."""
        default = self.config.newsletter.language
        public = self.league.stored_report(round_number, public=True)
        rendered = {default: self.render_round(round_number, default, public=public)}
        write_archive(
            self.config.state_dir / "archive", round_number, rendered[default], public,
            game_name=self.config.game.name,
        )
        queued = 0
        with self.db.transaction() as conn:
            # (address, display name, language, List-Unsubscribe URI)
            copies: list[tuple[str, str | None, str, str | None]] = [
                (r.address, r.display_name, r.language or default, None)
                for r in self.league.recipients(conn)
            ]
            known = {address.lower() for address, *_ in copies}
            copies += [
                (address, None, default,
                 f"mailto:{self.config.gm.address}?subject=unsubscribe%20{address}")
                for address in self.config.newsletter.extra_recipients
                if address.lower() not in known
            ]
            for address, name, language, unsubscribe in copies:
                if language not in rendered:
                    rendered[language] = self.render_round(
                        round_number, language, conn=conn, public=public
                    )
                self._queue(
                    conn, kind=MailKind.NEWSLETTER, to=address, to_name=name,
                    rendered=rendered[language], key=f"newsletter/round-{round_number}",
                    round_number=round_number, list_unsubscribe=unsubscribe,
                )
                queued += 1
        return queued

    def digest_stats(self, round_number: int) -> dict[str, object]:
        """What happened between the previous evaluation and this one, read from
        the ledger and the outbox (so a restart of the worker loses nothing)."""
        with self.db.read() as conn:
            times = conn.execute(
                "SELECT number, evaluated_at FROM rounds WHERE number IN (?, ?)",
                (round_number - 1, round_number),
            ).fetchall()
            by_number = {int(n): at for n, at in times}
            start = by_number.get(round_number - 1) or ""
            end = by_number.get(round_number) or "9999"
            window = (start, end)
            inbound = conn.execute(
                "SELECT sender, kind, outcome FROM inbound WHERE received_at > ?"
                " AND received_at <= ? ORDER BY id", window,
            ).fetchall()
            moves = conn.execute(
                "SELECT COUNT(*) FROM moves WHERE received_at > ? AND received_at <= ?", window,
            ).fetchone()[0]
            failed = conn.execute(
                "SELECT recipient, last_error FROM outbox WHERE state = 'failed'"
                " AND failed_at > ? ORDER BY id", (start,),
            ).fetchall()
            stuck = conn.execute(
                "SELECT COUNT(*) FROM outbox WHERE state IN ('queued', 'sending')"
                " AND created_at <= ?", (time_to_db(self.clock() - timedelta(days=1)),),
            ).fetchone()[0]
            deleted = [r[0] for r in conn.execute(
                "SELECT name FROM teams WHERE deleted_round = ? ORDER BY name", (round_number,)
            )]
        outcome = [(sender, kind, text or "") for sender, kind, text in inbound]
        attention = [f"{a}: {t}" for a, _k, t in outcome if t.startswith("internal_error")]
        if stuck:
            attention.append(f"{stuck} outgoing mail(s) waiting for more than a day")
        report = self.league.stored_report(round_number, public=True)
        stats: dict[str, object] = {
            "needs_attention": attention,
            "failed_sends": [f"{r}: {e}" for r, e in failed],
            "bounces": [t for _a, k, t in outcome if k == "bounce"],
            "errors": [f"{a}: {t}" for a, k, t in outcome
                       if k == "human" and not t.startswith(("accepted", "internal_error"))],
            "mails_processed": len(outcome),
            "moves": moves,
            "evaluated_round": round_number,
            "players_in_round": sum(1 for t in report.get("teams", []) if not t.get("gm")),
        }
        if deleted:
            stats["teams_deleted"] = deleted
        return stats

    def send_digest(self, round_number: int) -> None:
        """Queue the game master's digest of an evaluated round (once)."""
        language = self.config.game.language
        rendered = render_digest(
            self.digest_stats(round_number), now=self.clock(),
            timezone=self.config.schedule.timezone, game_name=self.config.game.name,
            language=language, env=self.ingestor.environments.get(language),
        )
        with self.db.transaction() as conn:
            self._queue(conn, kind=MailKind.DIGEST, to=self.config.gm.address,
                        to_name=self.config.gm.name, rendered=rendered,
                        key=f"digest/round-{round_number}", round_number=round_number)

    def dry_run(self, *, force: bool = True) -> RenderedMail | None:
        """Evaluate a copy of the state and render its newsletter; changes nothing."""
        with tempfile.TemporaryDirectory(prefix="turnited-dry-") as tmp:
            copy = Path(tmp) / "turnited.sqlite3"
            with self.db.read() as conn:
                target = sqlite3.connect(copy)
                try:
                    conn.backup(target)
                finally:
                    target.close()
            state = Path(tmp)
            twin = App(
                _with_state(self.config, state), source=self.source, sender=self.sender,
                clock=self.clock, db=open_database(state), league_settings=self.league.settings,
            )
            result = twin._evaluate(self.clock(), force=force)
            if result is None:
                return None
            rendered = twin.render_round(result.round)
            twin.db.close()
            return rendered

    # -- reminders -------------------------------------------------------------

    def send_reminders(self, now: datetime | None = None, hours_before: int = 0) -> int:
        """Remind managers without a lineup, once per round and offset, each in
        their language (as ``publish``)."""
        now = now or self.clock()
        queued = 0
        with self.db.transaction() as conn:
            rnd = self.league.open_round(conn)
            if rnd is None or rnd.deadline <= now:
                return 0
            info = RoundInfo(season=rnd.season, round_in_season=rnd.round_in_season,
                             number=rnd.number)
            for target in self.league.managers_without_lineup(conn, rnd.number):
                cur = conn.execute(
                    "INSERT OR IGNORE INTO reminders_sent (round, hours_before, manager_id,"
                    " sent_at) VALUES (?, ?, ?, ?)",
                    (rnd.number, hours_before, target.manager_id, time_to_db(now)),
                )
                if cur.rowcount == 0:
                    continue  # reminded already for this round and offset
                language = target.language or self.config.newsletter.language
                rendered = render_reminder(
                    manager=target.display_name or target.address,
                    teams=list(target.teams),
                    round_info=info,
                    deadline=rnd.deadline,
                    now=now,
                    timezone=self.config.schedule.timezone,
                    language=language,
                    game_name=self.config.game.name,
                    game_address=self.config.mail.address,
                    env=self.ingestor.environments.get(language),
                )
                self._queue(
                    conn, kind=MailKind.REMINDER, to=target.address,
                    to_name=target.display_name, rendered=rendered,
                    key=f"reminder/round-{rnd.number}/{hours_before}h",
                    round_number=rnd.number,
                )
                queued += 1
        return queued

    def close(self) -> None:
        for part in (self.source, self.sender):
            try:
                part.close()
            except Exception:  # closing must never raise during shutdown
                log.exception("closing %r failed", part)
        self.db.close()


def _with_state(config: Config, state_dir: Path) -> Config:
    return dataclasses.replace(config, state_dir=state_dir)


def build_app(
    config: Config,
    *,
    clock: Callable[[], datetime] = utcnow,
    league_settings: LeagueSettings | None = None,
) -> App:
    """The App with the transports the configuration names."""
    if config.mail.transport == "imap":
        from bot.mail.imap_source import ImapMailbox
        from bot.mail.smtp_sender import SmtpSender

        source: Any = ImapMailbox(config.imap_settings())
        sender: Any = SmtpSender(config.smtp_settings())
    else:
        from bot.mail.maildir_transport import MaildirInbox, MaildirSender

        source = MaildirInbox(config.maildir_root, poll_seconds=config.mail.maildir.poll_seconds)
        sender = MaildirSender(config.maildir_root)
    return App(config, source=source, sender=sender, clock=clock,
               league_settings=league_settings)


__all__ = ["App", "PollReport", "build_app"]
