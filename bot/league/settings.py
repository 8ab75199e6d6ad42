"""The league's settings (one frozen dataclass; the config layer fills it in)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal

from bot.league.passwords import DEFAULT_N


@dataclass(frozen=True, slots=True)
class LeagueSettings:
    #: WP of a new team (RULES.md §2).
    initial_wp: Decimal = Decimal("90")
    #: PSZ of a new team and of GM teams (RULES.md §10).
    initial_psz: Decimal = Decimal("250")
    #: Rounds per season; ageing follows the last one (RULES.md §6).
    season_rounds: int = 5
    #: Table points for win, draw, loss (RULES.md §4).
    points: tuple[int, int, int] = (3, 1, 0)
    #: Passwords on (RULES.md §9).
    passwords: bool = True
    #: Monte Carlo runs of the semi-final probabilities (0: none).
    simulations: int = 100_000
    #: PSZ zero bound (a win never costs, a loss never earns).
    psz_bound: bool = True
    #: Longest team name and short name.
    name_max: int = 30
    short_max: int = 15
    #: Teams a manager may own.
    max_teams: int = 2
    #: Rounds a team stays in the WP table after it last played (RULES.md §8).
    listed_rounds: int = 3
    #: Used when ``evaluate_due`` is not told the next deadline.
    round_length: timedelta = timedelta(days=7)
    #: scrypt cost of password hashes (lower only in tests).
    password_cost: int = DEFAULT_N

    def __post_init__(self) -> None:
        for name in ("initial_wp", "initial_psz"):
            value = getattr(self, name)
            if not isinstance(value, Decimal):
                raise TypeError(f"{name} must be an exact Decimal, got {value!r}")
        if self.initial_wp < 0:
            raise ValueError(f"initial_wp {self.initial_wp} must not be negative")
        if self.season_rounds < 1:
            raise ValueError(f"season_rounds {self.season_rounds} must be at least 1")
        if self.max_teams < 1 or self.listed_rounds < 1:
            raise ValueError("max_teams and listed_rounds must be at least 1")
        if self.simulations < 0:
            raise ValueError(f"simulations {self.simulations} must not be negative")
        if self.short_max < 1 or self.name_max < self.short_max:
            raise ValueError(
                f"need 1 <= short_max ({self.short_max}) <= name_max ({self.name_max})"
            )
        if self.round_length <= timedelta(0):
            raise ValueError(f"round_length {self.round_length} must be positive")
