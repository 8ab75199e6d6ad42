"""The HTML newsletter in a real browser: headless Chromium at phone and
desktop width.

Fails on any JavaScript error or console error, on any request for a
resource other than the page itself (the mail must be self-contained), and
on an unreadable layout: content narrower than 300 px on a phone, a page
wider than the screen (only the marked tables may scroll sideways), any
element sticking out of the viewport outside a scrolling table, or text
smaller than 11 px. Screenshots are written next to the page in pytest's
temporary folder (the path is printed) so a person can look at them.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from bot.render import render_newsletter, write_archive
from bot.render.model import RoundInfo
from bot.render.personal import (
    TeamFacts,
    Upcoming,
    personal_block,
    render_personal,
    splice,
    team_class,
)
from bot.render.reminder import render_reminder
from bot.render.site import SiteData, write_site
from bot.rules.rounding import to_cents
from bot.rules.wp import age
from bot.storage.history import Ageing, EvaluatedRound, TeamInfo, TeamRound
from tests.render.browser import Chromium
from tests.render.conftest import DEADLINE
from tests.render.pages import check_page
from tests.render.rounds import Round, make_round

pytestmark = pytest.mark.browser

@pytest.fixture(scope="module")
def big_round() -> Round:
    """40 player teams: 64 teams, four group stages, long names."""
    return make_round(40, seed=404, simulations=500)


@pytest.mark.parametrize("language", ["de", "en"])
def test_newsletter_in_chromium(
    browser: Chromium, round16: Round, tmp_path: Path, language: str
) -> None:
    mail = render_newsletter(
        round16.public_typed, round_info=round16.round_info, wp_table=round16.wp_table,
        psz_table=round16.psz_table, next_deadline=DEADLINE, timezone="Europe/Berlin",
        language=language, game_name="Turnited", game_address="turnited@example.org",
    )
    page = tmp_path / f"newsletter-{language}.html"
    page.write_text(mail.html, encoding="utf-8")
    layout = check_page(browser, page, f"newsletter-{language}")
    assert layout["phone"]["title"] == mail.subject
    assert layout["desktop"]["main"] <= 780  # a readable column on a wide screen


def test_big_newsletter_in_chromium(browser: Chromium, big_round: Round, tmp_path: Path) -> None:
    mail = render_newsletter(
        big_round.public_typed, round_info=big_round.round_info, wp_table=big_round.wp_table,
        psz_table=big_round.psz_table, next_deadline=DEADLINE, timezone="Europe/Berlin",
        language="de", game_name="Turnited", game_address="turnited@example.org",
    )
    assert len(mail.html.encode()) < 102_000  # Gmail clips larger HTML mails
    page = tmp_path / "newsletter-64.html"
    page.write_text(mail.html, encoding="utf-8")
    check_page(browser, page, "newsletter-64")


def test_reminder_in_chromium(browser: Chromium, tmp_path: Path) -> None:
    mail = render_reminder(
        manager="Jürgen Öztürk", teams=["Grüne Jäger", "Preußen Münster-Mitte 1899 e.V."],
        round_info=RoundInfo(3, 2, 12),
        deadline=DEADLINE, now=DEADLINE.replace(day=4), timezone="Europe/Berlin",
        language="de", game_name="Turnited", game_address="turnited@example.org",
    )
    page = tmp_path / "reminder.html"
    page.write_text(mail.html, encoding="utf-8")
    check_page(browser, page, "reminder")


def test_empty_round_and_archive_in_chromium(
    browser: Chromium, round16: Round, round_empty: Round, tmp_path: Path
) -> None:
    for number, rnd in ((1, round_empty), (2, round16)):
        mail = render_newsletter(
            rnd.public_typed, round_info=RoundInfo(1, number, number), wp_table=rnd.wp_table,
            psz_table=rnd.psz_table, next_deadline=None, timezone="UTC", language="en",
            game_name="Turnited",
        )
        write_archive(tmp_path, number, mail, rnd.public_typed)
    check_page(browser, tmp_path / "round-001.html", "empty-round")
    layout = check_page(browser, tmp_path / "index.html", "archive-index")
    assert layout["phone"]["title"] == "Turnited: results archive"


def test_browser_check_catches_external_resources(browser: Chromium, tmp_path: Path) -> None:
    """The check itself: a page with an external image and a script error fails it."""
    page = tmp_path / "bad.html"
    page.write_text(
        '<!DOCTYPE html><html><head><meta name="viewport" content="width=device-width">'
        '</head><body><main class="content"><img src="http://127.0.0.1:9/x.png">'
        "<script>undefinedFunction()</script>"
        '<table><tr><td style="white-space:nowrap">' + "x" * 300 + "</td></tr></table>"
        "</main></body></html>",
        encoding="utf-8",
    )
    with pytest.raises(AssertionError) as failure:
        check_page(browser, page, "bad")
    message = str(failure.value)
    assert "request for http://127.0.0.1:9/x.png" in message
    assert "JavaScript exception" in message


# ------------------------------------------------------------ personal copy and archive site


def site_of(rounds: list[Round]) -> SiteData:
    """A small league history from played rounds: every player team of the
    first round plays each round (WP and PSZ carried on), the last round
    ends a season."""
    first = rounds[0]
    names = [t.name for t in first.public_typed.players]
    ids = {name: i + 1 for i, name in enumerate(names)}
    wp = dict.fromkeys(names, Decimal("90"))
    psz = dict.fromkeys(names, Decimal("250"))
    entries, ageing, evaluated = [], [], []
    for number, rnd in enumerate(rounds, 1):
        report = rnd.public_typed
        evaluated.append(EvaluatedRound(number, 1, number, DEADLINE, DEADLINE, number,
                                        report.winner, len(report.teams), len(report.players)))
        for name in names:
            if name not in report.wp_gain:
                continue
            gain, record = report.wp_gain[name], report.record[name]
            after = to_cents(report.psz[name].after)
            entries.append(TeamRound(number, ids[name], wp[name], gain, psz[name], after,
                                     record.won, record.drawn, record.lost,
                                     *report.stage_reached(name)))
            wp[name] += gain
            psz[name] = after
            if number == len(rounds):
                aged = age(wp[name])
                ageing.append(Ageing(ids[name], number, wp[name], aged))
                wp[name] = aged
    teams = tuple(TeamInfo(ids[n], n, n.split()[0], ids[n], 1, None) for n in names)
    return SiteData(tuple(evaluated), teams, tuple(entries), tuple(ageing))


@pytest.fixture(scope="module")
def season_rounds() -> list[Round]:
    """Three rounds played by the same 14 teams (different lineups each time)."""
    return [make_round(14, seed=s, simulations=300) for s in (20261207, 31, 32)]


def test_personal_copy_in_chromium(browser: Chromium, round16: Round, tmp_path: Path) -> None:
    public = round16.public_typed
    mine = [public.placings[1], public.players[-1].name]
    mail = render_newsletter(
        public, round_info=round16.round_info, wp_table=round16.wp_table,
        psz_table=round16.psz_table, next_deadline=DEADLINE, timezone="Europe/Berlin",
        language="de", game_name="Turnited", reveal_seed=True,
        ageing={r.team: r.wp + Decimal("3.5") for r in round16.wp_table},
        next_commitment="ab" * 32,
    )
    facts = [TeamFacts(name, Decimal("94.70"), Decimal("95.30"), Decimal("91.51"),
                       Decimal("240"), Decimal("251.5"), aged=True) for name in mine]
    part = render_personal(personal_block(public, facts, round16.wp_table), language="de",
                           upcoming=Upcoming(13, DEADLINE, "Europe/Berlin"))
    page = tmp_path / "personal-de.html"
    page.write_text(splice(mail, part).html, encoding="utf-8")
    layout = check_page(browser, page, "personal-de")
    assert layout["desktop"]["main"] <= 780
    session = browser.open_page()
    browser.load(session, page.resolve().as_uri(), 390, 844, mobile=True)
    # the reader's teams stand out: their rows in the WP table are highlighted
    marked = browser.evaluate(session, f"""
      [...document.querySelectorAll('tr.{team_class(mine[0])}')].map(
        tr => getComputedStyle(tr.querySelector('td')).backgroundColor)""")
    assert marked and all(colour == "rgb(255, 243, 191)" for colour in marked)


def test_archive_site_in_chromium(
    browser: Chromium, season_rounds: list[Round], tmp_path: Path
) -> None:
    data = site_of(season_rounds)
    for number, rnd in enumerate(season_rounds, 1):
        mail = render_newsletter(
            rnd.public_typed, round_info=RoundInfo(1, number, number), wp_table=rnd.wp_table,
            psz_table=rnd.psz_table, next_deadline=None, timezone="UTC", language="en",
            game_name="Turnited",
        )
        write_archive(tmp_path, number, mail, rnd.public_typed)
    write_site(tmp_path, data, game_name="Turnited", language="en", timezone="Europe/Berlin")
    index = check_page(browser, tmp_path / "index.html", "site-index")
    assert index["phone"]["title"] == "Turnited: archive"
    check_page(browser, tmp_path / "hall-of-fame.html", "site-fame")
    team = check_page(browser, tmp_path / "team-001.html", "site-team")
    assert team["desktop"]["main"] <= 780
    session = browser.open_page()
    browser.load(session, (tmp_path / "team-001.html").resolve().as_uri(), 390, 844, mobile=True)
    charts = browser.evaluate(session, """
      [...document.querySelectorAll('svg.chart')].map(s => s.getBoundingClientRect().width)""")
    assert len(charts) == 2 and all(300 <= w <= 390 for w in charts)
