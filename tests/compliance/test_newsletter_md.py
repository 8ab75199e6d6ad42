"""RULES.md §8 (what the results mail contains), through the App on the
embedded Maildir transport (``tests/support/app.py``) and the newsletter
renderer; the listing rule of the WP table through the league service."""

from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest

from bot.app import App
from bot.config import Config
from bot.league.service import LeagueSettings
from bot.mail.maildir_transport import deliver
from bot.render.formatting import fixed
from bot.render.formatting import percent as shown_percent
from bot.render.model import RoundInfo
from bot.render.newsletter import render_newsletter
from bot.rules.analytics import percent
from bot.rules.lineup import Lineup
from bot.rules.report import round_report
from bot.rules.tournament import Entrant
from tests.compliance.support import Manager, evaluate, make_league
from tests.support.app import START, body_of, mail, make_app, sent
from tests.support.clock import FakeClock

LINEUPS = ["3-2-17-19-23", "1-3-18-20-24", "2-2-19-21-25", "3-3-20-22-26", "1-2-21-23-27",
           "2-3-22-24-28"]


def flat(text: str) -> str:
    return " ".join(text.split())


def table_line(*cells: str) -> re.Pattern[str]:
    """A row of a plain-text table: the cells in order, separated by spaces."""
    return re.compile(r"\s+".join(re.escape(c) for c in cells))


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> tuple[App, dict]:
    """Six managers in round 1 (one of them English); evaluated with 500 simulations."""
    tmp_path = tmp_path_factory.mktemp("newsletter")
    clock = FakeClock(START)
    app = make_app(tmp_path, clock)
    for i, lineup in enumerate(LINEUPS):
        keyword = "New team" if i == 5 else "Neues Team"
        deliver(app.config.maildir_root / "inbox", mail(
            f"Manager {i} <m{i}@player.example>",
            f"{keyword}: Elf Nummer {i}\nManager: Trainer {i}\n{lineup}\n", clock.now))
    app.poll_once()
    clock.now = app.open_round_deadline() + timedelta(minutes=1)
    assert app.evaluate_due() == 1
    app.drain_outbox()
    return app, app.league.stored_report(1, public=False)


def test_newsletter_contents(played) -> None:
    app, report = played
    text = app.render_round(1, "de").text
    for heading in ("Endstand", "Finalrunde", "1. Gruppenphase (4 Gruppen)",
                    "2. Gruppenphase (2 Gruppen)", "Aufstellungen der GM-Teams",
                    "Turnierfußball", "WP-Tabelle", "PSZ-Tabelle"):
        assert heading in text
    for stage in report["stages"]:
        for group in stage["groups"]:
            for game in group["games"]:
                h, a = game["goals"]
                assert table_line(game["home"], "–", game["away"], f"{h}:{a}").search(text)
            for row in group["table"]:
                notes = ", ".join(
                    n for n, flag in (("weiter", row["qualified"]), ("Los", row["by_lot"])) if flag)
                diff = row["goal_difference"]
                cells = [f"{row['position']}.", row["team"], str(row["played"]), str(row["won"]),
                         str(row["drawn"]), str(row["lost"]),
                         f"{row['goals_for']}:{row['goals_against']}",
                         f"+{diff}" if diff > 0 else str(diff), str(row["points"])]
                assert table_line(*cells, *([notes] if notes else [])).search(text), cells
    names = {"semi_final": "Halbfinale", "third_place": "Spiel um Platz 3", "final": "Finale"}
    for game in report["knockout"]:
        h, a = game["goals"]
        assert re.search(re.escape(names[game["stage"]]) + r"\s+" + re.escape(
            f"{game['home']} – {game['away']}") + rf"\s+{h}:{a}", text)
    placings = "".join(f" {i}. {team}" for i, team in enumerate(report["placings"], 1))
    assert "Endstand --------" + placings + " Finalrunde" in flat(text)


def test_newsletter_shows_gm_lineups_and_no_player_lineup(played) -> None:
    app, report = played
    for language in ("de", "en"):
        rendered = app.render_round(1, language)
        for lineup in LINEUPS:
            assert lineup not in rendered.text and lineup not in (rendered.html or "")
        for gm in report["gm_teams"]:
            t, a, v, m, s = Lineup.parse(gm["lineup"]).values
            assert table_line(gm["name"], *map(str, (t, a, v, m, s))).search(rendered.text)
    archive = sorted((app.config.state_dir / "archive").glob("round-001.*"))
    assert [p.suffix for p in archive] == [".html", ".json", ".txt"]
    for path in archive:
        assert not any(lineup in path.read_text(encoding="utf-8") for lineup in LINEUPS)
    # what was mailed is the same: no player lineup in any newsletter
    for msg in sent(app):
        if "Ergebnisse" in str(msg["Subject"]) or "Results" in str(msg["Subject"]):
            assert not any(lineup in body_of(msg) for lineup in LINEUPS)


def test_probabilities_are_on_by_default(played, tmp_path) -> None:
    assert LeagueSettings().simulations > 0
    assert Config.from_mapping({}, tmp_path).analysis.simulations > 0
    app, report = played
    assert report["simulations"] == 500
    assert sorted(report["semi_final_probability"]) == sorted(report["semi_finalists"])
    text = flat(app.render_round(1, "de").text)
    section = text.split("Wahrscheinlichkeit, das Halbfinale zu erreichen")[1]
    section = section.split("Gruppenphase")[0]
    for team in report["semi_finalists"]:
        assert team in section
    for odds in report["knockout_odds"]:
        exact = [Fraction(odds[k]) for k in ("win", "draw", "loss")]
        assert sum(exact) == 1
        rounded = [percent(p) for p in exact]  # whole percent, halves up
        assert [odds["percent"][k] for k in ("win", "draw", "loss")] == rounded
        # shown rounded; a positive chance that rounds to 0 is "<1%", not "0%"
        shown = [shown_percent(p, "de") for p in exact]
        assert all(s in (f"{r}%", "<1%", ">99%") for s, r in zip(shown, rounded, strict=True))
        assert "vorher S/U/N: {} / {} / {}".format(*shown) in text


