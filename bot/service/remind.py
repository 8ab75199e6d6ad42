"""The remind use case: managers whose teams played recently but have no
lineup for the open round get one reminder per round and offset, each in
their language (``send_reminders``, the worker's); the game master's
``remind_missing`` reminds every team without a move, once a day, and says
what it did (``RemindReport``). A reminder also names the manager's other
teams whose lineup was sent for several rounds and until which round it
stands (RULES.md §12)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from bot.league import ahead
from bot.mail.compose import MailKind
from bot.render.model import RoundInfo
from bot.render.reminder import render_reminder
from bot.rules.lots import seed_commitment
from bot.service.context import Context
from bot.service.outgoing import queue_mail
from bot.storage import managers, reminders, roster, rounds
from bot.storage.rounds import RoundRow

if TYPE_CHECKING:
    from bot.render.words import Words


def _round_to_remind(ctx: Context, conn: sqlite3.Connection, now: datetime
                     ) -> tuple[RoundRow, RoundInfo, str | None] | None:
    """The open round if its deadline is still ahead, as the reminder shows
    it, and its seed's commitment (RULES.md §4: in every reminder)."""
    rnd = ctx.league.open_round(conn)
    if rnd is None or rnd.deadline <= now:
        return None
    info = RoundInfo(season=rnd.season, round_in_season=rnd.round_in_season, number=rnd.number)
    seed = rounds.committed_seed(conn, rnd.number)
    return rnd, info, seed_commitment(rnd.number, seed) if seed is not None else None


def send_reminders(ctx: Context, now: datetime, hours_before: int = 0) -> int:
    """Queue the reminders due at ``now`` for the offset ``hours_before``;
    returns how many were queued (0 when every manager was reminded already)."""
    s = ctx.settings
    queued = 0
    with ctx.db.transaction() as conn:
        open_round = _round_to_remind(ctx, conn, now)
        if open_round is None:
            return 0
        rnd, info, commitment = open_round
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
                ahead=ahead.standing(conn, target.manager_id, rnd.number),
            )
            queue_mail(
                conn, sender=s.sender, kind=MailKind.REMINDER, to=target.address,
                to_name=target.display_name, rendered=rendered,
                key=f"reminder/round-{rnd.number}/{hours_before}h", now=ctx.clock(),
                round_number=rnd.number,
            )
            queued += 1
    return queued


@dataclass(frozen=True, slots=True)
class RemindReport:
    #: The open round whose deadline is ahead (None: no round to remind of).
    round: int | None
    #: Reminders queued now (0: nobody is missing, or all were reminded today).
    queued: int

    def lines(self, w: Words) -> list[str]:
        if self.round is None:
            return [w._("No round is open for a lineup: nobody to remind.")]
        if not self.queued:
            return [w._("No reminder queued: every team has a lineup, or its manager was "
                        "reminded today already.")]
        return [w.ngettext("%(num)s reminder for round %(round)s queued in the outbox; the "
                           "running bot sends it (or: turnited send).",
                           "%(num)s reminders for round %(round)s queued in the outbox; the "
                           "running bot sends them (or: turnited send).",
                           self.queued, round=self.round)]


def remind_missing(ctx: Context) -> RemindReport:
    """The game master's ``remind --missing``: one reminder to every manager
    with a team that has no move (lineup or withdrawal) for the open round,
    whether or not it played recently (not a banned manager, nor one who
    unsubscribed). At most one such reminder per manager, round and day (a
    second run the same day queues nothing)."""
    s = ctx.settings
    now = ctx.clock()
    queued = 0
    with ctx.db.transaction() as conn:
        open_round = _round_to_remind(ctx, conn, now)
        if open_round is None:
            return RemindReport(None, 0)
        rnd, info, commitment = open_round
        by_manager: dict[int, list[roster.MissingTeam]] = {}
        for team in roster.teams_without_lineup(conn, rnd.number):
            by_manager.setdefault(team.manager_id, []).append(team)
        skipped = {m.id for m in roster.roster(conn) if m.banned} | managers.unsubscribed_ids(conn)
        day = now.astimezone(UTC).date().isoformat()
        for manager_id, teams in by_manager.items():
            if manager_id in skipped:
                continue
            first = teams[0]
            rendered = render_reminder(
                manager=first.display_name or first.address,
                teams=[t.team for t in teams],
                round_info=info, deadline=rnd.deadline, now=now, timezone=s.timezone,
                language=first.language or s.newsletter_language, game_name=s.game_name,
                game_address=s.game_address, env=ctx.environments, commitment=commitment,
                ahead=ahead.standing(conn, manager_id, rnd.number),
            )
            before = conn.total_changes
            queue_mail(
                conn, sender=s.sender, kind=MailKind.REMINDER, to=first.address,
                to_name=first.display_name, rendered=rendered,
                key=f"reminder/round-{rnd.number}/missing/{day}", now=ctx.clock(),
                round_number=rnd.number,
            )
            queued += conn.total_changes != before
    return RemindReport(rnd.number, queued)
