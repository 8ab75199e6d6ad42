"""The archive as a small static site: an index of every round (date,
winner, field size, link), a hall of fame (titles, best WP, best PSZ,
longest streaks) and one page per team (WP and PSZ history as SVG charts,
its results round by round). The round pages themselves (the newsletter
with each round's bracket) are written by ``bot.render.archive``.

Pure files: no server, no script, no external resource (the style sheet is
inline, the charts are inline SVG from ``bot.render.svg_chart``), so the
folder works offline, from a USB stick or any static host, on a phone too.
Built only from the league's history (``bot.storage.history``: the
evaluated rounds with their winners and field sizes, each team's rounds
with WP, PSZ, place and stage reached, the ageing): no stored report is
parsed for it and no player lineup can reach it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

from jinja2 import Environment

from bot.render.archive import atomic_write, round_stem
from bot.render.environment import Environments, environment_for
from bot.render.home import HomeData, write_home
from bot.render.svg_chart import ChartStyle, Point, line_chart
from bot.render.textwidth import clean
from bot.rules.rounding import half_up
from bot.storage.history import Ageing, EvaluatedRound, TeamInfo, TeamRound

INDEX = "index.html"
#: Charts drawn at about phone width, so their text stays readable when scaled.
CHART = ChartStyle(width=420, height=220, margin_left=40)
FAME = "hall-of-fame.html"


def team_file(team_id: int) -> str:
    return f"team-{team_id:03d}.html"


@dataclass(frozen=True, slots=True)
class SiteData:
    """What the site is built from (``bot.service.publish.site_data`` reads it)."""

    rounds: tuple[EvaluatedRound, ...] = ()
    teams: tuple[TeamInfo, ...] = ()
    entries: tuple[TeamRound, ...] = ()
    ageing: tuple[Ageing, ...] = ()


@dataclass(frozen=True, slots=True)
class RoundLine:
    number: int
    season: int
    round_in_season: int
    date: object
    winner: str | None
    winner_file: str | None
    teams: int
    players: int
    html: str


@dataclass(frozen=True, slots=True)
class TeamLine:
    """One round of a team's page."""

    round: int
    html: str
    place: int | None
    reached: str
    last_stage: int
    won: int
    drawn: int
    lost: int
    wp_gain: Decimal
    wp_after: Decimal
    aged: Decimal | None
    psz_after: int


@dataclass(frozen=True, slots=True)
class TeamPage:
    team: TeamInfo
    file: str
    lines: tuple[TeamLine, ...]
    titles: int
    wp_chart: str
    psz_chart: str


@dataclass(frozen=True, slots=True)
class Record:
    """A line of the hall of fame: a team, its value and where (a round or a span)."""

    team: str
    file: str
    value: object
    where: str


@dataclass(frozen=True, slots=True)
class SiteWords:
    """The words this module puts together itself, in the site's language
    (from ``site_words.j2``): the charts' first point, the titles of the
    index, the hall of fame and a team's two charts."""

    start: str
    index_title: Callable[[str], str]
    fame_title: Callable[[str], str]
    wp_chart: Callable[[str], str]
    psz_chart: Callable[[str], str]

    @classmethod
    def of(cls, env: Environment) -> SiteWords:
        words: Any = env.get_template("site_words.j2").module
        return cls(
            start=str(words.W["start"]),
            index_title=lambda game: str(words.index_title(game)),
            fame_title=lambda game: str(words.fame_title(game)),
            wp_chart=lambda team: str(words.wp_chart(team)),
            psz_chart=lambda team: str(words.psz_chart(team)),
        )


def _rounds(data: SiteData, files: Mapping[str, str]) -> list[RoundLine]:
    out = []
    for r in data.rounds:
        out.append(RoundLine(
            r.number, r.season, r.round_in_season, r.evaluated_at or r.deadline, r.winner,
            files.get(r.winner) if r.winner else None, r.teams, r.players,
            f"{round_stem(r.number)}.html",
        ))
    out.sort(key=lambda line: -line.number)
    return out


