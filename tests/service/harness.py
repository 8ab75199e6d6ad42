"""A league on a real SQLite file, a Maildir transport and the ingest pipeline."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.league.settings import LeagueSettings
from bot.mail.maildir_transport import MaildirInbox, MaildirSender, deliver, read_sent
from bot.schedule import DeadlinePlan, ScheduleSettings
from bot.service.drain import drain
from bot.service.inbound import Ingestor, IngestSettings
from tests.support.clock import FakeClock
from tests.support.context import make_context
from tests.support.league import make_league
from tests.support.mails import player_mail

BOT = "bot@turnited.example"
START = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


class Game:
    """Everything a pipeline test needs, on real files under ``tmp_path``."""

    def __init__(self, root: Path, **settings: object) -> None:
        self.root = root
        self.clock = FakeClock(START)
        self.league = make_league(root, LeagueSettings(password_cost=2**4, simulations=0),
                                  start=START, deadline=START + timedelta(days=5))
        self.db = self.league.db
        self.settings = IngestSettings(
            bot_address=BOT, spool_dir=root / "state" / "spool", **settings  # type: ignore[arg-type]
        )
        #: The deadlines after the first one: Sundays at 13:00 in Berlin, as the first.
        self.plan = DeadlinePlan(ScheduleSettings(cron="0 13 * * SUN"))
        self.context = make_context(self.league, self.clock, root, bot_address=BOT,
                                    planned_deadline=self.plan.next_deadline)
        self.ingestor = Ingestor(self.context, self.settings)
        self.inbox = MaildirInbox(root / "state" / "maildir")
        self.sender = MaildirSender(root / "state" / "maildir")

    def mail(self, sender: str, body: str, subject: str = "Aufstellung", **headers: str) -> bytes:
        return player_mail(sender, body, to=BOT, when=self.clock.now, subject=subject, **headers)

    def send(self, raw: bytes) -> list:
        deliver(self.inbox.inbox, raw)
        return self.poll()

    def poll(self) -> list:
        """Each mail of the inbox ingested on its own, then marked as ``poll``
        does: a mail to retry stays, a quarantined one moves to quarantine."""
        mails = self.inbox.fetch_new(max_size=self.settings.max_mail_bytes)
        results = [self.ingestor.ingest(mail) for mail in mails]
        self.inbox.mark_processed_many(
            [m for m, r in zip(mails, results, strict=True) if not (r.retry or r.quarantined)]
        )
        for mail, result in zip(mails, results, strict=True):
            if result.quarantined:
                self.inbox.quarantine(mail)
        return results

    def flush(self) -> list:
        drain(self.db, self.sender, now=self.clock, mail_from=BOT)
        return read_sent(self.root / "state" / "maildir")


