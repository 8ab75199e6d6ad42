"""The personal block at the top of a recipient's newsletter (RULES.md §8).

It opens with what the reader needs next: each of his teams' WP and the WP
it may spend next round, and the next deadline (``Upcoming``). Then, for
each team: place and stage reached, its games (group games under their
stage and group, named as the tables name them: "1. Gruppenphase, Gruppe
C"), its record (real plurals), WP before -> after (a season's ageing as
its own step), its place in the WP table, PSZ before -> after and its own
chance of reaching the semi-final. Never a lineup, not even the reader's
own (newsletters get forwarded): the block is built from the public report
only.

Cheap per recipient: the common newsletter is rendered once per language;
``render_personal`` renders only the block (a few lines, with the macro
``teams`` of ``templates/mail/personal.txt.j2`` and ``personal.html.j2``,
whose labels are looked up once per language) and ``splice`` puts it into
the common text and HTML. The HTML part also carries a
``<style>`` rule that makes the reader's teams stand out in every table of
the common HTML (``team_class``: each team's rows and cells carry a class
derived from its name).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from decimal import Decimal
from fractions import Fraction

from jinja2 import Environment

from bot.league.news import TeamFacts
from bot.league.tables import WpRow
from bot.render.environment import Environments, environment_for
from bot.render.formatting import datetime_long
from bot.render.model import RenderedMail
from bot.render.public import public_round
from bot.render.textwidth import tidy_text
from bot.rules.report import RoundReport
from bot.rules.rounding import half_up
from bot.rules.wp import budget

#: Where the personal HTML goes: this comment in the common HTML's content
#: (``templates/mail/newsletter.html.j2``), and the style rule into the head.
HTML_MARK = "<!--personal-->"
STYLE_MARK = "<!--personal-style-->"


def team_class(name: str) -> str:
    """The CSS class the common HTML gives every row and cell of ``name``:
    stable (from the name), never markup (hex digits only)."""
    return "t" + hashlib.sha256(name.encode("utf-8")).hexdigest()[:8]


@dataclass(frozen=True, slots=True)
class PersonalGame:
    """One game from the team's side: ``stage`` is ``group`` or a knock-out stage;
    a group game has its stage's number and its group's name (``A``)."""

    stage: str
    stage_number: int
    opponent: str
    goals_for: int
    goals_against: int
    result: str  # "W", "D" or "L" (a knock-out decided by lot is a draw for WP)
    by_lot: bool
    won_by_lot: bool
    group: str | None = None


@dataclass(frozen=True, slots=True)
class PersonalTeam:
    name: str
    played: bool
    #: 1..4 when the team finished on the podium or fourth, else None.
    place: int | None
    #: The last group stage it played (0: did not play).
    last_stage: int
    #: "final", "third_place", "semi_final", "group" or "none".
    reached: str
    games: tuple[PersonalGame, ...]
    won: int
    drawn: int
    lost: int
    wp_before: Decimal
    wp_gain: Decimal
    wp_after_gain: Decimal
    aged: bool
    wp_after: Decimal
    wp_place: int | None
    wp_listed: int
    psz_before: Decimal
    psz_after: Decimal
    semi_chance: Fraction | None

    @property
    def css(self) -> str:
        return team_class(self.name)

    @property
    def budget(self) -> int:
        """The WP it may spend next round: the whole-number part (RULES.md §6)."""
        return budget(self.wp_after)

    @property
    def psz_before_shown(self) -> int:
        return half_up(Fraction(self.psz_before))

    @property
    def psz_after_shown(self) -> int:
        return half_up(Fraction(self.psz_after))


@dataclass(frozen=True, slots=True)
class PersonalBlock:
    teams: tuple[PersonalTeam, ...]
    gm: frozenset[str]

    @property
    def empty(self) -> bool:
        return not self.teams

    @property
    def aged(self) -> bool:
        return any(t.aged for t in self.teams)


@dataclass(frozen=True, slots=True)
class Upcoming:
    """The round the newsletter's readers play next: its number, its deadline
    (None while not set) and the zone the deadline is shown in."""

    round: int
    deadline: datetime | None
    timezone: str = "UTC"


@dataclass(frozen=True, slots=True)
class PersonalPart:
    """The rendered block: plain text, HTML and the HTML style rule."""

    text: str
    html: str
    style: str


def _games(report: RoundReport, name: str) -> list[PersonalGame]:
    games = []
    for stage in report.stages:
        for group in stage.groups:
            if name not in group.teams:
                continue
            for g in group.games:
                if name in (g.home, g.away):
                    games.append(_side("group", stage.number, g.home, g.away, g.goals, name,
                                       None, False, group.name))
    for k in report.knockout:
        if name in (k.home, k.away):
            games.append(_side(k.stage, 0, k.home, k.away, k.goals, name, k.winner, k.by_lot))
    return games


def _side(stage: str, number: int, home: str, away: str, goals: tuple[int, int], name: str,
          winner: str | None, by_lot: bool, group: str | None = None) -> PersonalGame:
    own, other = (goals[0], goals[1]) if name == home else (goals[1], goals[0])
    opponent = away if name == home else home
    result = "W" if own > other else "L" if own < other else "D"
    return PersonalGame(stage, number, opponent, own, other, result, by_lot,
                        by_lot and winner == name, group)


def stage_reached(report: RoundReport, name: str) -> tuple[int | None, str, int]:
    """(place 1..4 or None, the stage reached, the last group stage played) of a team
    (``RoundReport.stage_reached``)."""
    return report.stage_reached(name)


def personal_block(
    public: RoundReport | Mapping,
    facts: Iterable[TeamFacts],
    wp_table: Sequence[WpRow],
) -> PersonalBlock:
    """The block for one reader: one entry per fact (their teams, in the
    order given), the games and stage from the public report, the place from
    the league's WP table."""
    report = public_round(public)
    places = {r.team: r.place for r in wp_table}
    chances = report.semi_final.probability
    out = []
    for f in facts:
        played = f.name in report.record
        place, reached, last = stage_reached(report, f.name) if played else (None, "none", 0)
        record = report.record.get(f.name)
        chance = chances.get(f.name) if played else None
        out.append(PersonalTeam(
            name=f.name, played=played, place=place, last_stage=last, reached=reached,
            games=tuple(_games(report, f.name)) if played else (),
            won=record.won if record else 0, drawn=record.drawn if record else 0,
            lost=record.lost if record else 0,
            wp_before=f.wp_before, wp_gain=f.wp_after_gain - f.wp_before,
            wp_after_gain=f.wp_after_gain, aged=f.aged, wp_after=f.wp_after,
            wp_place=places.get(f.name), wp_listed=len(wp_table),
            psz_before=f.psz_before, psz_after=f.psz_after,
            semi_chance=Fraction(chance) if chance is not None else None,
        ))
    gm = frozenset(t.name for t in report.gm_teams)
    return PersonalBlock(tuple(out), gm)


