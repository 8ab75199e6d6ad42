"""The newsletter's view model: the display concerns of a public
``RoundReport`` and the league's tables, ordered and labelled so the
templates only have to lay them out.

The report's own types (``bot.rules.report``: the tournament's stages,
groups, games, table rows and knock-out games, the analytics' odds and
expectation rows) and the league's ``WpRow``/``PszRow`` (places and the
shown PSZ computed there) reach the templates as they are. What is added
here is display only: the bracket by stage, the semi-final chances best
first, shared ranks in the expectation table, and the table labels.

Team names: every value keeps the team's full name (the HTML shows it).
The plain text's fixed-width tables show ``Newsletter.label(name)`` instead,
the team's short name (RULES.md §7, ``ReportTeam.short_name``), made unique
within the round; ``Newsletter.legend`` says which label stands for which
team wherever the two differ. A report stored before short names existed
(format 1) has none, so its labels are the full names.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction

from bot.league.tables import PszRow, WpRow
from bot.render.personal import team_class
from bot.render.public import public_round
from bot.render.textwidth import clean
from bot.rules.analytics import ExpectationRow, KnockoutOdds
from bot.rules.lots import commitment_text, seed_commitment
from bot.rules.report import ReportTeam, RoundReport
from bot.rules.tournament import KnockoutGame, Stage


@dataclass(frozen=True, slots=True)
class Bracket:
    semi_finals: tuple[KnockoutGame, ...]
    third_place: KnockoutGame | None
    final: KnockoutGame | None

    @property
    def games(self) -> tuple[KnockoutGame, ...]:
        """Every knock-out game in playing order."""
        rest = tuple(g for g in (self.third_place, self.final) if g is not None)
        return self.semi_finals + rest


@dataclass(frozen=True, slots=True)
class SemiFinalChance:
    """A semi-finalist's estimated chance (exact value of the stored float)."""

    team: str
    probability: Fraction
    stderr: Fraction | None


@dataclass(frozen=True, slots=True)
class PlacedExpectation:
    """A line of the expectation table with its rank (equal points share one)."""

    position: int
    row: ExpectationRow


@dataclass(frozen=True, slots=True)
class LegendEntry:
    """A label of the plain-text tables and the team it stands for."""

    label: str
    team: str
    gm: bool


@dataclass(frozen=True, slots=True)
class Newsletter:
    report: RoundReport
    bracket: Bracket
    chances: tuple[SemiFinalChance, ...]
    expectation: tuple[PlacedExpectation, ...]
    wp_table: tuple[WpRow, ...]
    psz_table: tuple[PszRow, ...]
    gm: frozenset[str]
    #: Full name -> the label the plain-text tables show (see the module docstring).
    labels: Mapping[str, str] = field(default_factory=dict)
    #: Every label that is not the team's full name, ordered by label.
    legend: tuple[LegendEntry, ...] = ()
    #: At a season's end: team -> its WP before the ageing (the WP table shows both).
    aged: Mapping[str, Decimal] = field(default_factory=dict)
    #: This round's number, for the revealed seed's commitment (None: not shown).
    round_number: int | None = None
    #: The next round's published seed commitment, when its seed is drawn already.
    next_commitment: str | None = None

    @property
    def empty(self) -> bool:
        return self.report.empty

    @property
    def points(self) -> tuple[int, int, int]:
        """Table points for a win, a draw and a loss."""
        p = self.report.points
        return p.win, p.draw, p.loss

    @property
    def teams(self) -> int:
        """How many teams played."""
        return len(self.report.teams)

    @property
    def player_teams(self) -> int:
        return len(self.report.players)

    @property
    def placings(self) -> tuple[str, ...]:
        return self.report.placings

    @property
    def stages(self) -> tuple[Stage, ...]:
        return self.report.stages

    @property
    def gm_teams(self) -> tuple[ReportTeam, ...]:
        return self.report.gm_teams

    @property
    def simulations(self) -> int:
        return self.report.semi_final.simulations

    @property
    def season_end(self) -> bool:
        return bool(self.aged)

    @property
    def seed(self) -> int:
        """This round's seed, revealed with the results (RULES.md §4)."""
        return self.report.seed

    @property
    def commitment(self) -> str | None:
        """The commitment of this round's seed as published before its deadline."""
        if self.round_number is None:
            return None
        return seed_commitment(self.round_number, self.report.seed)

    @property
    def check_command(self) -> str | None:
        """The one line a player runs to check the revealed seed."""
        if self.round_number is None:
            return None
        return f"printf '{commitment_text(self.round_number, self.report.seed)}' | sha256sum"

    def css(self, team: str) -> str:
        """The class of ``team``'s rows and cells (the personal block's style
        rule makes the reader's own teams stand out)."""
        return team_class(team)

    def label(self, team: str) -> str:
        """How ``team`` appears in a fixed-width table: its unique short label."""
        return self.labels.get(team, team)

    def odds(self, game: KnockoutGame) -> KnockoutOdds | None:
        """The exact odds of a knock-out game, home team's side."""
        return self.report.odds_of(game)


