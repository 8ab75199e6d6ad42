"""Issue 20: the personal block opens with each team's WP and the WP it may
spend next round, and the next deadline (RULES.md §8); group games are named
as the tables name them (stage and group letter, never "Gruppe 1"); the
record has real plurals. German and English, text and HTML."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from decimal import Decimal

import pytest

from bot.render.personal import TeamFacts, Upcoming, personal_block, render_personal
from tests.render.rounds import Round

NEXT = Upcoming(13, datetime(2026, 12, 13, 19, 0, tzinfo=UTC), "Europe/Berlin")
DEADLINE = {"de": "Einsendeschluss: So., 13. Dezember 2026, 20:00 MEZ (Europe/Berlin)",
            "en": "Deadline: Sun 13 Dec 2026, 20:00 CET (Europe/Berlin)"}
WORDS = {"de": (("Sieg", "Siege"), ("Unentschieden", "Unentschieden"),
                ("Niederlage", "Niederlagen")),
         "en": (("win", "wins"), ("draw", "draws"), ("loss", "losses"))}


def facts(name: str, after: str = "91.51", aged: bool = True) -> TeamFacts:
    return TeamFacts(name, Decimal("94.70"), Decimal("95.30"), Decimal(after),
                     Decimal("240"), Decimal("251.5"), aged=aged)


@pytest.mark.parametrize("language", ["de", "en"])
def test_the_block_opens_with_wp_to_spend_and_the_deadline(round16: Round,
                                                            language: str) -> None:
    public = round16.public_typed
    mine = [public.placings[0], public.players[-1].name]
    block = personal_block(public, [facts(mine[0]), facts(mine[1], "90.99", False)],
                           round16.wp_table)
    part = render_personal(block, language=language, upcoming=NEXT)
    lines = part.text.splitlines()
    if language == "de":
        assert lines[:5] == ["Deine Teams für Spielrunde 13", "-" * 29,
                             f"  {mine[0]}: 91,51 WP, einsetzbar 91 WP",
                             f"  {mine[1]}: 90,99 WP, einsetzbar 90 WP",
                             f"  {DEADLINE['de']}"]
    else:
        assert lines[:5] == ["Your teams for round 13", "-" * 23,
                             f"  {mine[0]}: 91.51 WP, may spend 91 WP",
                             f"  {mine[1]}: 90.99 WP, may spend 90 WP",
                             f"  {DEADLINE['en']}"]
    first = part.html.split("</section>", 1)[0]
    assert first.startswith('<section class="personal card next">')
    assert DEADLINE[language] in first
    assert ("einsetzbar 91 WP" if language == "de" else "may spend 91 WP") in first
    # then each team as before
    assert part.text.index("Dein Team: " if language == "de" else "Your team: ") > \
        part.text.index(DEADLINE[language])


def test_without_a_planned_deadline_it_says_so(round16: Round) -> None:
    public = round16.public_typed
    block = personal_block(public, [facts(public.placings[0])], round16.wp_table)
    part = render_personal(block, language="de", upcoming=Upcoming(13, None))
    assert part.text.splitlines()[3] == "  Der nächste Einsendeschluss wird noch bekannt gegeben."


@pytest.mark.parametrize("language", ["de", "en"])
def test_group_games_are_named_by_stage_and_group_as_the_tables_name_them(
        round16: Round, language: str) -> None:
    public = round16.public_typed
    for team in (t.name for t in public.players):
        part = render_personal(personal_block(public, [facts(team)], round16.wp_table),
                               language=language, upcoming=NEXT)
        for stage in public.stages:
            for group in stage.groups:
                if team not in group.teams:
                    continue
                label = (f"{stage.number}. Gruppenphase, Gruppe {group.name}" if language == "de"
                         else f"Group stage {stage.number}, Group {group.name}")
                assert f"\n  {label}\n" in part.text, (team, label)
                html_label = (f"{stage.number}. Gruppenphase · Gruppe {group.name}"
                              if language == "de"
                              else f"Group stage {stage.number} · Group {group.name}")
                assert html_label in part.html
        assert not re.search(r"Gruppe \d|Group \d", part.text + part.html)


@pytest.mark.parametrize("language", ["de", "en"])
def test_the_record_has_real_plurals(round16: Round, language: str) -> None:
    public = round16.public_typed
    singular_seen = False
    for team in (t.name for t in public.players):
        record = public.record[team]
        part = render_personal(personal_block(public, [facts(team)], round16.wp_table),
                               language=language, upcoming=NEXT)
        words = [f"{n} {WORDS[language][i][0 if n == 1 else 1]}"
                 for i, n in enumerate((record.won, record.drawn, record.lost))]
        singular_seen |= 1 in (record.won, record.lost)
        assert ("Bilanz: " if language == "de" else "Record: ") + ", ".join(words) in part.text
        assert ", ".join(words) in part.html
        assert not re.search(r"\b1 (?:Siege|Niederlagen|wins|losses|draws)\b",
                             part.text + part.html)
    assert singular_seen  # the round has a team with exactly one win or loss
