"""Notices to the game master, and the outbox drain that reports failures to them."""

from __future__ import annotations

from bot.mail.compose import MailKind
from bot.mail.transport import MailSender
from bot.render.model import RenderedMail
from bot.service import erasure
from bot.service.context import Context
from bot.service.drain import DrainReport, drain
from bot.service.outgoing import queue_mail
from bot.storage.values import time_to_db


def notify_gm(ctx: Context, subject: str, text: str) -> None:
    """A notice to the game master (queued like every other mail)."""
    s = ctx.settings
    rendered = RenderedMail(subject=f"{s.game_name}: {subject}", text=text, html=None,
                            language=s.language)
    now = ctx.clock()
    with ctx.db.transaction() as conn:
        queue_mail(conn, sender=s.sender, kind=MailKind.NOTICE, to=s.gm_address,
                   to_name=s.gm_name, rendered=rendered,
                   key=f"notice/{time_to_db(now)}/{subject}", now=ctx.clock())


def drain_and_report(
    ctx: Context, sender: MailSender, *, rate_per_minute: int | None,
    max_per_day: int | None = None,
) -> DrainReport:
    """Send what is due; a permanent failure needs a human, so the game master
    is told at once, not only in the next digest (failures of mail to the GM
    are not reported to the GM, which could only loop)."""
    s = ctx.settings
    report = drain(ctx.db, sender, now=ctx.clock, mail_from=s.sender.address,
                   rate_per_minute=rate_per_minute, max_per_day=max_per_day)
    if report.sent or report.failed:  # a farewell to an erased address may be done: forget it
        erasure.after_drain(ctx.db)
    failed = [(r, e) for r, e in report.failed if r.lower() != s.gm_address.lower()]
    if failed:
        notify_gm(ctx, "Mail konnte nicht zugestellt werden / mail could not be delivered",
                  "\n".join(f"{r}: {e}" for r, e in failed))
    return report
