"""Short names (RULES.md §7) end to end: from the registration through the
evaluation's stored inputs and the report into the plain-text newsletter's
fixed-width tables, and old rounds (stored without short names) still
replay as identical.

The long-name round: 14 player teams whose names are exactly 30 characters
(the longest a name can be), two of them with the same short name. Its
German and English texts are pinned in ``tests/render/golden/`` like the
main golden files (regenerate with ``UPDATE_GOLDEN=1`` and review the diff).
"""

from __future__ import annotations

import json
import os
import random
import re
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.cli import main
from bot.league.names import derive_short_name
from bot.league.tables import PszRow, WpRow
from bot.mail.maildir_transport import deliver
from bot.render import render_newsletter
from bot.render.model import RoundInfo
from bot.render.textwidth import TEXT_WIDTH, clean, width
from bot.render.view import build_newsletter, table_labels
from bot.rules.lineup import Lineup
from bot.rules.report import (
    FORMAT,
    ReportFormatError,
    build_report,
    public_report,
    upgrade_report,
)
from bot.rules.tournament import Entrant, TournamentError
from bot.storage import results
from tests.league.conftest import Player, evaluate, lineup, make_league, register
from tests.render.conftest import DEADLINE
from tests.render.rounds import MANAGERS, player_lineup, standings
from tests.support.app import START, mail, make_app
from tests.support.clock import FakeClock

GOLDEN = Path(__file__).parent / "golden"

#: (name, short name or None to derive it the way the league does).
LONG_TEAMS = (
    ("Rote Teufel Altona von 1897 eV", "Teufel"),
    ("FC Wanderer Altona-Ottensen 09", "Wanderer"),
    ("SV Wanderer Harburg-Heimfeld 1", "Wanderer"),
    ("Kickers Übersee Bremerhaven 04", None),
    ("Grüne Jäger vom Spreewald 1912", None),
    ("SV Möwe Hamburg-Finkenwerder 4", "Möwe"),
    ("Eintracht Süd Frankfurt a.M. 1", None),
    ("Borussia Nord Gladbach 1900 eV", None),
    ("Dynamo Ölberg aus Königswinter", None),
    ("Fortuna Glück aus Düsseldorf 9", None),
    ("TSV Straße aus Unterföhring 21", None),
    ("Hertha Ost aus Berlin-Pankow 1", None),
    ("Union Äquator Hamburg-Altona 5", "Äquator"),
    ("Sportfreunde Wüst Essen-Kray 7", None),
)
SEED = 20261207
STAGES = {
    "de": {"semi_final": "Halbfinale", "third_place": "Spiel um Platz 3", "final": "Finale"},
    "en": {"semi_final": "Semi-final", "third_place": "Third place", "final": "Final"},
}


def long_entrants() -> list[Entrant]:
    rng = random.Random(SEED)
    return [
        Entrant(name, player_lineup(rng), short_name=short or derive_short_name(name, 15))
        for name, short in LONG_TEAMS
    ]


@pytest.fixture(scope="module")
def long_round() -> dict:
    report = build_report(long_entrants(), SEED, simulations=500)
    managers = {e.name: MANAGERS[i % len(MANAGERS)] for i, e in enumerate(long_entrants())}
    wp, psz = standings(report, managers)
    return {
        "report": report,
        "public": public_report(report),
        "wp": list(wp),
        "psz": list(psz),
    }


def render(public: dict, wp: list[WpRow], psz: list[PszRow], language: str):
    return render_newsletter(
        public, round_info=RoundInfo(3, 2, 12), wp_table=wp, psz_table=psz,
        next_deadline=DEADLINE, timezone="Europe/Berlin", language=language,
        game_name="Turnited", game_address="turnited@example.org",
    )


def cells(*parts: str) -> re.Pattern[str]:
    """A table row: the cells in order, separated by at least one space."""
    return re.compile(r"(?m)(^|\s)" + r"\s+".join(re.escape(p) for p in parts) + r"(\s|$)")


# --------------------------------------------------------------------------- rules + report


def test_the_long_names_are_as_long_as_names_get():
    assert all(len(name) == 30 for name, _ in LONG_TEAMS)
    assert all(len(e.label) <= 15 for e in long_entrants())


