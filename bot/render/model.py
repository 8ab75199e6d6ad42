"""The small value types the renderers take and return."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal


@dataclass(frozen=True, slots=True)
class RoundInfo:
    """Which round a text is about: season, round within the season (1..5)
    and the running number of the round since the game began."""

    season: int
    round_in_season: int
    number: int


@dataclass(frozen=True, slots=True)
class WpRow:
    """One line of the WP table (RULES.md §8): current WP and this round's gain."""

    team: str
    manager: str
    wp: Decimal
    gain: Decimal


@dataclass(frozen=True, slots=True)
class PszRow:
    """One line of the PSZ table (RULES.md §10); shown as a whole number."""

    team: str
    manager: str
    psz: Decimal


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
