"""The publish use case: an evaluated round -> its newsletter in each language
needed, the archive, one personal copy per recipient, and the game master's digest.

Publishing takes the round's ``RoundNews`` (``bot.league.news``) as the
evaluation hands it over (``publish``): the public report is the typed one
the evaluation played, never its stored JSON read back. A stored round is
read from storage only when it is published again (``publish_stored``: the
game master's ``publish``, the catch-up after a crash between evaluation
and publishing), its report parsed once. The archive site reads the
league's history, not the reports (``site_data``).

The common part of the newsletter is rendered once per language; each
manager's copy gets their personal block (RULES.md §8, ``bot.render.personal``)
spliced in, so the cost per recipient is the block, not the newsletter.
Subscribers without a team get the common part only.

Everything is idempotent: the Message-IDs depend only on the round (and
how often it was corrected) and the recipient (not on the language or the
personal part), so publishing again after a crash never queues a second
copy, and ``unpublished_rounds`` finds what a crash left unqueued.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import timedelta

from bot.league.errors import UnknownRound
from bot.league.news import RoundNews
from bot.mail.compose import MailKind
from bot.render.archive import write_archive
from bot.render.digest import render_digest
from bot.render.model import RenderedMail, RoundInfo
from bot.render.newsletter import render_newsletter
from bot.render.notices import preview_lines
from bot.render.personal import (
    PersonalPart,
    Upcoming,
    personal_block,
    render_personal,
    splice,
)
from bot.render.rules_doc import write_rules_page
from bot.render.site import SiteData, write_site
from bot.render.words import Words
from bot.service.context import Context
from bot.service.home import home_data
from bot.service.outgoing import queue_mail
from bot.storage import history, ledger, outbox, previews, results, rounds, teams
from bot.storage import moves as move_rows
from bot.storage.ledger import InboundKind, Outcome

#: A human's mail with another ledger code is listed among the digest's errors.
NOT_ERRORS = frozenset({Outcome.ACCEPTED, Outcome.INTERNAL_ERROR, Outcome.FORGED, Outcome.RETRY,
                        Outcome.QUARANTINED, Outcome.PASSWORD_RESET, Outcome.GM_REFUSED})


def round_key(kind: str, round_number: int, corrects: int = 0) -> str:
    """The outbox key of a round's newsletter or digest: a corrected round
    (evaluated again after a rollback, ``corrects`` times) gets new
    Message-IDs, so the correction reaches those who got the first one."""
    return f"{kind}/round-{round_number}" + (f"/correction-{corrects}" if corrects else "")


def unpublished_rounds(ctx: Context, kind: str = MailKind.NEWSLETTER) -> list[int]:
    """Evaluated rounds whose newsletters (or digest) are not queued (a crash
    came between the evaluation and the queueing)."""
    with ctx.db.read() as conn:
        return outbox.unqueued_rounds(conn, kind)


def render_round(
    ctx: Context, round_number: int, language: str | None = None, *,
    news: RoundNews | None = None,
) -> RenderedMail:
    """The newsletter of an evaluated round in ``language`` (``news``: the
    round as the evaluation handed it over; without it, the stored round is
    read back)."""
    s = ctx.settings
    language = language or s.newsletter_language
    if news is None:
        news = ctx.league.stored_news(round_number)
    return render_newsletter(
        news.public,
        round_info=RoundInfo(season=news.season, round_in_season=news.round_in_season,
                             number=news.round, corrects=news.corrects),
        wp_table=news.wp_table,
        psz_table=news.psz_table,
        next_deadline=news.next_deadline,
        timezone=s.timezone,
        language=language,
        game_name=s.game_name,
        game_address=s.game_address,
        env=ctx.environments,
        ageing=news.ageing,
        reveal_seed=True,
        next_commitment=news.next_commitment,
    )


def publish(ctx: Context, news: RoundNews) -> int:
    """Archive a round's newsletter (in the configured language), rebuild the
    archive site, and queue one copy per recipient in the recipient's
    language: a manager's is the one of their latest accepted mail, a
    subscriber's (``newsletter.extra_recipients``) the configured one. Each
    language's common part is rendered once; a manager's copy opens with
    their personal block. Returns the number of copies queued."""
    s = ctx.settings
    default = s.newsletter_language
    number = news.round
    rendered = {default: render_round(ctx, number, default, news=news)}
    write_archive(s.archive_dir, number, splice(rendered[default], None), news.public,
                  game_name=s.game_name, env=ctx.environments)
    write_site_now(ctx)
    # (address, display name, language, List-Unsubscribe URI, manager id)
    copies: list[tuple[str, str | None, str, str | None, int | None]] = [
        (r.address, r.display_name, r.language or default, None, r.manager_id)
        for r in news.recipients
    ]
    known = {address.lower() for address, *_ in copies}
    copies += [
        (address, None, default, f"mailto:{s.gm_address}?subject=unsubscribe%20{address}", None)
        for address in s.extra_recipients
        if address.lower() not in known
    ]
    key = round_key(MailKind.NEWSLETTER, number, news.corrects)
    queued = 0
    with ctx.db.transaction() as conn:
        for address, name, language, unsubscribe, manager_id in copies:
            if language not in rendered:
                rendered[language] = render_round(ctx, number, language, news=news)
            part = personal_part(ctx, news, manager_id, language)
            queue_mail(
                conn, sender=s.sender, kind=MailKind.NEWSLETTER, to=address, to_name=name,
                rendered=splice(rendered[language], part), key=key,
                now=ctx.clock(), round_number=number, list_unsubscribe=unsubscribe,
            )
            queued += 1
    return queued


def personal_part(ctx: Context, news: RoundNews, manager_id: int | None,
                  language: str) -> PersonalPart | None:
    """The block a manager's copy of the newsletter opens with (None for a
    subscriber, or a manager whose teams have no WP yet): his teams, what they
    may spend next round and its deadline, then how they did."""
    own = news.facts.get(manager_id) if manager_id is not None else None
    if not own:
        return None
    upcoming = Upcoming(news.next_round, news.next_deadline, ctx.settings.timezone)
    return render_personal(personal_block(news.public, own, news.wp_table), language=language,
                           env=ctx.environments, upcoming=upcoming)


def publish_stored(ctx: Context, round_number: int) -> int:
    """``publish`` a round evaluated earlier, read back from storage."""
    return publish(ctx, ctx.league.stored_news(round_number))


def write_site_now(ctx: Context) -> None:
    """Rebuild the archive site (the home page as its index, hall of fame,
    team pages, feed, calendar, JSON) from the stored round summaries and the
    league's history."""
    s = ctx.settings
    with ctx.db.read() as conn:
        data = site_data(conn)
        home = home_data(ctx, conn)
    write_site(s.archive_dir, data, game_name=s.game_name, language=s.newsletter_language,
               timezone=s.timezone, env=ctx.environments, home=home)
    write_rules_page(s.archive_dir, game_name=s.game_name, language=s.newsletter_language,
                     env=ctx.environments)