def test_report_carries_short_names_and_keeps_them_public(long_round):
    report = long_round["report"]
    assert report["format"] == FORMAT == 2
    wanted = {e.name: e.label for e in long_entrants()}
    for team in report["teams"]:
        if team["gm"]:
            assert team["short_name"] == team["name"]
        else:
            assert team["short_name"] == wanted[team["name"]]
    public = long_round["public"]
    assert [t["short_name"] for t in public["teams"]] == [t["short_name"] for t in report["teams"]]
    assert not any("lineup" in t for t in public["teams"] if not t["gm"])


def test_a_team_without_short_name_is_labelled_by_its_name():
    report = build_report([Entrant("Blaue Adler", Lineup(1, 2, 20, 20, 20))], 3, simulations=0)
    assert report["teams"][0]["short_name"] == "Blaue Adler"


@given(seed=st.integers(0, 2**32), shorts=st.lists(st.text(min_size=1, max_size=15).filter(
    lambda s: s.strip() and not s.strip().casefold().startswith("gm")), min_size=5, max_size=5))
def test_short_names_never_change_the_play(seed, shorts):
    """The report with short names is the one without, but for the labels."""
    rng = random.Random(seed)
    plain = [Entrant(f"Team {i}", player_lineup(rng)) for i in range(5)]
    named = [Entrant(e.name, e.lineup, e.psz, s) for e, s in zip(plain, shorts, strict=True)]
    with_short = build_report(named, seed, simulations=0)
    without = build_report(plain, seed, simulations=0)
    for team in with_short["teams"]:
        team["short_name"] = team["name"]
    assert with_short == without


@pytest.mark.parametrize("short", ["", "   ", 7])
def test_an_empty_short_name_is_an_error(short):
    with pytest.raises(TournamentError, match=r"short name .* is not a name.*Wanderer"):
        Entrant("FC Wanderer Altona", Lineup(1, 2, 20, 20, 20), short_name=short)


def test_a_short_name_may_not_look_like_a_gm_team():
    from bot.rules.tournament import play_tournament

    entrant = Entrant("Rote Teufel", Lineup(1, 2, 20, 20, 20), short_name="gm  0-0-30-30-30")
    with pytest.raises(TournamentError, match=r"short name 'gm  0-0-30-30-30'.*marks GM teams"):
        play_tournament([entrant], random.Random(1))


def test_upgrade_report_reads_format_1(long_round):
    old = json.loads(json.dumps(long_round["report"]))
    for team in old["teams"]:
        del team["short_name"]
    old["format"] = 1
    before = json.dumps(old, sort_keys=True)
    upgraded = upgrade_report(old)
    assert json.dumps(old, sort_keys=True) == before  # the input is not changed
    assert upgraded["format"] == 2
    assert [t["short_name"] for t in upgraded["teams"]] == [t["name"] for t in old["teams"]]
    assert upgrade_report(long_round["report"]) == long_round["report"]


@pytest.mark.parametrize("version", [None, 0, 3, "1", True])
def test_upgrade_report_refuses_unknown_formats(version):
    report = {"teams": []} if version is None else {"format": version, "teams": []}
    with pytest.raises(ReportFormatError, match=f"report format {version!r} is unknown"):
        upgrade_report(report)


# --------------------------------------------------------------------------- labels


def test_labels_are_the_short_names_numbered_where_they_collide():
    labels = table_labels([
        ("FC Wanderer Altona", "Wanderer"), ("SV Wanderer Harburg", "wanderer"),
        ("Wanderer 1", None), ("Rote Teufel", "Teufel"), ("GM 0-0-30-30-30", None),
        ("Blaue Adler", None), ("Adler", "Blaue Adler"),
    ])
    assert labels == {
        "FC Wanderer Altona": "Wanderer 2", "SV Wanderer Harburg": "wanderer 3",
        "Wanderer 1": "Wanderer 1", "Rote Teufel": "Teufel", "GM 0-0-30-30-30": "GM 0-0-30-30-30",
        "Blaue Adler": "Blaue Adler 1", "Adler": "Blaue Adler 2",
    }


@given(st.lists(
    st.tuples(st.text(min_size=1, max_size=8), st.none() | st.sampled_from(
        ["A", "a", "A 1", "a  2", "B", " b ", "A 2 1"])),
    max_size=12, unique_by=lambda t: t[0]))
def test_labels_tell_every_team_apart(teams):
    """Labels that a reader would take for the same (case, runs of spaces,
    control characters aside) never stand for two teams."""

    def fold(text: str) -> str:
        return " ".join(clean(text).split()).casefold()

    labels = table_labels(teams)
    assert set(labels) == {name for name, _ in teams}
    folded = [fold(label) for label in labels.values()]
    assert len(set(folded)) == len(folded)
    wanted = {name: (short if short and short.strip() else name) for name, short in teams}
    counts: dict[str, int] = {}
    for label in wanted.values():
        counts[fold(label)] = counts.get(fold(label), 0) + 1
    for name, label in labels.items():
        assert label.startswith(wanted[name])
        if counts[fold(wanted[name])] == 1:
            assert label == wanted[name]