def test_wp_table_in_the_newsletter(played) -> None:
    app, report = played
    text = app.render_round(1, "de").text
    english = app.render_round(1, "en").text
    with app.db.read() as conn:
        rows = app.league.wp_table(conn, 1)
    assert len(rows) == 6 and [r.wp for r in rows] == sorted((r.wp for r in rows), reverse=True)
    for row in rows:
        assert row.gain == Decimal(report["wp_gain"][row.team])
        assert row.manager == f"Trainer {row.team[-1]}"
        assert table_line(f"{row.place}.", row.team, row.manager, fixed(row.wp, 2, "de"),
                          fixed(row.gain, 2, "de", sign=True)).search(text)
        assert table_line(f"{row.place}.", row.team, row.manager, fixed(row.wp, 2, "en"),
                          fixed(row.gain, 2, "en", sign=True)).search(english)
        assert re.fullmatch(r"\d+,\d\d", fixed(row.wp, 2, "de"))


def test_psz_table_is_published_whole(played) -> None:
    app, report = played
    text = app.render_round(1, "de").text
    section = text.split("PSZ-Tabelle")[1]
    with app.db.read() as conn:
        rows = app.league.psz_table(conn, 1)
    assert {r.team for r in rows} == {t["name"] for t in report["teams"] if not t["gm"]}
    for row in rows:
        assert Decimal(report["psz"][row.team]["after"]) == row.psz
        assert table_line(f"{row.place}.", row.team, row.manager, str(row.shown)).search(section)
    assert not re.search(r"\d+,\d", section.split("Nächster")[0])  # whole numbers only


def test_wp_table_lists_the_last_three_rounds_by_wp(tmp_path) -> None:
    league = make_league(tmp_path)
    early = Manager(league, "early@x.example", "Frueh")
    early.write("Neues Team: Nur Eins\n5-5-25-25-25")
    steady = Manager(league, "steady@x.example", "Stetig")
    steady.write("Neues Team: Immer Da\n10-10-15-15-20")
    listed = []
    for number in range(1, 6):
        if number > 1:
            steady.write("Immer Da: 10-10-15-15-20")
        result = evaluate(league, seed=number)
        listed.append({row.team for row in result.wp_table})
        wps = [row.wp for row in result.wp_table]
        assert wps == sorted(wps, reverse=True)
        for row in result.wp_table:
            assert row.wp == row.wp.quantize(Decimal("0.01"))
            assert row.manager in ("Frueh", "Stetig")
    both = {"Nur Eins", "Immer Da"}
    assert listed == [both, both, both, {"Immer Da"}, {"Immer Da"}]
    with league.db.read() as conn:
        kept = conn.execute("SELECT wp FROM teams WHERE name = 'Nur Eins'").fetchone()[0]
    assert Decimal(kept) > 89  # not listed, but it keeps (aged) WP


def test_empty_round_newsletter_says_so(tmp_path: Path) -> None:
    clock = FakeClock(START)
    app = make_app(tmp_path, clock, analysis={"simulations": 0})
    deliver(app.config.maildir_root / "inbox", mail(
        "jane@player.example", "New team: Waiting Eleven\n", clock.now, subject="my team"))
    app.poll_once()
    clock.now = app.open_round_deadline() + timedelta(minutes=1)
    assert app.evaluate_due() == 1
    german = flat(app.render_round(1, "de").text)
    english = flat(app.render_round(1, "en").text)
    assert "Deshalb gab es kein Turnier. Die Runde zählt trotzdem zur Saison." in german
    assert "so there was no tournament. The round still counts towards the season." in english
    app.drain_outbox()
    to_jane = [flat(body_of(m)) for m in sent(app)
               if m["To"].addresses[0].addr_spec == "jane@player.example"]
    assert len(to_jane) == 2  # the reply and the newsletter, in the language she wrote in
    assert sum("no tournament" in body for body in to_jane) == 1


def test_level_knockout_game_is_marked_in_both_languages() -> None:
    entrants = [Entrant(f"Null {i:02d}", Lineup(0, 0, 0, 0, 0)) for i in range(16)]
    public = round_report(entrants, 5, simulations=0).public()
    texts = {}
    for language in ("de", "en"):
        texts[language] = render_newsletter(
            public, round_info=RoundInfo(1, 1, 1), wp_table=[], psz_table=[],
            next_deadline=None, timezone="Europe/Berlin", language=language,
            game_name="Turnited",
        ).text
    final = public.knockout[-1]
    assert final.stage == "final" and final.by_lot
    assert table_line("Finale", f"{final.home} – {final.away}", "0:0", "n.L.").search(
        texts["de"])
    assert f"Sieger durch Los: {final.winner}" in texts["de"]
    assert "zählt für WP und PSZ als Remis" in flat(texts["de"])
    assert table_line("Final", f"{final.home} – {final.away}", "0:0", "(by lot)").search(
        texts["en"])
    assert f"winner by lot: {final.winner}" in texts["en"]
