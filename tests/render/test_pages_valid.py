"""Every page of the archive is valid HTML (the W3C checker, ``vnu.jar``) and
passes an axe-core WCAG 2 A/AA audit in Chromium at a small phone's width
(320 px, where the wide tables scroll); the home page is readable on a
phone (the layout checks and screenshots of ``tests/render/test_browser``).

The archive: a league of 14 teams taken over and played for two rounds
(home page, hall of fame, team pages, round pages), the home page of a
league just imported (no round yet), and the plain site index the console's
rollback writes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bot.render.site import write_site
from bot.service.publish import site_data
from tests.render.browser import Chromium
from tests.render.pages import CheckerMissing, axe_violations, check_page, html_errors
from tests.support.takeover import evaluate, imported_app, league_table, send_lineups

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of every kind of archive page."""
    out = tmp_path_factory.mktemp("pages")
    teams = league_table(33)[:14]
    app, clock, passwords = imported_app(tmp_path_factory.mktemp("fresh"), 7, 3, teams)
    shutil.copy(app.config.state_dir / "archive" / "index.html", out / "home-imported.html")
    for _ in range(2):
        send_lineups(app, clock, teams, set(range(1, 14)), passwords)
        evaluate(app, clock)
    archive = app.config.state_dir / "archive"
    for page in archive.glob("*.html"):
        shutil.copy(page, out / page.name)
    plain = tmp_path_factory.mktemp("plain")
    with app.db.read() as conn:
        data = site_data(conn)
    write_site(plain, data, game_name="HAI ZET Turnited", language="en", timezone="UTC")
    shutil.copy(plain / "index.html", out / "site-index-plain.html")
    return out


def test_every_page_is_valid_html(pages: Path) -> None:
    try:
        problems = html_errors(pages)
    except CheckerMissing as exc:
        pytest.fail(str(exc), pytrace=False)
    assert len(list(pages.glob("*.html"))) >= 15
    assert not problems, "\n".join(problems)


def test_every_page_passes_axe_wcag2_a_aa(browser: Chromium, pages: Path) -> None:
    found = {}
    try:
        for page in sorted(pages.glob("*.html")):
            violations = axe_violations(browser, page)
            if violations:
                found[page.name] = violations
    except CheckerMissing as exc:
        pytest.fail(str(exc), pytrace=False)
    assert not found, found


def test_axe_finds_a_scrolling_table_the_keyboard_cannot_reach(
    browser: Chromium, pages: Path, tmp_path: Path
) -> None:
    """The audit itself: the round page as it was before (no tabindex on its
    scrolling tables) has the serious finding."""
    page = tmp_path / "round-old.html"
    html = (pages / "round-034.html").read_text(encoding="utf-8")
    page.write_text(html.replace('tabindex="0" ', ""), encoding="utf-8")
    ids = {v["id"]: v["impact"] for v in axe_violations(browser, page)}
    assert ids == {"scrollable-region-focusable": "serious"}


def test_home_page_reads_well_on_a_phone(browser: Chromium, pages: Path) -> None:
    for name in ("index.html", "home-imported.html"):
        layout = check_page(browser, pages / name, name.removesuffix(".html"))
        assert layout["phone"]["title"] == "HAI ZET Turnited: Übersicht"
        assert layout["desktop"]["main"] <= 780