# --------------------------------------------------------------------------- the text


@pytest.mark.parametrize("language", ["de", "en"])
def test_no_line_is_wider_than_a_mail_window(long_round, language):
    text = render(long_round["public"], long_round["wp"], long_round["psz"], language).text
    too_wide = [line for line in text.splitlines() if width(line) > TEXT_WIDTH]
    assert too_wide == []


@pytest.mark.parametrize("language", ["de", "en"])
def test_tables_show_short_names_and_the_legend_the_full_ones(long_round, language):
    public = long_round["public"]
    text = render(public, long_round["wp"], long_round["psz"], language).text
    nl = build_newsletter(public, long_round["wp"], long_round["psz"])
    assert nl.label("FC Wanderer Altona-Ottensen 09") == "Wanderer 1"
    assert nl.label("SV Wanderer Harburg-Heimfeld 1") == "Wanderer 2"
    assert nl.label("Rote Teufel Altona von 1897 eV") == "Teufel"
    label = nl.label
    for stage in public["stages"]:
        for group in stage["groups"]:
            for game in group["games"]:
                h, a = game["goals"]
                assert cells(label(game["home"]), "–", label(game["away"]), f"{h}:{a}").search(
                    text)
            for row in group["table"]:
                assert cells(f"{row['position']}.", label(row["team"]), str(row["played"]),
                             str(row["won"]), str(row["drawn"]), str(row["lost"]),
                             f"{row['goals_for']}:{row['goals_against']}").search(text)
    for game in public["knockout"]:
        h, a = game["goals"]
        assert cells(STAGES[language][game["stage"]],
                     f"{label(game['home'])} – {label(game['away'])}", f"{h}:{a}").search(text)
    for team in public["semi_final_probability"]:
        assert cells(label(team)).search(text)
    for row in public["expectation_table"]:
        assert cells(f"{row['position']}.", label(row["team"])).search(text)
    for name, _ in LONG_TEAMS:
        assert cells(label(name), name).search(text), f"{name} is missing from the legend"
    head = text.split("Finalrunde" if language == "de" else "Knock-out stage")[0]
    tournament = text.split("WP-Tabelle" if language == "de" else "WP table")[0]
    for name, _ in LONG_TEAMS:
        # outside the standings and the legend, a full name is never used
        assert tournament.count(name) == head.count(name)
    for r in long_round["wp"]:
        assert cells(r.team, r.manager).search(text)


def test_standings_take_a_second_line_for_a_long_manager_name(long_round):
    wp = [replace(r, manager=r.manager + " von und zu Hohenlohe-Langenburg")
          for r in long_round["wp"]]
    psz = [replace(r, manager=r.manager + " von und zu Hohenlohe-Langenburg")
           for r in long_round["psz"]]
    for language in ("de", "en"):
        text = render(long_round["public"], wp, psz, language).text
        assert all(width(line) <= TEXT_WIDTH for line in text.splitlines())
        for r in wp:
            assert re.search(rf"(?m)^ +\d+\. +{re.escape(r.team)} .*\n +{re.escape(r.manager)}$",
                             text)


@pytest.mark.parametrize("language", ["de", "en"])
def test_long_name_newsletter_matches_golden(long_round, language):
    mail = render(long_round["public"], long_round["wp"], long_round["psz"], language)
    path = GOLDEN / f"newsletter-short-names-{language}.txt"
    actual = f"Subject: {mail.subject}\n\n{mail.text}"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.write_text(actual, encoding="utf-8")
    assert path.exists(), f"{path} missing: run with UPDATE_GOLDEN=1 once and review it"
    assert actual == path.read_text(encoding="utf-8"), (
        f"the {language} long-name newsletter differs from {path.name}; if intended, "
        "regenerate with UPDATE_GOLDEN=1 and review the diff"
    )


