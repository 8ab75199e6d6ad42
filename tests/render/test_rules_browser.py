"""The archive's rules page (rules.html) in headless Chromium at phone and
desktop width, with the checks of ``test_browser`` (self-contained, nothing
outside the screen, readable text)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.render.rules_doc import write_rules_page
from tests.render.browser import Chromium
from tests.render.pages import check_page

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("language", ["de", "en"])
def test_rules_page_in_chromium(browser: Chromium, tmp_path: Path, language: str) -> None:
    page = write_rules_page(tmp_path, game_name="HAI ZET Turnited", language=language)
    layout = check_page(browser, page, f"rules-{language}")
    assert layout["phone"]["title"] == (
        "HAI ZET Turnited: die Regeln" if language == "de" else "HAI ZET Turnited: the rules")
    assert layout["desktop"]["main"] <= 780  # a readable column on a wide screen
    assert layout["phone"]["text"] > 5000  # the whole document, not an empty frame
