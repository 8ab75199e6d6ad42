"""The results newsletter (RULES.md §8) rendered from a real round."""

from __future__ import annotations

import copy
import html
import re
from fractions import Fraction

import pytest

from bot.render import (
    InvalidReportError,
    LineupLeakError,
    UnknownLanguageError,
    make_environment,
    render_newsletter,
)
from bot.render.formatting import estimate_percent, percent
from bot.render.textwidth import width
from tests.render.conftest import DEADLINE
from tests.render.rounds import Round, make_round


def render(rnd: Round, language: str = "de", **overrides: object):
    public = overrides.pop("public", rnd.public)
    kwargs = {
        "round_info": rnd.round_info,
        "wp_table": rnd.wp_table,
        "psz_table": rnd.psz_table,
        "next_deadline": DEADLINE,
        "timezone": "Europe/Berlin",
        "language": language,
        "game_name": "Turnited",
        "game_address": "turnited@example.org",
    }
    kwargs.update(overrides)
    return render_newsletter(public, **kwargs)


@pytest.fixture(scope="module")
def mails(round16: Round) -> dict:
    return {lang: render(round16, lang) for lang in ("de", "en")}


def cell(name: str) -> str:
    """A team name as the HTML shows it (GM teams in italics)."""
    escaped = html.escape(name, quote=True).replace("&#x27;", "&#39;")
    return f'<i class="gm">{escaped}</i>' if name.startswith("GM ") else escaped


def games(rnd: Round):
    for stage in rnd.public["stages"]:
        for group in stage["groups"]:
            yield from group["games"]


def test_subject_names_game_round_and_season(mails: dict) -> None:
    assert mails["de"].subject == "Turnited: Ergebnisse der Spielrunde 12 (Saison 3, Runde 2)"
    assert mails["en"].subject == "Turnited: results of round 12 (season 3, round 2)"


@pytest.mark.parametrize("language", ["de", "en"])
def test_every_group_game_in_text_and_html(round16: Round, mails: dict, language: str) -> None:
    text, page = mails[language].text, mails[language].html
    lines = text.split("\n")
    count = 0
    for game in games(round16):
        home, away = game["home"], game["away"]
        score = f"{game['goals'][0]}:{game['goals'][1]}"
        pattern = re.compile(rf"^\s+{re.escape(home)}\s+–\s+{re.escape(away)}\s+{score}$")
        count += 1
        assert any(pattern.match(line) for line in lines), (home, away, score)
        row = f"<tr><td>{cell(home)}</td><td>{score}</td><td>{cell(away)}</td></tr>"
        assert row in page, row
    assert count == sum(12 * len(s["groups"]) for s in round16.public["stages"])


@pytest.mark.parametrize(
    ("language", "through", "lot"), [("de", "weiter", "Los"), ("en", "through", "lot")]
)
def test_group_tables_with_qualifiers_and_lots(
    round16: Round, mails: dict, language: str, through: str, lot: str
) -> None:
    lines = mails[language].text.split("\n")
    marked_lots = 0
    for stage in round16.public["stages"]:
        for group in stage["groups"]:
            for row in group["table"]:
                diff = row["goals_for"] - row["goals_against"]
                shown = re.escape(f"{diff:+d}" if diff else "0")
                pattern = (
                    rf"^\s+{row['position']}\.\s+{re.escape(row['team'])}\s+{row['played']}\s+"
                    rf"{row['won']}\s+{row['drawn']}\s+{row['lost']}\s+"
                    rf"{row['goals_for']}:{row['goals_against']}\s+{shown}\s+{row['points']}"
                )
                found = [line for line in lines if re.match(pattern, line)]
                assert len(found) >= 1, pattern
                marks = {m.strip() for m in found[0][re.match(pattern, found[0]).end():].split(",")}
                assert (through in marks) == row["qualified"]
                assert (lot in marks) == row["by_lot"]
                marked_lots += row["by_lot"]
    assert marked_lots == 2  # the seed of round16 has a lot decision in a group


def test_knockout_by_lot_marked(round16: Round, mails: dict) -> None:
    final = next(k for k in round16.public["knockout"] if k["stage"] == "final")
    assert final["by_lot"]  # the seed of round16 has a final decided by lot
    score = f"{final['goals'][0]}:{final['goals'][1]}"
    de, en = mails["de"].text, mails["en"].text
    assert re.search(
        rf"Finale\s+{re.escape(final['home'])} – {re.escape(final['away'])}\s+{score}\s+n\.L\.", de
    )
    assert f"Sieger durch Los: {final['winner']}" in de
    assert re.search(rf"Final\s+.*{score}\s+\(by lot\)", en)
    assert f"winner by lot: {final['winner']}" in en
    assert mails["de"].html.count('class="mark lot">n.L.</span>') == sum(
        k["by_lot"] for k in round16.public["knockout"]
    )


