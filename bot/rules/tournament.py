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
from decimal import Decimal
from fractions import Fraction

from bot.rules import wp
from bot.rules.corrections import check_legal
from bot.rules.errors import IllegalLineupError
from bot.rules.gm_teams import draw_gm_lineup
from bot.rules.lineup import Lineup
from bot.rules.match import play
from bot.rules.psz import INITIAL_PSZ, PeriodUpdate, Result, period_update
from bot.rules.tournament_model import (
    DEFAULT_POINTS,
    FIRST_LEG,
    GM_PREFIX,
    GROUP_SIZE,
    QUALIFIERS,
    SCHEDULE,
    SEMI_FINALISTS,
    Entrant,
    Game,
    Group,
    KnockoutGame,
    KnockoutStage,
    Points,
    Record,
    Stage,
    TableRow,
    Team,
    TournamentError,
    TournamentResult,
    _exact,
    _suffix,
    field_groups,
    games_by_team,
    games_of,
    group_name,
)

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
    games_of_team = games_by_team(stages, knockout)
    for team in teams:
        games = games_of_team.get(team.name, [])
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
    "FIRST_LEG",
    "GM_PREFIX",
    "GROUP_SIZE",
    "QUALIFIERS",
    "SCHEDULE",
    "SEMI_FINALISTS",
    "Entrant",
    "Game",
    "Group",
    "KnockoutGame",
    "KnockoutStage",
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
    "games_by_team",
    "games_of",
    "group_name",
    "group_table",
    "play_group_games",
    "play_group_stages",
    "play_knockout",
    "play_stage",
    "play_tournament",
    "validate_entrants",
]