def site_data(conn: sqlite3.Connection) -> SiteData:
    """Everything the archive site shows, read in one go: the evaluated rounds
    with their winners and field sizes, the teams, their rounds, the ageing
    (no stored report is parsed, no player lineup read)."""
    return SiteData(
        rounds=tuple(history.evaluated_rounds(conn)),
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
        lines = ledger.received_between(conn, start, end)
        moves = move_rows.count_received(conn, start, end)
        failed = outbox.failed_since(conn, start)
        stuck = outbox.waiting_since(conn, ctx.clock() - timedelta(days=1))
        deleted = teams.deleted_in(conn, round_number)
        quarantined = ledger.quarantined_between(conn, start, end)
        summary = results.round_summary(conn, round_number)
        previewed = previews.of_round(conn, round_number)
    attention = [f"{m.sender}: {m.text}" for m in lines if m.code == Outcome.INTERNAL_ERROR]
    if stuck:
        attention.append(f"{stuck} outgoing mail(s) waiting for more than a day")
    if quarantined:
        attention.append(f"{len(quarantined)} mail(s) quarantined: their handling failed "
                         "every attempt (see the quarantine list)")
    if summary is None:
        raise UnknownRound(round_number, "has been evaluated")
    stats: dict[str, object] = {
        "needs_attention": attention,
        "failed_sends": [f"{r}: {e}" for r, e in failed],
        "bounces": [m.text for m in lines if m.kind == InboundKind.BOUNCE],
        "errors": [f"{m.sender}: {m.text}" for m in lines
                   if m.kind == InboundKind.HUMAN and m.code not in NOT_ERRORS],
        "mails_processed": len(lines),
        "moves": moves,
        "evaluated_round": round_number,
        "players_in_round": summary.players,
    }
    if deleted:
        stats["teams_deleted"] = deleted
    if quarantined:
        stats["quarantined"] = [f"{a}: {subject!r}: {t}" for a, subject, t in quarantined]
    forged = [f"{m.sender}: {m.text}" for m in lines if m.code == Outcome.FORGED]
    if forged:
        stats["forged"] = forged
    refused = [f"{m.sender}: {m.text}" for m in lines if m.code == Outcome.GM_REFUSED]
    if refused:  # RULES.md §13: every refused attempt of a game master's mail
        stats["gm_refused"] = refused
    if previewed:  # RULES.md §13: every preview of the round is listed
        stats["previews"] = preview_lines(previewed, Words(ctx.settings.language,
                                                           ctx.settings.timezone))
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
        rnd = rounds.round_by_number(conn, round_number)
        queue_mail(conn, sender=s.sender, kind=MailKind.DIGEST, to=s.gm_address,
                   to_name=s.gm_name, rendered=rendered,
                   key=round_key(MailKind.DIGEST, round_number, rnd.corrects if rnd else 0),
                   now=ctx.clock(), round_number=round_number)


def catch_up(ctx: Context, evaluate_due: Callable[[], int | None]) -> list[int]:
    """Queue missing newsletters and digests, then evaluate a missed deadline
    once (``evaluate_due()`` returns the round it evaluated, or None)."""
    for number in unpublished_rounds(ctx):
        publish_stored(ctx, number)
    for number in unpublished_rounds(ctx, MailKind.DIGEST):
        send_digest(ctx, number)
    done = evaluate_due()
    return [done] if done is not None else []


__all__ = ["catch_up", "digest_stats", "publish", "publish_stored", "render_round",
           "round_key", "send_digest", "site_data", "unpublished_rounds"]
