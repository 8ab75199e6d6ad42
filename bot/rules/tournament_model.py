"""The data of a tournament (RULES.md §4): its inputs, settings and results.

``bot.rules.tournament`` plays a tournament and re-exports every name here;
this module holds what it plays with and what it returns: the entrants and
points, the field size, and the immutable results (teams, games, tables,
stages, knock-out games, records) with the look-ups over them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Literal

from bot.rules.errors import RulesError
from bot.rules.lineup import Lineup
from bot.rules.psz import INITIAL_PSZ, PeriodUpdate, Result

#: Player team names may not start with this (case-insensitive): it marks GM teams.
GM_PREFIX = "GM "
GROUP_SIZE = 4
#: Teams of a group that advance.
QUALIFIERS = 2
#: Teams left for the knock-out stage.
SEMI_FINALISTS = 4
#: The double round robin of a group of four, by position in the drawn group:
#: the first leg, then the second leg with home and away swapped. Every team
#: plays 6 games, 3 of them at home.
FIRST_LEG: tuple[tuple[int, int], ...] = ((0, 1), (2, 3), (0, 2), (3, 1), (3, 0), (1, 2))
SCHEDULE: tuple[tuple[int, int], ...] = FIRST_LEG + tuple((b, a) for a, b in FIRST_LEG)

KnockoutStage = Literal["semi_final", "third_place", "final"]


class TournamentError(RulesError):
    """The player teams of a tournament cannot play (bad name, lineup or PSZ)."""


# --------------------------------------------------------------------------- inputs


def _exact(value: object, what: str) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, int | Fraction | Decimal):
        raise TournamentError(
            f"{what} {value!r} is not exact: pass an int, Fraction or Decimal "
            "(binary floats are not allowed for PSZ)"
        )
    return Fraction(value)


@dataclass(frozen=True, slots=True)
class Entrant:
    """A player team entering the tournament with its (already corrected) lineup.

    ``short_name`` is the team's short name for tables (RULES.md §7); None
    means the team has none and its name is shown everywhere. It only labels
    the team: the tournament is played by name, so it never changes a result.
    """

    name: str
    lineup: Lineup
    psz: Fraction = INITIAL_PSZ
    short_name: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise TournamentError(f"team name {self.name!r} is empty; every team needs a name")
        if not isinstance(self.lineup, Lineup):
            raise TournamentError(
                f"lineup of {self.name!r} is {self.lineup!r}, not a Lineup; "
                "parse it with Lineup.parse and correct it first"
            )
        if self.short_name is not None and (
            not isinstance(self.short_name, str) or not self.short_name.strip()
        ):
            raise TournamentError(
                f"short name {self.short_name!r} of {self.name!r} is not a name; give a "
                "short name such as 'Wanderer' (at most 15 characters), or None to show "
                "the full name"
            )
        object.__setattr__(self, "psz", _exact(self.psz, f"PSZ of {self.name!r}"))

    @property
    def label(self) -> str:
        """The name for tables: the short name, else the name."""
        return self.short_name if self.short_name is not None else self.name


@dataclass(frozen=True, slots=True)
class Points:
    """Table points per game (RULES.md §4: 3-1-0 by default, e.g. 2-1-0 configurable)."""

    win: int = 3
    draw: int = 1
    loss: int = 0

    def __post_init__(self) -> None:
        values = (self.win, self.draw, self.loss)
        if any(isinstance(v, bool) or not isinstance(v, int) for v in values):
            raise TournamentError(f"points {values!r} must be whole numbers, e.g. 3-1-0")
        if not self.win >= self.draw >= self.loss:
            raise TournamentError(
                f"points win={self.win}, draw={self.draw}, loss={self.loss}: a win must "
                "give at least as many points as a draw and a draw as many as a loss, "
                "e.g. 3-1-0 or 2-1-0"
            )

    def for_goals(self, own: int, other: int) -> int:
        if own > other:
            return self.win
        return self.draw if own == other else self.loss


#: The default 3-1-0 (a module-level value so it can be a default argument).
DEFAULT_POINTS = Points()


def field_groups(players: int) -> int:
    """Number of groups of four for ``players`` player teams (0 for none)."""
    if players < 0:
        raise TournamentError(f"number of player teams {players} is negative")
    if players == 0:
        return 0
    groups = 4
    while GROUP_SIZE * groups < players:
        groups *= 2
    return groups


def group_name(index: int) -> str:
    """0 -> 'A', 25 -> 'Z', 26 -> 'AA', ... (spreadsheet style)."""
    name = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        name = chr(ord("A") + rest) + name
    return name


def _suffix(index: int) -> str:
    return group_name(index).lower()


# --------------------------------------------------------------------------- results


@dataclass(frozen=True, slots=True)
class Team:
    """A participant: a player team or a GM team. ``short_name`` is the
    player team's short name for tables (None: none given; GM teams: None,
    their name is short enough)."""

    name: str
    lineup: Lineup
    gm: bool
    psz: Fraction
    short_name: str | None = None

    @property
    def label(self) -> str:
        """The name for tables: the short name, else the name."""
        return self.short_name if self.short_name is not None else self.name


@dataclass(frozen=True, slots=True)
class Game:
    """A group game: ``goals`` is (home, away)."""

    home: str
    away: str
    goals: tuple[int, int]

    def goals_of(self, team: str) -> tuple[int, int]:
        """(own goals, opponent's goals) from ``team``'s side."""
        if team == self.home:
            return self.goals
        if team == self.away:
            return self.goals[1], self.goals[0]
        raise KeyError(f"{team!r} did not play in {self.home} - {self.away}")


@dataclass(frozen=True, slots=True)
class TableRow:
    team: str
    played: int
    won: int
    drawn: int
    lost: int
    goals_for: int
    goals_against: int
    points: int
    qualified: bool
    by_lot: bool

    @property
    def goal_difference(self) -> int:
        return self.goals_for - self.goals_against


@dataclass(frozen=True, slots=True)
class Group:
    """One group of a stage: the drawn teams (in draw order), its games and final table."""

    name: str
    teams: tuple[str, ...]
    games: tuple[Game, ...]
    table: tuple[TableRow, ...]
    qualification_by_lot: bool

    @property
    def qualifiers(self) -> tuple[str, ...]:
        return tuple(row.team for row in self.table if row.qualified)


@dataclass(frozen=True, slots=True)
class Stage:
    """A group stage; ``number`` counts from 1 (the first draw)."""

    number: int
    groups: tuple[Group, ...]


@dataclass(frozen=True, slots=True)
class KnockoutGame:
    stage: KnockoutStage
    home: str
    away: str
    goals: tuple[int, int]
    winner: str
    by_lot: bool

    @property
    def loser(self) -> str:
        return self.away if self.winner == self.home else self.home


@dataclass(frozen=True, slots=True)
class Record:
    """Wins, draws and losses of a team over the whole tournament (level
    knock-out games count as draws)."""

    won: int = 0
    drawn: int = 0
    lost: int = 0

    @property
    def games(self) -> int:
        return self.won + self.drawn + self.lost


@dataclass(frozen=True, slots=True)
class TournamentResult:
    """Everything that happened in one tournament.

    ``teams`` lists the player teams in entry order, then the GM teams in the
    order their lineups were drawn. ``wp_gain`` and ``psz`` cover the player
    teams only; ``record`` covers every team.
    """

    teams: tuple[Team, ...]
    points: Points
    initial_psz: Fraction
    stages: tuple[Stage, ...]
    knockout: tuple[KnockoutGame, ...]
    placings: tuple[str, ...]
    record: dict[str, Record] = field(default_factory=dict)
    wp_gain: dict[str, Decimal] = field(default_factory=dict)
    psz: dict[str, PeriodUpdate] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        """True when no player team entered: there is no tournament."""
        return not self.teams

    @property
    def first_groups(self) -> list[list[str]]:
        """The first group draw: the names of each group in draw order."""
        if not self.stages:
            return []
        return [list(g.teams) for g in self.stages[0].groups]

    @property
    def gm_teams(self) -> tuple[Team, ...]:
        return tuple(t for t in self.teams if t.gm)

    @property
    def players(self) -> tuple[Team, ...]:
        return tuple(t for t in self.teams if not t.gm)

    @property
    def semi_finalists(self) -> tuple[str, ...]:
        semis = [g for g in self.knockout if g.stage == "semi_final"]
        return tuple(name for g in semis for name in (g.home, g.away))

    @property
    def lineups(self) -> dict[str, Lineup]:
        return {t.name: t.lineup for t in self.teams}

    def team(self, name: str) -> Team:
        for t in self.teams:
            if t.name == name:
                return t
        raise KeyError(f"no team {name!r} in this tournament")

    def games_of(self, name: str) -> list[tuple[str, int, int, Result]]:
        """Every game of ``name`` in order: (opponent, own goals, other goals,
        result for WP/PSZ; a level knock-out game is a draw)."""
        return games_of(name, self.stages, self.knockout)


def games_of(
    name: str, stages: Iterable[Stage], knockout: Iterable[KnockoutGame]
) -> list[tuple[str, int, int, Result]]:
    """Every game of ``name`` in the given stages and knock-out games, in order:
    (opponent, own goals, other goals, result; a level knock-out game is a draw)."""
    return games_by_team(stages, knockout).get(name, [])


def games_by_team(
    stages: Iterable[Stage], knockout: Iterable[KnockoutGame]
) -> dict[str, list[tuple[str, int, int, Result]]]:
    """``games_of`` for every team at once, in one pass over the games."""
    out: dict[str, list[tuple[str, int, int, Result]]] = {}
    pairs: list[tuple[str, str, tuple[int, int]]] = [
        (game.home, game.away, game.goals)
        for stage in stages
        for group in stage.groups
        for game in group.games
    ]
    pairs += [(ko.home, ko.away, ko.goals) for ko in knockout]
    for home, away, (gh, ga) in pairs:
        out.setdefault(home, []).append((away, gh, ga, _result(gh, ga)))
        if away != home:
            out.setdefault(away, []).append((home, ga, gh, _result(ga, gh)))
    return out


def _result(own: int, other: int) -> Result:
    if own > other:
        return Result.WIN
    return Result.DRAW if own == other else Result.LOSS
