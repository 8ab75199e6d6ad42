"""The results newsletter of a round (RULES.md §8) as plain text and HTML.

Only the public report is accepted (``ensure_public``): GM lineups are
shown, player lineups never. Rendering is pure: the same inputs give the
same bytes, which is what the golden test pins.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime

from jinja2 import Environment

from bot.render.environment import make_environment
from bot.render.formatting import check_language, zone
from bot.render.model import PszRow, RenderedMail, RoundInfo, WpRow
from bot.render.textwidth import clean
from bot.render.view import build_newsletter


def environment_for(language: str, env: Environment | None) -> Environment:
    """``env`` if it was made for ``language``, else a fresh environment."""
    language = check_language(language)
    if env is None:
        return make_environment(language)
    if env.globals.get("language") != language:
        raise ValueError(
            f"environment is for {env.globals.get('language')!r}, not {language!r}: "
            f"make one with make_environment({language!r})"
        )
    return env


def tidy_text(text: str) -> str:
    """Plain text as mailed: no trailing spaces, at most one blank line in a
    row, exactly one newline at the end."""
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip("\n") + "\n"


def render_newsletter(
    public: Mapping,
    *,
    round_info: RoundInfo,
    wp_table: Iterable[WpRow],
    psz_table: Iterable[PszRow],
    next_deadline: datetime | None,
    timezone: str,
    language: str,
    game_name: str,
    game_address: str | None = None,
    env: Environment | None = None,
) -> RenderedMail:
    """Render the newsletter of one round in ``language``.

    ``public`` is ``bot.rules.report.public_report(report)``; a report that
    still holds a player lineup raises ``LineupLeakError``. ``game_address``
    is named in the how-to-play footer. Pass ``env`` to reuse an environment
    across many renderings.
    """
    env = environment_for(language, env)
    zone(timezone)
    newsletter = build_newsletter(public, wp_table, psz_table)
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