def ranks(values: Sequence[object]) -> list[int]:
    """Competition ranks (1, 2, 2, 4) of values already sorted best first."""
    out: list[int] = []
    for index, value in enumerate(values):
        out.append(out[-1] if index and value == values[index - 1] else index + 1)
    return out


def _bracket(report: RoundReport) -> Bracket:
    third, final = report.knockout_game("third_place"), report.knockout_game("final")
    return Bracket(
        report.knockout_game("semi_final"),
        third[0] if third else None,
        final[0] if final else None,
    )


def _chances(report: RoundReport) -> tuple[SemiFinalChance, ...]:
    estimate = report.semi_final
    if not estimate.simulations:
        return ()
    chances = [
        SemiFinalChance(
            team,
            Fraction(estimate.probability[team]),
            Fraction(estimate.stderr[team]) if team in estimate.stderr else None,
        )
        for team in report.semi_finalists
        if team in estimate.probability
    ]
    chances.sort(key=lambda c: -c.probability)
    return tuple(chances)


def _expectation(report: RoundReport) -> tuple[PlacedExpectation, ...]:
    rows = sorted(report.expectation, key=lambda r: -r.points)  # stable among equals
    return tuple(
        PlacedExpectation(rank, row)
        for rank, row in zip(ranks([r.points for r in rows]), rows, strict=True)
    )


def _fold(text: str) -> str:
    """Labels that look alike to a reader compare equal: spaces folded, case ignored."""
    return " ".join(clean(text).split()).casefold()


def table_labels(teams: Sequence[tuple[str, str | None]]) -> dict[str, str]:
    """Full name -> label for the fixed-width tables, from (name, short name)
    pairs in report order (a missing short name: the name).

    Labels must tell teams apart, but short names need not be unique (two
    managers may both pick ``Wanderer``). Teams whose labels look alike
    (``_fold``) are numbered in report order, ``Wanderer 1``,
    ``Wanderer 2``, skipping any number that is itself another team's label.
    """
    wanted: dict[str, str] = {}
    for name, short in teams:
        if name not in wanted:
            wanted[name] = short if short and short.strip() else name
    by_fold: dict[str, list[str]] = {}
    for name, label in wanted.items():
        by_fold.setdefault(_fold(label), []).append(name)
    taken = set(by_fold)
    labels = dict(wanted)
    for names in by_fold.values():
        if len(names) < 2:
            continue
        number = 0
        for name in names:
            number += 1
            while _fold(f"{wanted[name]} {number}") in taken:
                number += 1
            labels[name] = f"{wanted[name]} {number}"
            taken.add(_fold(labels[name]))
    return labels


def _sort_key(text: str) -> str:
    """Alphabetical as a reader expects: ``Äquator`` next to ``Aachen``, not after ``Z``."""
    decomposed = unicodedata.normalize("NFKD", _fold(text))
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _legend(labels: Mapping[str, str], gm: frozenset[str]) -> tuple[LegendEntry, ...]:
    entries = [
        LegendEntry(label, name, name in gm) for name, label in labels.items() if label != name
    ]
    entries.sort(key=lambda e: (_sort_key(e.label), _fold(e.label), e.label, e.team))
    return tuple(entries)


def build_newsletter(
    public: RoundReport | Mapping, wp_table: Iterable[WpRow], psz_table: Iterable[PszRow],
    *, aged: Mapping[str, Decimal] | None = None, round_number: int | None = None,
    next_commitment: str | None = None,
) -> Newsletter:
    """Read a public report (``public_round``: no player lineup) and the
    league's tables (in the league's order, with its places) into a
    ``Newsletter``. ``aged``: at a season's end, each team's WP before the
    ageing; ``round_number``: reveal the seed with its commitment;
    ``next_commitment``: the next round's commitment, if drawn."""
    report = public_round(public)
    gm = frozenset(t.name for t in report.gm_teams)
    labels = table_labels([(t.name, t.short_name) for t in report.teams])
    return Newsletter(
        report=report,
        bracket=_bracket(report),
        chances=_chances(report),
        expectation=_expectation(report),
        wp_table=tuple(wp_table),
        psz_table=tuple(psz_table),
        gm=gm,
        labels=labels,
        legend=_legend(labels, gm),
        aged=dict(aged or {}),
        round_number=round_number,
        next_commitment=next_commitment,
    )
