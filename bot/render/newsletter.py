"""The results newsletter of a round (RULES.md §8) as plain text and HTML.

Only the public report is accepted (``public_round``): GM lineups are
shown, player lineups never. Rendering is pure: the same inputs give the
same bytes, which is what the golden test pins.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from decimal import Decimal

from jinja2 import Environment

from bot.league.tables import PszRow, WpRow
from bot.render.environment import Environments, environment_for
from bot.render.formatting import zone
from bot.render.model import RenderedMail, RoundInfo
from bot.render.textwidth import clean, tidy_text
from bot.render.view import build_newsletter
from bot.rules.report import RoundReport


def render_newsletter(
    public: RoundReport | Mapping,
    *,
    round_info: RoundInfo,
    wp_table: Iterable[WpRow],
    psz_table: Iterable[PszRow],
    next_deadline: datetime | None,
    timezone: str,
    language: str,
    game_name: str,
    game_address: str | None = None,
    env: Environment | Environments | None = None,
    ageing: Mapping[str, Decimal] | None = None,
    reveal_seed: bool = False,
    next_commitment: str | None = None,
) -> RenderedMail:
    """Render the newsletter of one round in ``language``.

    ``public`` is ``RoundReport.public()`` (or its JSON, as stored); a report
    that still holds a player lineup raises ``LineupLeakError``.
    ``wp_table``/``psz_table`` are the league's tables after the round
    (``bot.league.tables``), shown in their order with their places.
    ``game_address`` is named in the how-to-play footer. Pass ``env`` (the
    ``Environments`` cache) to reuse environments across many renderings.

    ``ageing``: in a season's last newsletter, each team's WP before the
    ageing (the text explains the ageing, the WP table shows both values).
    ``reveal_seed``: show this round's seed, its commitment and the check
    (RULES.md §4); ``next_commitment``: the next round's commitment.
    The common part only: ``bot.render.personal`` adds each reader's block.
    """
    env = environment_for(language, env)
    zone(timezone)
    newsletter = build_newsletter(
        public, wp_table, psz_table, aged=ageing,
        round_number=round_info.number if reveal_seed else None,
        next_commitment=next_commitment,
    )
    game_name = clean(game_name).strip()
    subjects = env.get_template("subjects.j2").module
    subject = str(subjects.newsletter(game_name, round_info))  # type: ignore[attr-defined]
    context = {
        "nl": newsletter,
        "round": round_info,
        "game_name": game_name,
        "title": subject,
        "next_deadline": next_deadline,
        "timezone": timezone,
        "address": clean(game_address).strip() if game_address else None,
    }
    text = tidy_text(env.get_template("newsletter.txt.j2").render(context))
    html = env.get_template("newsletter.html.j2").render(context)
    return RenderedMail(subject=subject, text=text, html=html, language=language)
