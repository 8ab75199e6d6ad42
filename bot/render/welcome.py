"""The welcome mail of a manager whose league was taken over (RULES.md §14),
in his language: the game has moved to this bot, his teams with WP, the WP
each may spend and PSZ, his password, the open round with its deadline and
its seed's commitment (RULES.md §4), and the help. The deadline rides along
as an ``.ics`` calendar event, as in the reminders.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from jinja2 import Environment

from bot.render.calendar import calendar_file_name, deadline_event
from bot.render.environment import Environments, environment_for
from bot.render.formatting import zone
from bot.render.model import RenderedMail, RoundInfo
from bot.render.textwidth import clean, tidy_text


@dataclass(frozen=True, slots=True)
class WelcomeTeam:
    name: str
    short_name: str
    wp: Decimal
    #: The WP it may spend in the open round (``floor(WP)``).
    budget: int
    psz: Decimal


def render_welcome(
    *,
    manager: str,
    teams: Sequence[WelcomeTeam],
    password: str | None,
    round_info: RoundInfo,
    deadline: datetime,
    now: datetime,
    commitment: str,
    timezone: str,
    language: str,
    game_name: str,
    game_address: str | None = None,
    home_url: str | None = None,
    env: Environment | Environments | None = None,
) -> RenderedMail:
    """The welcome mail of ``manager`` (display name) with his ``teams``;
    ``password`` None when the game has no passwords; ``home_url`` the
    league's home page on the web, if the archive is published."""
    if not teams:
        raise ValueError("a welcome mail needs at least one team of the manager")
    env = environment_for(language, env)
    zone(timezone)
    game_name = clean(game_name).strip()
    subject = str(env.get_template("subjects.j2").module.welcome(game_name))  # type: ignore[attr-defined]
    text = tidy_text(env.get_template("welcome.txt.j2").render(
        manager=clean(manager).strip(), teams=list(teams), password=password,
        round=round_info, deadline=deadline, timezone=timezone, commitment=commitment,
        game_name=game_name, address=clean(game_address).strip() if game_address else None,
        home_url=home_url,
    ))
    ics = deadline_event(round_info=round_info, deadline=deadline, now=now, game_name=game_name,
                         language=language, address=game_address, env=env)
    return RenderedMail(subject, text, None, language,
                        ((calendar_file_name(round_info), "text/calendar", ics, "PUBLISH"),))


__all__ = ["WelcomeTeam", "render_welcome"]