def test_a_round_stored_without_short_names_reads_as_before(long_round):
    """Format 1 (no short names): the tables show the full names, no legend;
    the same text as the upgraded report gives."""
    old = json.loads(json.dumps(long_round["public"]))
    for team in old["teams"]:
        del team["short_name"]
    old["format"] = 1
    nl = build_newsletter(old, long_round["wp"], long_round["psz"])
    assert nl.legend == () and all(nl.label(n) == n for n, _ in LONG_TEAMS)
    for language in ("de", "en"):
        text = render(old, long_round["wp"], long_round["psz"], language).text
        assert text == render(upgrade_report(old), long_round["wp"], long_round["psz"],
                              language).text
        assert "Kurznamen" not in text and "Short names" not in text


# --------------------------------------------------------------------------- league + app


def test_evaluation_stores_short_names_and_replays_old_rounds(tmp_path, capsys):
    league = make_league(tmp_path)
    Player(league, "anna@example.org").send(
        register("FC Wanderer Altona-Ottensen 09", "Wanderer"), lineup("9-9-20-20-20"))
    Player(league, "bob@example.org").send(
        register("Rote Teufel Altona von 1897 eV"), lineup("8-8-21-21-21"))
    result = evaluate(league, seed=77)
    shorts = {t.name: t.short_name for t in result.public.teams}
    assert shorts["FC Wanderer Altona-Ottensen 09"] == "Wanderer"
    assert shorts["Rote Teufel Altona von 1897 eV"] == "Rote Teufel"  # derived at registration
    with league.db.read() as conn:
        inputs = json.loads(results.stored_inputs_and_report(conn, 1)[0])
    assert {e["name"]: e["short_name"] for e in inputs["entrants"]} == {
        "FC Wanderer Altona-Ottensen 09": "Wanderer",
        "Rote Teufel Altona von 1897 eV": "Rote Teufel",
    }
    assert league.replay(1).identical

    # Turn round 1 into what the bot stored before short names existed.
    with league.db.transaction() as conn:
        row = (*results.stored_inputs_and_report(conn, 1),
               results.stored_report(conn, 1, public=True))
        stored = [json.loads(row[i]) for i in range(3)]
        for entrant in stored[0]["entrants"]:
            del entrant["short_name"]
        for report in stored[1:]:
            report["format"] = 1
            for team in report["teams"]:
                del team["short_name"]
        conn.execute("UPDATE round_results SET inputs = ?, report = ?, public_report = ?",
                     tuple(json.dumps(s) for s in stored))
    outcome = league.replay(1)
    assert outcome.identical and outcome.diff == ""
    state = str(tmp_path / "state")
    assert main(["replay", "1", "--state", state, "--lang", "en"]) == 0
    assert capsys.readouterr().out.strip() == "round 1: identical (seed 77)"

    # An old round is still checked for real: a changed result is noticed.
    with league.db.transaction() as conn:
        stored[1]["placings"] = list(reversed(stored[1]["placings"]))
        conn.execute("UPDATE round_results SET report = ?", (json.dumps(stored[1]),))
    tampered = league.replay(1)
    assert not tampered.identical and "placings" in tampered.diff
    assert main(["replay", "1", "--state", state, "--lang", "en"]) == 1


def test_app_newsletter_uses_registered_short_names(tmp_path):
    clock = FakeClock(START)
    app = make_app(tmp_path, clock, analysis={"simulations": 0})
    teams = [("Rote Teufel Altona von 1897 eV", "Teufel"),
             ("FC Wanderer Altona-Ottensen 09", ""), ("Grüne Jäger vom Spreewald 1912", "")]
    for i, (name, short) in enumerate(teams):
        body = f"Neues Team: {name}" + (f" / {short}" if short else "")
        deliver(app.config.maildir_root / "inbox", mail(
            f"Manager {i} <m{i}@player.example>", f"{body}\nAufstellung: {i + 1}-2-20-20-20\n",
            clock.now))
    app.poll_once()
    clock.now = app.open_round_deadline() + timedelta(minutes=1)
    assert app.evaluate_due() == 1
    public = app.league.stored_report(1, public=True)
    labels = {t["name"]: t["short_name"] for t in public["teams"] if not t["gm"]}
    assert labels["Rote Teufel Altona von 1897 eV"] == "Teufel"
    assert all(len(label) <= 15 for label in labels.values())
    for language in ("de", "en"):
        text = app.render_round(1, language).text
        assert all(width(line) <= TEXT_WIDTH for line in text.splitlines())
        for name, label in labels.items():
            assert cells(label, name).search(text)  # the legend
            group_lines = [line for line in text.splitlines() if re.match(r" +\d\. ", line)
                           and re.search(r"\d+:\d+", line)]
            assert any(label in line for line in group_lines)
            assert not any(name in line for line in group_lines)
