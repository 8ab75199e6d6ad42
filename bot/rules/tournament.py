"""The tournament of one round (WM-Modus, RULES.md §4): field, groups, knock-out.

``play_tournament`` takes the player teams of a round (already corrected
lineups) and one seeded ``random.Random`` and plays the whole tournament:

1. Field: G groups of four, G = 4 for N <= 16 player teams, 8 for N <= 32,
   16 for N <= 64, doubling further beyond. Free places are filled with GM
   teams (RULES.md §5), named ``GM T-A-V-M-S`` (a letter suffix ``a``,
   ``b``, ... on every GM team whose lineup another GM team shares).
2. The first group draw: all teams shuffled by lot, cut into groups of four.
3. Each group plays a double round robin (12 games, 6 per team, every pair
   home and away), dice by dice (``bot.rules.match.play``).
4. Table order: points, goal difference, then lot (nothing else). The first
   two advance. The advancing teams are redrawn into groups of four until
   four remain; those four are drawn into two semi-finals; the losers play
   for third place, the winners the final.
5. A level knock-out game is decided by lot (``by_lot``); for WP and PSZ it
   counts as a draw.

Teams are identified by name throughout; an entrant's optional short name
(RULES.md §7, for tables) is carried along on its ``Team`` and never
influences the play.

Lot decisions in a table (**decision**): a block of teams level on points
and goal difference is put in order by lot (one ``shuffle`` of the block).
Every row of such a block is marked ``by_lot`` (its place was decided by
lot), and ``Group.qualification_by_lot`` says whether the lot decided who
advances (the block straddles the line between 2nd and 3rd).

Random numbers (one generator, in this order, so a replay with the same
inputs and seed is identical bit for bit): the GM lineups, the first draw,
the games of the first stage (group by group, game by game), the table lots
of that stage (group by group), the next draw, its games, its lots, ...,
the semi-final draw, then each knock-out game followed by its lot if level
(semi-final 1, semi-final 2, third place, final). Only ``randrange``,
``randint`` and ``shuffle`` are used, which are stable across CPython
versions.

WP (RULES.md §6) and PSZ (§10) are computed for the player teams over all
their games: 0.2 WP per win, 0.1 per draw; PSZ with every opponent's PSZ at
the start of the tournament, GM teams at the initial PSZ and not rated.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Literal

from bot.rules import wp
from bot.rules.corrections import check_legal
from bot.rules.errors import IllegalLineupError, RulesError
from bot.rules.gm_teams import draw_gm_lineup
from bot.rules.lineup import Lineup
from bot.rules.match import play
from bot.rules.psz import INITIAL_PSZ, PeriodUpdate, Result, period_update

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
                "short name such as 'Wanderer' (RULES.md §7), or None to show the full name"
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
    out: list[tuple[str, int, int, Result]] = []
    pairs: list[tuple[str, str, tuple[int, int]]] = [
        (game.home, game.away, game.goals)
        for stage in stages
        for group in stage.groups
        for game in group.games
    ]
    pairs += [(ko.home, ko.away, ko.goals) for ko in knockout]
    for home, away, (gh, ga) in pairs:
        if name == home:
            out.append((away, gh, ga, _result(gh, ga)))
        elif name == away:
            out.append((home, ga, gh, _result(ga, gh)))
    return out


def _result(own: int, other: int) -> Result:
    if own > other:
        return Result.WIN
    return Result.DRAW if own == other else Result.LOSS


# --------------------------------------------------------------------------- playing


def validate_entrants(entrants: Sequence[Entrant]) -> None:
    """Raise ``TournamentError`` unless names are unique (case-insensitive,
    spaces folded), none uses the GM prefix, and every lineup is legal."""
    seen: dict[str, str] = {}
    for entrant in entrants:
        if not isinstance(entrant, Entrant):
            raise TournamentError(
                f"{entrant!r} is not an Entrant(name, lineup, psz, short_name)"
            )
        key = " ".join(entrant.name.split()).casefold()
        if key in seen:
            raise TournamentError(
                f"team name {entrant.name!r} is used twice (also as {seen[key]!r}); "
                "every team in a tournament needs its own name"
            )
        seen[key] = entrant.name
        if key.startswith(GM_PREFIX.casefold()):
            raise TournamentError(
                f"team name {entrant.name!r} starts with {GM_PREFIX!r}, which marks GM "
                "teams; a player team needs another name"
            )
        short = " ".join(entrant.label.split()).casefold()
        if short.startswith(GM_PREFIX.casefold()):
            raise TournamentError(
                f"short name {entrant.label!r} of {entrant.name!r} starts with "
                f"{GM_PREFIX!r}, which marks GM teams; a player team needs another short name"
            )
        try:
            check_legal(entrant.lineup)
        except IllegalLineupError as exc:
            raise TournamentError(
                f"lineup of {entrant.name!r} is not corrected: {exc}; "
                "apply bot.rules.corrections.correct before the tournament"
            ) from exc


def draw_gm_teams(count: int, rng: random.Random, initial_psz: Fraction) -> list[Team]:
    """Draw ``count`` GM lineups and name them ``GM T-A-V-M-S`` (+ a, b, ... if shared)."""
    lineups = [draw_gm_lineup(rng) for _ in range(count)]
    totals: dict[Lineup, int] = {}
    for lineup in lineups:
        totals[lineup] = totals.get(lineup, 0) + 1
    used: dict[Lineup, int] = {}
    teams = []
    for lineup in lineups:
        name = f"{GM_PREFIX}{lineup}"
        if totals[lineup] > 1:
            name += _suffix(used.get(lineup, 0))
            used[lineup] = used.get(lineup, 0) + 1
        teams.append(Team(name, lineup, True, initial_psz))
    return teams


def draw_groups(teams: Sequence[str], rng: random.Random) -> list[list[str]]:
    """Shuffle by lot and cut into groups of four."""
    order = list(teams)
    rng.shuffle(order)
    return [order[i : i + GROUP_SIZE] for i in range(0, len(order), GROUP_SIZE)]


def play_group_games(
    names: Sequence[str], lineups: dict[str, Lineup], rng: random.Random
) -> tuple[Game, ...]:
    """The 12 games of a group of four, dice by dice, in ``SCHEDULE`` order."""
    games = []
    for h, a in SCHEDULE:
        home, away = names[h], names[a]
        games.append(Game(home, away, play(lineups[home], lineups[away], rng)))
    return tuple(games)


def group_table(
    name: str, names: Sequence[str], games: Iterable[Game], points: Points, rng: random.Random
) -> Group:
    """Order a group by points and goal difference, breaking remaining ties by lot."""
    games = tuple(games)
    stats = {n: [0, 0, 0, 0, 0, 0] for n in names}  # played won drawn lost for against
    for game in games:
        for team in (game.home, game.away):
            own, other = game.goals_of(team)
            s = stats[team]
            s[0] += 1
            s[1 if own > other else 2 if own == other else 3] += 1
            s[4] += own
            s[5] += other

    def pts(n: str) -> int:
        s = stats[n]
        return s[1] * points.win + s[2] * points.draw + s[3] * points.loss

    def key(n: str) -> tuple[int, int]:
        return pts(n), stats[n][4] - stats[n][5]

    ranked = sorted(names, key=key, reverse=True)  # stable; ties resolved below
    order: list[str] = []
    lot: set[str] = set()
    qualification_by_lot = False
    i = 0
    while i < len(ranked):
        j = i
        while j < len(ranked) and key(ranked[j]) == key(ranked[i]):
            j += 1
        block = ranked[i:j]
        if len(block) > 1:
            rng.shuffle(block)
            lot.update(block)
            if i < QUALIFIERS < j:
                qualification_by_lot = True
        order += block
        i = j
    table = tuple(
        TableRow(n, *stats[n][:4], stats[n][4], stats[n][5], pts(n), pos < QUALIFIERS, n in lot)
        for pos, n in enumerate(order)
    )
    return Group(name, tuple(names), games, table, qualification_by_lot)


def play_stage(
    number: int,
    groups: Sequence[Sequence[str]],
    lineups: dict[str, Lineup],
    points: Points,
    rng: random.Random,
) -> Stage:
    """Play every group's games, then settle every table (lots) in group order."""
    games = [play_group_games(g, lineups, rng) for g in groups]
    tables = tuple(
        group_table(group_name(i), g, gs, points, rng)
        for i, (g, gs) in enumerate(zip(groups, games, strict=True))
    )
    return Stage(number, tables)


