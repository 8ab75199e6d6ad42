"""The archive's rules page (rules.html) in headless Chromium at phone and
desktop width, with the checks of ``test_browser`` (self-contained, nothing
outside the screen, readable text)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.render.rules_doc import write_rules_page
from tests.render.browser import BrowserError, Chromium
from tests.render.test_browser import check_page

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def browser() -> Chromium:
    try:
        chromium = Chromium()
    except BrowserError as exc:
        pytest.fail(str(exc), pytrace=False)
    with chromium:
        yield chromium


@pytest.mark.parametrize("language", ["de", "en"])
def test_rules_page_in_chromium(browser: Chromium, tmp_path: Path, language: str) -> None:
    page = write_rules_page(tmp_path, game_name="HAI ZET Turnited", language=language)
    layout = check_page(browser, page, f"rules-{language}")
    assert layout["phone"]["title"] == (
        "HAI ZET Turnited: die Regeln" if language == "de" else "HAI ZET Turnited: the rules")
    assert layout["desktop"]["main"] <= 780  # a readable column on a wide screen
    assert layout["phone"]["text"] > 5000  # the whole document, not an empty frame