def test_placings_and_knockout_odds(round16: Round, mails: dict) -> None:
    text = mails["de"].text
    for i, team in enumerate(round16.public["placings"], 1):
        assert f"\n  {i}. {team}\n" in text
    for odds in round16.public["knockout_odds"]:
        line = " / ".join(percent(Fraction(odds[k])) for k in ("win", "draw", "loss"))
        assert f"vorher S/U/N: {line}" in text
        assert f"before W/D/L: {line}" in mails["en"].text


def test_gm_lineups_published(round16: Round, mails: dict) -> None:
    assert round16.public["gm_teams"]
    for gm in round16.public["gm_teams"]:
        values = r"\s+".join(gm["lineup"].split("-"))
        assert re.search(rf"^\s+{re.escape(gm['name'])}\s+{values}$", mails["de"].text, re.M)


def test_wp_table_ordered_with_two_decimals(round16: Round, mails: dict) -> None:
    text = mails["de"].text
    section = text[text.index("WP-Tabelle") : text.index("PSZ-Tabelle")]
    rows = re.findall(
        r"^\s+(\d+)\.\s+(.+?)\s{2,}(.+?)\s{2,}(\d+,\d\d)\s+(\+?\d+,\d\d)$", section, re.M
    )
    assert len(rows) == len(round16.wp_table)
    wps = [Fraction(r[3].replace(",", ".")) for r in rows]
    assert wps == sorted(wps, reverse=True)
    by_team = {w.team: w for w in round16.wp_table}
    for _, team, manager, wp, gain in rows:
        assert by_team[team].manager == manager
        assert Fraction(wp.replace(",", ".")) == by_team[team].wp
        assert Fraction(gain.replace(",", ".")) == by_team[team].gain


def test_psz_table_whole_numbers(round16: Round, mails: dict) -> None:
    text = mails["en"].text
    section = text[text.index("PSZ table") : text.index("Next deadline")]
    rows = re.findall(r"^\s+(\d+)\.\s+(.+?)\s{2,}(.+?)\s{2,}(\d+)$", section, re.M)
    assert len(rows) == len(round16.psz_table)
    by_team = {p.team: p for p in round16.psz_table}
    for _, team, _, shown in rows:
        assert abs(int(shown) - Fraction(by_team[team].psz)) <= Fraction(1, 2)


def test_semi_final_probabilities(round16: Round, mails: dict) -> None:
    text = mails["de"].text
    assert "Monte-Carlo-Simulation über 2000 Turniere" in text
    assert "Monte Carlo simulation of 2000 tournaments" in mails["en"].text
    for team, p in round16.public["semi_final_probability"].items():
        shown = re.escape(estimate_percent(p))
        assert re.search(rf"^\s+{re.escape(team)}\s+{shown}\s+± ", text, re.M)
    assert mails["de"].html.count('<div class="bar">') == 4


def test_tiny_probability_is_less_than_one_percent(round16: Round) -> None:
    public = copy.deepcopy(round16.public)
    team = next(iter(public["semi_final_probability"]))
    # the semi-finalists' part of the estimate is derived from every team's
    public["semi_final_probability"][team] = 0.001
    public["semi_final_probability_all"][team] = 0.001
    mail = render(round16, "en", public=public)
    assert re.search(rf"^\s+{re.escape(team)}\s+<1%", mail.text, re.M)
    assert "&lt;1%" in mail.html
    assert " 0%" not in mail.text.split("Chance of reaching")[1].split("Group stage")[0]


def test_expectation_table_every_team_by_points(round16: Round, mails: dict) -> None:
    text = mails["en"].text
    section = text[text.index("Turnierfußball") : text.index("WP table")]
    rows = re.findall(r"^\s+\d+\.\s+(.+?)\s{2,}(\d+\.\d)\s", section, re.M)
    assert {r[0] for r in rows} == {t["name"] for t in round16.public["teams"]}
    points = [Fraction(r[1]) for r in rows]
    assert points == sorted(points, reverse=True)


def test_deadline_with_time_zone(mails: dict) -> None:
    assert "So., 6. Dezember 2026, 20:00 MEZ (Europe/Berlin)" in mails["de"].text
    assert "Sun 6 Dec 2026, 20:00 CET (Europe/Berlin)" in mails["en"].text
    assert "So., 6. Dezember 2026, 20:00 MEZ (Europe/Berlin)" in mails["de"].html


def test_no_deadline_yet(round16: Round) -> None:
    assert "wird noch bekannt gegeben" in render(round16, "de", next_deadline=None).text


def test_howto_footer_names_address_and_forms(mails: dict) -> None:
    for mail in mails.values():
        assert "turnited@example.org" in mail.text
        assert "T-A-V-M-S" in mail.text
        assert 'href="mailto:turnited@example.org"' in mail.html