def play_group_stages(
    first_groups: Sequence[Sequence[str]],
    lineups: dict[str, Lineup],
    points: Points,
    rng: random.Random,
) -> tuple[list[Stage], list[str]]:
    """From the first draw on, play group stages and redraw until four teams
    remain; return the stages and the four semi-finalists (in qualification order)."""
    stages: list[Stage] = []
    groups = [list(g) for g in first_groups]
    while True:
        stage = play_stage(len(stages) + 1, groups, lineups, points, rng)
        stages.append(stage)
        advancing = [n for g in stage.groups for n in g.qualifiers]
        if len(advancing) <= SEMI_FINALISTS:
            return stages, advancing
        groups = draw_groups(advancing, rng)


def play_knockout(
    stage: KnockoutStage, home: str, away: str, lineups: dict[str, Lineup], rng: random.Random
) -> KnockoutGame:
    """One knock-out game; level after the dice: decided by lot."""
    goals = play(lineups[home], lineups[away], rng)
    if goals[0] != goals[1]:
        return KnockoutGame(stage, home, away, goals, home if goals[0] > goals[1] else away, False)
    winner = (home, away)[rng.randrange(2)]
    return KnockoutGame(stage, home, away, goals, winner, True)


def play_tournament(
    entrants: Sequence[Entrant],
    rng: random.Random,
    *,
    points: Points = DEFAULT_POINTS,
    initial_psz: Fraction = INITIAL_PSZ,
    psz_bound: bool = True,
) -> TournamentResult:
    """Play the whole tournament of a round (see the module docstring)."""
    validate_entrants(entrants)
    initial_psz = _exact(initial_psz, "initial PSZ")
    if not entrants:
        return TournamentResult((), points, initial_psz, (), (), ())
    players = [Team(e.name, e.lineup, False, e.psz, e.short_name) for e in entrants]
    size = GROUP_SIZE * field_groups(len(players))
    teams = players + draw_gm_teams(size - len(players), rng, initial_psz)
    lineups = {t.name: t.lineup for t in teams}

    first = draw_groups([t.name for t in teams], rng)
    stages, four = play_group_stages(first, lineups, points, rng)

    rng.shuffle(four)
    semi1 = play_knockout("semi_final", four[0], four[1], lineups, rng)
    semi2 = play_knockout("semi_final", four[2], four[3], lineups, rng)
    third = play_knockout("third_place", semi1.loser, semi2.loser, lineups, rng)
    final = play_knockout("final", semi1.winner, semi2.winner, lineups, rng)
    knockout = (semi1, semi2, third, final)
    placings = (final.winner, final.loser, third.winner, third.loser)

    start_psz = {t.name: t.psz for t in teams}
    record: dict[str, Record] = {}
    wp_gain: dict[str, Decimal] = {}
    psz: dict[str, PeriodUpdate] = {}
    for team in teams:
        games = games_of(team.name, stages, knockout)
        won = sum(1 for g in games if g[3] is Result.WIN)
        drawn = sum(1 for g in games if g[3] is Result.DRAW)
        record[team.name] = Record(won, drawn, len(games) - won - drawn)
        if not team.gm:
            wp_gain[team.name] = wp.gain(won, drawn)
            psz[team.name] = period_update(
                team.psz, [(start_psz[opp], res) for opp, _, _, res in games], bound=psz_bound
            )
    return TournamentResult(
        tuple(teams), points, initial_psz, tuple(stages), knockout, placings,
        record, wp_gain, psz,
    )


__all__ = [
    "DEFAULT_POINTS",
    "GM_PREFIX",
    "SCHEDULE",
    "Entrant",
    "Game",
    "Group",
    "KnockoutGame",
    "Points",
    "Record",
    "Stage",
    "TableRow",
    "Team",
    "TournamentError",
    "TournamentResult",
    "draw_gm_teams",
    "draw_groups",
    "field_groups",
    "games_of",
    "group_name",
    "group_table",
    "play_group_stages",
    "play_knockout",
    "play_tournament",
    "validate_entrants",
]
