"""The welcome mail of a manager whose league was taken over (RULES.md §14),
in his language: the game has moved to this bot, his teams with WP, the WP
each may spend and PSZ, his password, the open round with its deadline and
its seed's commitment (RULES.md §4), and the help.

An import sends hundreds of them at once, all alike but for the greeting,
the teams and the password: ``WelcomeMails`` renders the part every manager
of a language shares (the round, the deadline, the commitment, the help)
once per language, and only the personal head per manager.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from jinja2 import Environment

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


@dataclass
class WelcomeMails:
    """The welcome mails of one import: the open round ``round_info`` with
    its ``deadline`` and seed ``commitment``; ``home_url`` the league's home
    page on the web, if the archive is published."""

    round_info: RoundInfo
    deadline: datetime
    commitment: str
    timezone: str
    game_name: str
    game_address: str | None = None
    home_url: str | None = None
    env: Environment | Environments | None = None
    _common: dict[str, tuple[str, str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        zone(self.timezone)
        self.game_name = clean(self.game_name).strip()

    def _shared(self, language: str, env: Environment) -> tuple[str, str]:
        """(subject, the text every manager of ``language`` reads after his teams)."""
        found = self._common.get(language)
        if found is None:
            subjects = env.get_template("subjects.j2").module
            subject = str(subjects.welcome(self.game_name))  # type: ignore[attr-defined]
            tail = env.get_template("welcome.txt.j2").render(
                part="common", round=self.round_info, deadline=self.deadline,
                timezone=self.timezone, commitment=self.commitment, game_name=self.game_name,
                address=clean(self.game_address).strip() if self.game_address else None,
                home_url=self.home_url)
            found = self._common[language] = (subject, tail)
        return found

    def render(self, *, manager: str, teams: Sequence[WelcomeTeam], password: str | None,
               language: str) -> RenderedMail:
        """The welcome mail of ``manager`` (display name) with his ``teams``;
        ``password`` None when the game has no passwords."""
        if not teams:
            raise ValueError("a welcome mail needs at least one team of the manager")
        env = environment_for(language, self.env)
        subject, tail = self._shared(language, env)
        head = env.get_template("welcome.txt.j2").render(
            part="head", manager=clean(manager).strip(), teams=list(teams), password=password,
            round=self.round_info, game_name=self.game_name)
        return RenderedMail(subject, tidy_text(head + "\n\n" + tail), None, language)


def render_welcome(
    *, manager: str, teams: Sequence[WelcomeTeam], password: str | None, round_info: RoundInfo,
    deadline: datetime, commitment: str, timezone: str, language: str, game_name: str,
    game_address: str | None = None, home_url: str | None = None,
    env: Environment | Environments | None = None,
) -> RenderedMail:
    """One welcome mail (see ``WelcomeMails`` for many)."""
    return WelcomeMails(round_info, deadline, commitment, timezone, game_name, game_address,
                        home_url, env).render(manager=manager, teams=teams, password=password,
                                              language=language)


__all__ = ["WelcomeMails", "WelcomeTeam", "render_welcome"]