def test_empty_round_says_so(round_empty: Round) -> None:
    de = render(round_empty, "de", wp_table=[], psz_table=[])
    en = render(round_empty, "en", wp_table=[], psz_table=[])
    assert "kein Turnier" in de.text and "kein Turnier" in de.html
    assert "no tournament" in en.text and "no tournament" in en.html
    assert "Finalrunde" not in de.text and "WP-Tabelle" in de.text


def test_plain_text_fits_a_mail_window(mails: dict) -> None:
    for mail in mails.values():
        assert max(width(line) for line in mail.text.split("\n")) <= 76
        assert mail.text.endswith("\n") and "\r" not in mail.text


def test_rendering_is_deterministic(round16: Round, mails: dict) -> None:
    again = render(round16, "de", env=make_environment("de"))
    assert again == mails["de"]


def test_full_report_refused(round16: Round) -> None:
    with pytest.raises(LineupLeakError, match="player lineup of team") as err:
        render(round16, "de", public=round16.report)
    assert "public_report" in str(err.value)


def test_lineup_hidden_elsewhere_refused(round16: Round) -> None:
    public = copy.deepcopy(round16.public)
    team = round16.entrants[0].name
    public["record"][team]["lineup"] = "3-4-20-20-20"
    with pytest.raises(LineupLeakError, match=re.escape(f"['record'][{team!r}]")):
        render(round16, "en", public=public)
    public = copy.deepcopy(round16.public)
    public["lineups"] = {team: "3-4-20-20-20"}
    with pytest.raises(LineupLeakError):
        render(round16, "en", public=public)


def test_malformed_report_names_the_key(round16: Round) -> None:
    public = copy.deepcopy(round16.public)
    del public["stages"][0]["groups"][1]["table"][2]["points"]
    where = "['stages'][0]['groups'][1]['table'][2]['points']"
    with pytest.raises(InvalidReportError, match=re.escape(where)):
        render(round16, "de", public=public)


def test_unknown_language(round16: Round) -> None:
    with pytest.raises(UnknownLanguageError, match="'fr'"):
        render(round16, "fr")


def test_environment_of_another_language_refused(round16: Round) -> None:
    with pytest.raises(ValueError, match="environment is for 'en'"):
        render(round16, "de", env=make_environment("en"))


NASTY = [
    "<script>alert(1)</script>",
    'Tom & "Jerry" <b>',
    "Rote\r\nBcc: evil@example.com",
    "</td></tr></table><img src=http://x/>",
]


@pytest.fixture(scope="module")
def nasty_round() -> Round:
    names = [*NASTY, "Grüne Jäger", "Ölberg", "Straße", "Ünion"]
    return make_round(len(names), seed=5, simulations=200, names=names)


@pytest.mark.parametrize("language", ["de", "en"])
def test_user_text_is_escaped_in_html(nasty_round: Round, language: str) -> None:
    mail = render(nasty_round, language, game_name="<b>Turnited</b>")
    page = mail.html
    assert "<script" not in page and "<img" not in page and "<b>Turnited" not in page
    assert "&lt;b&gt;Turnited&lt;/b&gt;" in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "Tom &amp; &#34;Jerry&#34; &lt;b&gt;" in page
    assert "&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;&lt;img src=http://x/&gt;" in page
    # the text version shows the names as written, but never a line break inside one
    assert "<script>alert(1)</script>" in mail.text
    assert "Rote  Bcc: evil@example.com" in mail.text
    assert not any(line.startswith("Bcc:") for line in mail.text.split("\n"))


def test_html_is_self_contained(mails: dict) -> None:
    for mail in mails.values():
        page = mail.html
        assert page.startswith("<!DOCTYPE html>")
        assert page.count("<style>") == 1
        for bad in ("<script", "<img", "<link", "<iframe", "@import", "url(", "src="):
            assert bad not in page, bad
        links = re.findall(r'href="([^"]*)"', page)
        assert links and all(link.startswith("mailto:") for link in links)


def test_long_names_stack_the_knockout_stage() -> None:
    names = [f"{i} Sportgemeinschaft Lange Namen"[:30] for i in range(10)]
    rnd = make_round(10, seed=3, simulations=100, names=names)
    text = render(rnd, "de").text
    final = next(k for k in rnd.public["knockout"] if k["stage"] == "final")
    assert re.search(
        rf"^  Finale\n    {re.escape(final['home'])} – {re.escape(final['away'])}\s+\d+:\d+",
        text, re.M,
    )
    section = text[text.index("Finalrunde") : text.index("Wahrscheinlichkeit")]
    assert max(width(line) for line in section.split("\n")) <= 76