def render_personal(
    block: PersonalBlock, *, language: str, env: Environment | Environments | None = None,
    upcoming: Upcoming | None = None,
) -> PersonalPart:
    """Render one reader's block (empty strings for a reader without a team);
    ``upcoming``: the next round and its deadline, which the block opens with."""
    if block.empty:
        return PersonalPart("", "", "")
    env = environment_for(language, env)
    deadline = (datetime_long(upcoming.deadline, upcoming.timezone, language)
                if upcoming is not None and upcoming.deadline is not None else None)
    next_round = upcoming.round if upcoming is not None else None
    # each template's macro ``teams``: its labels were looked up once, when
    # the template's module was made, not for every reader
    text_part = env.get_template("personal.txt.j2").module
    html_part = env.get_template("personal.html.j2").module
    text = tidy_text(str(text_part.teams(  # type: ignore[attr-defined]
        block, next_round, deadline))).rstrip("\n") + "\n"
    html = str(html_part.teams(block, next_round, deadline))  # type: ignore[attr-defined]
    classes = ", ".join(
        f".{t.css}, .{t.css} td" for t in block.teams
    )
    style = (f"<style>{classes} {{ background: #fff3bf !important; font-weight: 700; }}"
             "</style>")
    return PersonalPart(text, html, style)


def _text_cut(text: str) -> int:
    """Where the block goes in the plain text: after the title and its underline."""
    first = text.find("\n")
    second = text.find("\n", first + 1) if first >= 0 else -1
    return second + 1 if second >= 0 else len(text)


def splice(common: RenderedMail, part: PersonalPart | None) -> RenderedMail:
    """``common`` with ``part`` at its top (``None`` or an empty part: the
    common text as it is, the HTML without the splice marks)."""
    text, html = common.text, common.html
    if part is not None and part.text:
        cut = _text_cut(text)
        text = text[:cut] + "\n" + part.text + text[cut:]
    if html is not None:
        body = part.html if part is not None else ""
        style = part.style if part is not None else ""
        html = html.replace(STYLE_MARK, style, 1).replace(HTML_MARK, body, 1)
    return replace(common, text=text, html=html)


__all__ = [
    "HTML_MARK",
    "STYLE_MARK",
    "PersonalBlock",
    "PersonalGame",
    "PersonalPart",
    "PersonalTeam",
    "TeamFacts",
    "Upcoming",
    "personal_block",
    "render_personal",
    "splice",
    "stage_reached",
    "team_class",
]
