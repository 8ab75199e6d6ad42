"""The application: wires configuration, storage, the league, the transports
and the use cases (``bot.service``) together; nothing else. The settings each
layer is handed are mapped from the configuration in ``bot.wiring``.

The worker (``bot.worker``), the CLI and the demo all drive an ``App``; each
method is one use case and is safe to call again after a crash (every step
is idempotent or guarded by the ledger and the outbox's stable Message-IDs).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from bot import wiring
from bot.config import Config
from bot.league.news import EvaluationResult
from bot.league.service import League
from bot.league.settings import LeagueSettings
from bot.mail.transport import MailSender, MailSource
from bot.render.model import RenderedMail
from bot.schedule import DeadlinePlan
from bot.service import deadlines, notices, publish, remind, retention, sending_budget
from bot.service.context import Context
from bot.service.deadlines import deadline_outlook
from bot.service.drain import DrainReport
from bot.service.inbound import Ingestor, PollReport, poll
from bot.service.preview import PreviewResult, preview
from bot.storage.db import Database, open_database

log = logging.getLogger(__name__)

#: Mails fetched and then marked processed (moved) with one command.
POLL_BATCH = 500


def utcnow() -> datetime:
    return datetime.now(UTC)


class App:
    """The game master's service over one state directory."""

    def __init__(self, config: Config, *, source: MailSource, sender: MailSender,
                 clock: Callable[[], datetime] = utcnow, db: Database | None = None,
                 league_settings: LeagueSettings | None = None) -> None:
        self.config, self.clock, self.source, self.sender = config, clock, source, sender
        self.db = db or open_database(config.state_dir)
        self.league = League(self.db, league_settings or wiring.league_settings(config))
        self.environments = wiring.render_cache(config)
        self.services: Context = wiring.service_context(
            config, self.db, clock=clock, league=self.league, environments=self.environments)
        self.ingestor = Ingestor(self.services, wiring.ingest_settings(config))
        self.plan: DeadlinePlan = self.services.settings.deadline_plan

    def ensure_started(self) -> None:
        """Open round 1 (with the first planned deadline) in an empty league."""
        now = self.clock()
        deadline = self.plan.next_deadline(now)
        if deadline is None and self.open_round_deadline() is not None:
            return
        if deadline is None:
            raise ValueError("schedule.deadlines has no deadline after now: add a future "
                             "date-time or use schedule.deadlines.cron")
        self.league.ensure_first_round(now, deadline)

    def open_round_deadline(self) -> datetime | None:
        with self.db.read() as conn:
            rnd = self.league.open_round(conn)
        return rnd.deadline if rnd else None

    def set_deadline(self, deadline: datetime) -> None:
        deadlines.set_deadline(self.services, deadline)

    def poll_once(self) -> PollReport:
        """Read the inbox up to now; raises ``TransportError`` when it cannot."""
        return poll(self.source, self.ingestor, batch=POLL_BATCH)

    def wait_for_mail(self, timeout: float) -> bool:
        return self.source.wait_for_mail(timeout)

    def drain_outbox(self) -> DrainReport:
        smtp = self.config.mail.transport == "imap"
        return notices.drain_and_report(
            self.services, self.sender,
            rate_per_minute=self.config.mail.smtp.rate_per_minute if smtp else None,
            max_per_day=self.config.mail.smtp.max_per_day if smtp else None,
        )

    def notify_gm(self, subject: str, text: str) -> None:  # a notice, queued like all mail
        notices.notify_gm(self.services, subject, text)

    def evaluate_due(self, now: datetime | None = None, *, force: bool = False) -> int | None:
        """Evaluate the open round if its deadline passed (or ``force``), then queue
        the newsletters and the GM digest. Returns the round evaluated. The
        evaluation's result goes to publishing as it is: nothing is read back."""
        result = self._evaluate(now or self.clock(), force=force)
        if result is None:
            return None
        publish.publish(self.services, result)
        self.send_digest(result.round)
        self.apply_retention(now or self.clock())
        return result.round

    def apply_retention(self, now: datetime) -> retention.Pruned:
        """Remove what the state keeps only for a while (``retention`` in the config)."""
        kept = self.config.retention
        return retention.apply_retention(self.db, self.config.state_dir / "spool",
                                         spool_days=kept.spool_days,
                                         outbox_days=kept.outbox_days, now=now)

    def _evaluate(self, now: datetime, *, force: bool) -> EvaluationResult | None:
        """The league's evaluation, with the next round's deadline from the plan
        (the first planned one after now and after the open round's deadline)."""
        current = self.open_round_deadline()
        after = max(now, current) if current else now
        return self.league.evaluate_due(now, next_deadline=self.plan.next_deadline(after),
                                        force=force)

    def unpublished_rounds(self, kind: str = "newsletter") -> list[int]:
        return publish.unpublished_rounds(self.services, kind)

    def catch_up(self) -> list[int]:
        return publish.catch_up(self.services, self.evaluate_due)

    def render_round(self, round_number: int, language: str | None = None, **kw: Any
                     ) -> RenderedMail:
        return publish.render_round(self.services, round_number, language, **kw)

    def publish(self, round_number: int) -> int:
        """Publish a stored round again (read back from storage; queues no copy twice)."""
        return publish.publish_stored(self.services, round_number)

    def digest_stats(self, round_number: int) -> dict[str, object]:
        return publish.digest_stats(self.services, round_number)

    def send_digest(self, round_number: int) -> None:
        """The round report, warning a round ahead when the deadlines run out."""
        current = self.open_round_deadline()
        outlook = deadline_outlook(self.plan, current or self.clock())
        extra: dict[str, object] = {}
        if outlook.running_out:
            extra = {"deadlines_left": outlook.left, "last_deadline": outlook.last}
        smtp = self.config.mail.transport == "imap"
        deferral = sending_budget.outlook(self.db, self.clock(), self.config.mail.smtp.max_per_day
                                          if smtp else None, also_personal=1)
        if deferral is not None:  # the newsletters wait for the daily sending limit
            extra["deferred_mail"] = deferral.as_digest()
        publish.send_digest(self.services, round_number, extra)

    def send_reminders(self, now: datetime | None = None, hours_before: int = 0) -> int:
        return remind.send_reminders(self.services, now or self.clock(), hours_before)

    def dry_run(self) -> PreviewResult | None:
        """The preview: the open round evaluated on a copy of the state, its
        newsletter rendered; changes nothing (``bot.service.preview``)."""
        return preview(self.services)

    def close(self) -> None:
        for part in (self.source, self.sender, self.db):
            try:
                part.close()
            except Exception:  # closing must never raise during shutdown
                log.exception("closing %r failed", part)


def build_app(config: Config, *, clock: Callable[[], datetime] = utcnow,
              league_settings: LeagueSettings | None = None) -> App:
    """The App with the transports the configuration names."""
    source: Any
    sender: Any
    if config.mail.transport == "imap":
        from bot.mail.imap_source import ImapMailbox
        from bot.mail.smtp_sender import SmtpSender

        source, sender = ImapMailbox(config.imap_settings()), SmtpSender(config.smtp_settings())
    else:
        from bot.mail.maildir_transport import MaildirInbox, MaildirSender

        source = MaildirInbox(config.maildir_root, poll_seconds=config.mail.maildir.poll_seconds)
        sender = MaildirSender(config.maildir_root)
    return App(config, source=source, sender=sender, clock=clock,
               league_settings=league_settings)


__all__ = ["App", "PollReport", "build_app"]
