"""The remind use case: managers whose teams played recently but have no
lineup for the open round get one reminder per round and offset, each in
their language."""

from __future__ import annotations

from datetime import datetime

from bot.mail.compose import MailKind
from bot.render.model import RoundInfo
from bot.render.reminder import render_reminder
from bot.rules.lots import seed_commitment
from bot.service.context import Context
from bot.service.outgoing import queue_mail
from bot.storage import reminders, rounds


def send_reminders(ctx: Context, now: datetime, hours_before: int = 0) -> int:
    """Queue the reminders due at ``now`` for the offset ``hours_before``;
    returns how many were queued (0 when every manager was reminded already)."""
    s = ctx.settings
    queued = 0
    with ctx.db.transaction() as conn:
        rnd = ctx.league.open_round(conn)
        if rnd is None or rnd.deadline <= now:
            return 0
        info = RoundInfo(season=rnd.season, round_in_season=rnd.round_in_season,
                         number=rnd.number)
        seed = rounds.committed_seed(conn, rnd.number)  # RULES.md §4
        commitment = seed_commitment(rnd.number, seed) if seed is not None else None
        for target in ctx.league.managers_without_lineup(conn, rnd.number):
            if not reminders.mark_reminded(conn, rnd.number, hours_before, target.manager_id,
                                           now):
                continue  # reminded already for this round and offset
            language = target.language or s.newsletter_language
            rendered = render_reminder(
                manager=target.display_name or target.address,
                teams=list(target.teams),
                round_info=info,
                deadline=rnd.deadline,
                now=now,
                timezone=s.timezone,
                language=language,
                game_name=s.game_name,
                game_address=s.game_address,
                env=ctx.environments,
                commitment=commitment,
            )
            queue_mail(
                conn, sender=s.sender, kind=MailKind.REMINDER, to=target.address,
                to_name=target.display_name, rendered=rendered,
                key=f"reminder/round-{rnd.number}/{hours_before}h", now=ctx.clock(),
                round_number=rnd.number,
            )
            queued += 1
    return queued
