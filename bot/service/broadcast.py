"""The broadcast use case: an announcement from the game master to every
manager (and, with ``subscribers``, to ``newsletter.extra_recipients``),
queued through the outbox like every other mail.

The announcement is the game master's own text, sent as written: an
optional first line ``Subject: ...`` (or ``Betreff: ...``) gives the
subject, else the subject says it is a message from the game master.
Queuing the same text again changes nothing: the outbox key is the text's
SHA-256, so a repeated ``turnited broadcast FILE`` never mails twice.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.errors import N_, TurnitedError
from bot.mail.compose import MailKind
from bot.render.model import RenderedMail
from bot.service.context import Context
from bot.service.outgoing import queue_mail
from bot.storage import roster

if TYPE_CHECKING:
    from bot.render.words import Words

#: Header lines that give the announcement's subject (first line only).
SUBJECT_PREFIXES = ("subject:", "betreff:")
#: Longest announcement accepted (the mail limit of a reply is far smaller).
MAX_BYTES = 256 * 1024


class BroadcastError(TurnitedError, ValueError):
    """An announcement that cannot be sent as it is."""

    def __init__(self, message: str, /, **values: object) -> None:
        self.words = (message, values)
        super().__init__(message % values if values else message)


@dataclass(frozen=True, slots=True)
class Announcement:
    subject: str | None
    text: str
    #: The first 16 hex digits of the SHA-256 of the whole text (the outbox key).
    digest: str


@dataclass(frozen=True, slots=True)
class BroadcastReport:
    digest: str
    #: Recipients newly queued, and those queued by an earlier run already.
    queued: int
    already: int
    #: Banned managers left out.
    skipped_banned: int

    def lines(self, w: Words) -> list[str]:
        out = [w.ngettext("Announcement %(digest)s queued in the outbox for %(num)s "
                          "recipient, %(already)s had it already; the running bot sends it "
                          "(or: turnited send).",
                          "Announcement %(digest)s queued in the outbox for %(num)s "
                          "recipients, %(already)s had it already; the running bot sends it "
                          "(or: turnited send).",
                          self.queued, digest=self.digest, already=self.already)]
        if self.skipped_banned:
            out.append(w.ngettext("%(num)s banned manager left out.",
                                  "%(num)s banned managers left out.", self.skipped_banned))
        return out


def parse_announcement(raw: bytes) -> Announcement:
    """The announcement in ``raw`` (UTF-8 text). ``BroadcastError`` says what
    is wrong with it: empty, too long, not UTF-8, an empty subject."""
    if len(raw) > MAX_BYTES:
        raise BroadcastError(N_("the announcement has %(size)s bytes; at most %(most)s are "
                                "sent"), size=len(raw), most=MAX_BYTES)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise BroadcastError(N_("the announcement is not UTF-8 text (byte %(byte)s); save "
                                "it as UTF-8"), byte=exc.start) from None
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    subject: str | None = None
    first, _, rest = text.partition("\n")
    if first.strip().lower().startswith(SUBJECT_PREFIXES):
        subject = first.split(":", 1)[1].strip()
        if not subject:
            raise BroadcastError(N_("the first line %(line)s names no subject; write "
                                    "'Subject: ...' with the subject, or leave the line out"),
                                 line=repr(first.strip()))
        text = rest
    text = text.strip("\n")
    if not text.strip():
        raise BroadcastError(N_("the announcement has no text to send"))
    digest = hashlib.sha256(raw).hexdigest()[:16]
    return Announcement(subject, text.rstrip() + "\n", digest)


def default_subject(ctx: Context, language: str) -> str:
    """The subject of an announcement that gives none, in ``language``."""
    subjects = ctx.environments.get(language).get_template("subjects.j2").module
    return str(subjects.broadcast())  # type: ignore[attr-defined]


def broadcast(ctx: Context, announcement: Announcement, *, subscribers: bool = False
              ) -> BroadcastReport:
    """Queue ``announcement`` for every manager with a team (not banned) and,
    with ``subscribers``, every newsletter subscriber, each in their language
    for the default subject. Idempotent per announcement text."""
    s = ctx.settings
    now = ctx.clock()
    key = f"broadcast/{announcement.digest}"
    queued = already = banned = 0
    with ctx.db.transaction() as conn:
        targets: list[tuple[str, str | None, str]] = []
        for m in roster.roster(conn):
            if m.banned:
                banned += 1
                continue
            targets.append((m.address, m.display_name, m.language or s.newsletter_language))
        if subscribers:
            known = {a.lower() for a, _n, _l in targets}
            targets += [(a, None, s.newsletter_language) for a in s.extra_recipients
                        if a.lower() not in known]
        for address, name, language in targets:
            subject = announcement.subject or default_subject(ctx, language)
            rendered = RenderedMail(subject=f"{s.game_name}: {subject}",
                                    text=announcement.text, html=None, language=language)
            before = conn.total_changes
            queue_mail(conn, sender=s.sender, kind=MailKind.NEWSLETTER, to=address,
                       to_name=name, rendered=rendered, key=key, now=now)
            if conn.total_changes != before:
                queued += 1
            else:
                already += 1
    return BroadcastReport(announcement.digest, queued, already, banned)
