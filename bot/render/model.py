"""The small value types the renderers take and return.

The WP and PSZ table rows are the league's (``bot.league.tables.WpRow`` and
``PszRow``): the renderers take them as they are.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RoundInfo:
    """Which round a text is about: season, round within the season (1..5)
    and the running number of the round since the game began."""

    season: int
    round_in_season: int
    number: int
    #: How often this round's evaluation was rolled back: > 0 means this text
    #: corrects an earlier one (bot.league.service.League.rollback).
    corrects: int = 0


@dataclass(frozen=True, slots=True)
class RenderedMail:
    """A rendered text in one language: subject, plain text and HTML
    (``html`` is None for plain-text-only mails such as the GM digest)."""

    subject: str
    text: str
    html: str | None
    language: str = "de"


@dataclass(frozen=True, slots=True)
class ReminderTeam:
    """A manager's team that has no lineup for the round yet, with the WP it
    may spend (``floor(WP)``) if known."""

    name: str
    budget: int | None = None


__all__ = ["ReminderTeam", "RenderedMail", "RoundInfo"]
