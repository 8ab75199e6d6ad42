"""The publish use case: an evaluated round -> its newsletter in each language
needed, the archive, one personal copy per recipient, and the game master's digest.

The common part of the newsletter is rendered once per language; each
manager's copy gets their personal block (RULES.md §8, ``bot.render.personal``)
spliced in, so the cost per recipient is the block, not the newsletter.
Subscribers without a team get the common part only.

Everything is idempotent: the Message-IDs depend only on the round and the
recipient (not on the language or the personal part), so publishing again
after a crash never queues a second copy, and ``unpublished_rounds`` finds
what a crash left unqueued.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from datetime import timedelta

from bot.mail.compose import MailKind
from bot.render.archive import write_archive
from bot.render.digest import render_digest
from bot.render.model import RenderedMail, RoundInfo
from bot.render.newsletter import render_newsletter
from bot.render.personal import TeamFacts, Upcoming, personal_block, render_personal, splice
from bot.render.rules_doc import write_rules_page
from bot.render.site import SiteData, write_site
from bot.rules.lots import seed_commitment
from bot.rules.report import RoundReport
from bot.service.context import Context
from bot.service.outgoing import queue_mail
from bot.storage import history, ledger, outbox, results, rounds, teams
from bot.storage import moves as move_rows
from bot.storage.ledger import InboundKind, Outcome


def round_key(kind: str, conn: sqlite3.Connection, round_number: int) -> str:
    """The outbox key of a round's newsletter or digest: a corrected round
    (evaluated again after a rollback) gets new Message-IDs, so the correction
    reaches those who got the first one."""
    rnd = rounds.round_by_number(conn, round_number)
    corrects = rnd.corrects if rnd else 0
    return f"{kind}/round-{round_number}" + (f"/correction-{corrects}" if corrects else "")


def unpublished_rounds(ctx: Context, kind: str = MailKind.NEWSLETTER) -> list[int]:
    """Evaluated rounds whose newsletters (or digest) are not queued (a crash
    came between the evaluation and the queueing)."""
    with ctx.db.read() as conn:
        return outbox.unqueued_rounds(conn, kind)


def render_round(
    ctx: Context, round_number: int, language: str | None = None, *,
    conn: sqlite3.Connection | None = None,
    public: RoundReport | None = None,
) -> RenderedMail:
    """The newsletter of an evaluated round in ``language`` (``public``: the
    round's public report, if the caller has read it already)."""
    s = ctx.settings
    language = language or s.newsletter_language
    if public is None:
        public = RoundReport.from_json(ctx.league.stored_report(round_number, public=True))
    own = conn is None
    conn = conn or ctx.db.connect()
    try:
        rnd = rounds.round_by_number(conn, round_number)
        nxt = rounds.round_by_number(conn, round_number + 1)
        wp = ctx.league.wp_table(conn, round_number)
        psz = ctx.league.psz_table(conn, round_number)
        ageing = history.ageing_by_name(conn, round_number)
        next_seed = rounds.committed_seed(conn, round_number + 1)
    finally:
        if own:
            conn.close()
    if rnd is None:
        raise LookupError(f"there is no round {round_number} to render")
    return render_newsletter(
        public,
        round_info=RoundInfo(season=rnd.season, round_in_season=rnd.round_in_season,
                             number=round_number, corrects=rnd.corrects),
        wp_table=wp,
        psz_table=psz,
        next_deadline=nxt.deadline if nxt else None,
        timezone=s.timezone,
        language=language,
        game_name=s.game_name,
        game_address=s.game_address,
        env=ctx.environments,
        ageing=ageing,
        reveal_seed=True,
        next_commitment=(seed_commitment(round_number + 1, next_seed)
                         if next_seed is not None else None),
    )


def team_facts(conn: sqlite3.Connection, round_number: int) -> dict[int, list[TeamFacts]]:
    """Manager id -> what the league knows of each of their teams around
    ``round_number`` (WP and PSZ before and after, the ageing), for the
    personal blocks. A team with no WP or PSZ yet (registered, never played)
    is left out."""
    played = history.entries_of_round(conn, round_number)
    aged = history.ageing_of_round(conn, round_number)
    out: dict[int, list[TeamFacts]] = {}
    for manager_id, owned in history.teams_of_managers(conn, round_number).items():
        facts = []
        for team in owned:
            entry = played.get(team.team_id)
            if entry is not None:
                wp_before, after_gain = entry.wp_before, entry.wp_after_gain
                psz_before, psz_after = entry.psz_before, entry.psz_after
            else:
                wp = history.wp_just_before(conn, team.team_id, round_number)
                psz = history.psz_just_before(conn, team.team_id, round_number)
                if wp is None or psz is None:
                    continue
                wp_before = after_gain = wp
                psz_before = psz_after = psz
            ageing = aged.get(team.team_id)
            facts.append(TeamFacts(
                name=team.name, wp_before=wp_before, wp_after_gain=after_gain,
                wp_after=ageing.after if ageing else after_gain,
                psz_before=psz_before, psz_after=psz_after, aged=ageing is not None,
            ))
        if facts:
            out[manager_id] = facts
    return out


def publish(ctx: Context, round_number: int) -> int:
    """Archive a round's newsletter (in the configured language), rebuild the
    archive site, and queue one copy per recipient in the recipient's
    language: a manager's is the one of their latest accepted mail, a
    subscriber's (``newsletter.extra_recipients``) the configured one. Each
    language's common part is rendered once; a manager's copy opens with
    their personal block. Returns the number of copies queued."""
    s = ctx.settings
    default = s.newsletter_language
    stored = ctx.league.stored_report(round_number, public=True)
    public = RoundReport.from_json(stored)
    rendered = {default: render_round(ctx, round_number, default, public=public)}
    # The stored JSON is archived as it is (byte for byte what the round stored).
    write_archive(s.archive_dir, round_number, splice(rendered[default], None), stored,
                  game_name=s.game_name, env=ctx.environments)
    write_site_now(ctx)
    queued = 0
    with ctx.db.transaction() as conn:
        wp_rows = ctx.league.wp_table(conn, round_number)
        facts = team_facts(conn, round_number)
        nxt = rounds.round_by_number(conn, round_number + 1)
        upcoming = Upcoming(round_number + 1, nxt.deadline if nxt else None, s.timezone)
        # (address, display name, language, List-Unsubscribe URI, manager id)
        copies: list[tuple[str, str | None, str, str | None, int | None]] = [
            (r.address, r.display_name, r.language or default, None, r.manager_id)
            for r in ctx.league.recipients(conn)
        ]
        known = {address.lower() for address, *_ in copies}
        copies += [
            (address, None, default, f"mailto:{s.gm_address}?subject=unsubscribe%20{address}",
             None)
            for address in s.extra_recipients
            if address.lower() not in known
        ]
        for address, name, language, unsubscribe, manager_id in copies:
            if language not in rendered:
                rendered[language] = render_round(ctx, round_number, language, conn=conn,
                                                  public=public)
            own = facts.get(manager_id) if manager_id is not None else None
            part = (render_personal(personal_block(public, own, wp_rows), language=language,
                                    env=ctx.environments, upcoming=upcoming) if own else None)
            queue_mail(
                conn, sender=s.sender, kind=MailKind.NEWSLETTER, to=address, to_name=name,
                rendered=splice(rendered[language], part),
                key=round_key("newsletter", conn, round_number),
                now=ctx.clock(), round_number=round_number, list_unsubscribe=unsubscribe,
            )
            queued += 1
    return queued


def write_site_now(ctx: Context) -> None:
    """Rebuild the archive site (index, hall of fame, team pages) from the
    stored public reports and the league's history."""
    s = ctx.settings
    with ctx.db.read() as conn:
        data = site_data(conn)
    write_site(s.archive_dir, data, game_name=s.game_name, language=s.newsletter_language,
               timezone=s.timezone, env=ctx.environments)
    write_rules_page(s.archive_dir, game_name=s.game_name, language=s.newsletter_language,
                     env=ctx.environments)


def site_data(conn: sqlite3.Connection) -> SiteData:
    """Everything the archive site shows, read in one go (no player lineup:
    only the public reports and the WP/PSZ history)."""
    reports = {}
    for number in results.evaluated_rounds(conn):
        text = results.stored_report(conn, number, public=True)
        if text is not None:
            reports[number] = RoundReport.from_json(json.loads(text))
    return SiteData(
        rounds=tuple(history.evaluated_rounds(conn)),
        reports=reports,
        teams=tuple(history.teams(conn)),
        entries=tuple(history.all_entries(conn)),
        ageing=tuple(history.all_ageing(conn)),
    )


def digest_stats(ctx: Context, round_number: int) -> dict[str, object]:
    """What happened between the previous evaluation and this one, read from
    the ledger and the outbox (so a restart of the worker loses nothing)."""
    with ctx.db.read() as conn:
        by_number = rounds.evaluated_at(conn, (round_number - 1, round_number))
        start = by_number.get(round_number - 1) or ""
        end = by_number.get(round_number) or "9999"
        outcome = ledger.received_between(conn, start, end)
        moves = move_rows.count_received(conn, start, end)
        failed = outbox.failed_since(conn, start)
        stuck = outbox.waiting_since(conn, ctx.clock() - timedelta(days=1))
        deleted = teams.deleted_in(conn, round_number)
        quarantined = ledger.quarantined_between(conn, start, end)
    attention = [f"{a}: {t}" for a, _k, t in outcome if t.startswith(Outcome.INTERNAL_ERROR)]
    if stuck:
        attention.append(f"{stuck} outgoing mail(s) waiting for more than a day")
    if quarantined:
        attention.append(f"{len(quarantined)} mail(s) quarantined: their handling failed "
                         "every attempt (see the quarantine list)")
    report = RoundReport.from_json(ctx.league.stored_report(round_number, public=True))
    stats: dict[str, object] = {
        "needs_attention": attention,
        "failed_sends": [f"{r}: {e}" for r, e in failed],
        "bounces": [t for _a, k, t in outcome if k == InboundKind.BOUNCE],
        "errors": [f"{a}: {t}" for a, k, t in outcome
                   if k == InboundKind.HUMAN
                   and not t.startswith((Outcome.ACCEPTED, Outcome.INTERNAL_ERROR,
                                         Outcome.FORGED, Outcome.RETRY, Outcome.QUARANTINED,
                                         Outcome.PASSWORD_RESET))],
        "mails_processed": len(outcome),
        "moves": moves,
        "evaluated_round": round_number,
        "players_in_round": len(report.players),
    }
    if deleted:
        stats["teams_deleted"] = deleted
    if quarantined:
        stats["quarantined"] = [f"{a}: {subject!r}: {t}" for a, subject, t in quarantined]
    forged = [f"{a}: {t}" for a, _k, t in outcome if t.startswith(Outcome.FORGED)]
    if forged:
        stats["forged"] = forged
    return stats


def send_digest(ctx: Context, round_number: int,
                extra: dict[str, object] | None = None) -> None:
    """Queue the game master's digest of an evaluated round (once); ``extra``
    entries (e.g. the deadline warning) are added to its stats."""
    s = ctx.settings
    rendered = render_digest(
        {**digest_stats(ctx, round_number), **(extra or {})}, now=ctx.clock(),
        timezone=s.timezone,
        game_name=s.game_name, language=s.language, env=ctx.environments,
    )
    with ctx.db.transaction() as conn:
        queue_mail(conn, sender=s.sender, kind=MailKind.DIGEST, to=s.gm_address,
                   to_name=s.gm_name, rendered=rendered,
                   key=round_key("digest", conn, round_number),
                   now=ctx.clock(), round_number=round_number)


def catch_up(ctx: Context, evaluate_due: Callable[[], int | None]) -> list[int]:
    """Queue missing newsletters and digests, then evaluate a missed deadline
    once (``evaluate_due()`` returns the round it evaluated, or None)."""
    for number in unpublished_rounds(ctx):
        publish(ctx, number)
    for number in unpublished_rounds(ctx, MailKind.DIGEST):
        send_digest(ctx, number)
    done = evaluate_due()
    return [done] if done is not None else []


__all__ = ["catch_up", "digest_stats", "publish", "render_round", "send_digest",
           "unpublished_rounds"]
