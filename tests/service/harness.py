"""A league on a real SQLite file, a Maildir transport and the ingest pipeline."""

from __future__ import annotations

import dataclasses
import email
from datetime import UTC, datetime, timedelta
from email import policy
from pathlib import Path

from bot.config import Config
from bot.league.settings import LeagueSettings
from bot.mail.maildir_transport import MaildirInbox, MaildirSender, deliver, read_sent
from bot.service.drain import drain
from bot.service.inbound import Ingestor
from bot.service.settings import IngestSettings
from bot.wiring import ingest_settings
from tests.support.clock import FakeClock
from tests.support.context import make_context
from tests.support.league import make_league
from tests.support.mails import player_mail

BOT = "bot@turnited.example"
GM = "gm@turnited.example"
START = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


class Game:
    """Everything a pipeline test needs, on real files under ``tmp_path``."""

    def __init__(self, root: Path, **settings: object) -> None:
        self.root = root
        self.clock = FakeClock(START)
        self.league = make_league(root, LeagueSettings(password_cost=2**4, simulations=0),
                                  start=START, deadline=START + timedelta(days=5))
        self.db = self.league.db
        # the App's settings for a configuration with the bot's address, then the test's
        config = Config.from_mapping({"mail": {"address": BOT}}, root)
        self.settings: IngestSettings = dataclasses.replace(ingest_settings(config), **settings)
        #: The deadlines after the first one: Sundays at 13:00 in Berlin, as the first.
        self.context = make_context(self.league, self.clock, root, bot_address=BOT,
                                    cron="0 13 * * SUN")
        self.plan = self.context.settings.deadline_plan
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



    # -- what players and the game master read, what is stored -----------------

    def replies(self) -> list[tuple[str, str]]:
        """(recipient, plain text) of every mail sent since the last call
        (the outbox drained to the Maildir first)."""
        return [(to, text) for to, text, _ in self.sent()]

    def sent(self) -> list[tuple[str, str, email.message.EmailMessage]]:
        """(recipient, plain text, message) of every mail sent since the last call."""
        every = self.flush()
        seen, self._seen = getattr(self, "_seen", 0), len(every)
        out = []
        for mail in every[seen:]:
            msg = email.message_from_bytes(mail.raw, policy=policy.default)
            body = msg.get_body(("plain",))
            out.append((msg["To"].addresses[0].addr_spec,
                        body.get_content() if body else "", msg))
        return out

    def reply(self, sender: str, body: str, subject: str = "Aufstellung", **headers: str) -> str:
        """Send one mail and return the text of the one reply to it (the
        sender's; mails to others, e.g. a forward to the game master, stay
        for ``sent``/``replies``)."""
        self.send(self.mail(sender, body, subject, **headers))
        texts = [text for to, text, _ in self.sent() if to in sender]
        assert len(texts) == 1, texts
        return texts[0]

    def register(self, sender: str, *teams: str) -> str:
        """A manager with ``teams`` (each with a lineup), made by mail as a
        player would; returns his password."""
        body = "\n".join(f"Neues Team: {t}\n{t.split(' / ')[0]}: 10-10-15-15-20"
                         for t in teams)
        text = self.reply(sender, body, subject="Anmeldung")
        line = next(ln for ln in text.splitlines() if ln.strip().startswith("Passwort:"))
        return line.split(":", 1)[1].strip()

    def lineups(self, round_number: int = 1) -> dict[str, str | None]:
        """Team name -> its latest lineup for the round ("withdrawn" / None: none)."""
        with self.db.read() as conn:
            rows = conn.execute(
                "SELECT t.name, (SELECT COALESCE(m.lineup, 'withdrawn') FROM moves m"
                " WHERE m.team_id = t.id AND m.round = ? ORDER BY m.id DESC LIMIT 1)"
                " FROM teams t WHERE t.deleted_round IS NULL ORDER BY t.id",
                (round_number,),
            )
            return {name: lineup for name, lineup in rows}