def _team_pages(data: SiteData, words: SiteWords) -> list[TeamPage]:
    aged = {(a.team_id, a.round): a for a in data.ageing}
    by_team: dict[int, list[TeamRound]] = {}
    for e in data.entries:
        by_team.setdefault(e.team_id, []).append(e)
    pages = []
    for team in data.teams:
        lines = []
        wp_points: list[Point] = []
        psz_points: list[Point] = []
        titles = 0
        for e in sorted(by_team.get(team.team_id, []), key=lambda e: e.round):
            place, reached, last = e.place, e.reached, e.last_stage
            titles += place == 1
            ageing = aged.get((team.team_id, e.round))
            after = ageing.after if ageing else e.wp_after_gain
            psz = half_up(Fraction(e.psz_after))
            lines.append(TeamLine(
                e.round, f"{round_stem(e.round)}.html", place, reached, last,
                e.won, e.drawn, e.lost, e.wp_gain, after,
                ageing.before if ageing else None, psz,
            ))
            if not wp_points:
                wp_points.append(Point(words.start, e.wp_before))
                psz_points.append(Point(words.start, half_up(Fraction(e.psz_before))))
            if ageing:
                wp_points.append(Point(str(e.round), ageing.before))
                wp_points.append(Point(f"{e.round}*", after))
            else:
                wp_points.append(Point(str(e.round), after))
            psz_points.append(Point(str(e.round), psz))
        name = clean(team.name).strip()
        pages.append(TeamPage(
            team, team_file(team.team_id), tuple(lines), titles,
            line_chart(wp_points, title=words.wp_chart(name), style=CHART),
            line_chart(psz_points, title=words.psz_chart(name), style=CHART),
        ))
    return pages


def _streaks(
    lines: Sequence[TeamLine], good: Callable[[TeamLine], bool]
) -> tuple[int, int, int]:
    """The longest run of consecutive rounds (by number) where ``good(line)``;
    (length, first round, last round)."""
    best = (0, 0, 0)
    run, start, previous = 0, 0, None
    for line in lines:
        if good(line) and previous is not None and line.round == previous + 1 and run:
            run += 1
        elif good(line):
            run, start = 1, line.round
        else:
            run = 0
        previous = line.round
        if run > best[0]:
            best = (run, start, line.round)
    return best


def _fame(pages: Sequence[TeamPage], top: int = 10) -> dict[str, list[Record]]:
    titles = sorted((p for p in pages if p.titles), key=lambda p: (-p.titles, p.team.name))
    best_wp, best_psz, played, semis = [], [], [], []
    for p in pages:
        if not p.lines:
            continue
        wp_line = max(p.lines, key=lambda line: (line.aged or line.wp_after, -line.round))
        best_wp.append(Record(p.team.name, p.file, wp_line.aged or wp_line.wp_after,
                              str(wp_line.round)))
        psz_line = max(p.lines, key=lambda line: (line.psz_after, -line.round))
        best_psz.append(Record(p.team.name, p.file, psz_line.psz_after, str(psz_line.round)))
        length, first, last = _streaks(p.lines, lambda line: True)
        played.append(Record(p.team.name, p.file, length, f"{first}–{last}"))
        length, first, last = _streaks(
            p.lines, lambda line: line.reached in ("semi_final", "third_place", "final"))
        if length:
            semis.append(Record(p.team.name, p.file, length, f"{first}–{last}"))

    def order(records: list[Record]) -> list[Record]:
        return sorted(records, key=lambda r: (-r.value, r.team))[:top]  # type: ignore[operator]

    return {
        "titles": [Record(p.team.name, p.file, p.titles, "") for p in titles][:top],
        "wp": order(best_wp),
        "psz": order(best_psz),
        "played": order(played),
        "semis": order(semis),
    }


def write_site(
    archive_dir: Path,
    data: SiteData,
    *,
    game_name: str,
    language: str,
    timezone: str = "UTC",
    env: Environment | Environments | None = None,
    home: HomeData | None = None,
) -> list[Path]:
    """Write ``index.html``, ``hall-of-fame.html`` and one ``team-NNN.html``
    per team into ``archive_dir`` (atomically, each); returns the paths.
    With ``home`` the index is the league's home page, and its feed,
    calendar and JSON are written too (``bot.render.home``)."""
    env = environment_for(language, env)
    folder = Path(archive_dir)
    folder.mkdir(parents=True, exist_ok=True)
    game_name = clean(game_name).strip()
    words = SiteWords.of(env)
    pages = _team_pages(data, words)
    files = {p.team.name: p.file for p in pages}
    rounds = _rounds(data, files)
    common = {"game_name": game_name, "index": INDEX, "fame_file": FAME, "timezone": timezone}
    written = []

    def write(name: str, template: str, **context: object) -> None:
        html = env.get_template(template).render(**common, **context)
        path = folder / name
        atomic_write(path, html.encode("utf-8"))
        written.append(path)

    teams_sorted = sorted(pages, key=lambda p: clean(p.team.name).casefold())
    if home is None:
        write(INDEX, "site_index.html.j2", title=words.index_title(game_name), rounds=rounds,
              teams=teams_sorted)
    else:  # the league's home page is the index (bot.render.home)
        written += write_home(folder, home, env=env, rounds=rounds,
                              context={**common, "teams": teams_sorted})
    write(FAME, "site_fame.html.j2", title=words.fame_title(game_name), fame=_fame(pages))
    for page in pages:
        write(page.file, "site_team.html.j2", title=f"{game_name}: {clean(page.team.name)}",
              page=page)
    return written


__all__ = ["FAME", "INDEX", "SiteData", "team_file", "write_site"]
