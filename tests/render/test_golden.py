"""The plain text newsletter of a fixed-seed round, pinned byte for byte.

The files in ``tests/render/golden/`` are the expected German and English
texts of round 12 of a 14-team tournament (seed 20261207: a final decided
by lot, a lot decision in a group table, 2000 Monte Carlo runs). After an
intended change of the templates (or of the rules), regenerate them with

    UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/render/test_golden.py

and review the diff (``git diff tests/render/golden``) before committing.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.render import render_newsletter
from tests.render.conftest import DEADLINE
from tests.render.rounds import Round

GOLDEN = Path(__file__).parent / "golden"


@pytest.mark.parametrize("form", ["typed", "stored"])
@pytest.mark.parametrize("language", ["de", "en"])
def test_text_newsletter_matches_golden(round16: Round, language: str, form: str) -> None:
    """The typed report and its stored JSON render the same bytes."""
    mail = render_newsletter(
        round16.public_typed if form == "typed" else round16.public,
        round_info=round16.round_info,
        wp_table=round16.wp_table,
        psz_table=round16.psz_table,
        next_deadline=DEADLINE,
        timezone="Europe/Berlin",
        language=language,
        game_name="Turnited",
        game_address="turnited@example.org",
    )
    path = GOLDEN / f"newsletter-{language}.txt"
    actual = f"Subject: {mail.subject}\n\n{mail.text}"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.write_text(actual, encoding="utf-8")
    assert path.exists(), f"{path} missing: run with UPDATE_GOLDEN=1 once and review it"
    expected = path.read_text(encoding="utf-8")
    assert actual == expected, (
        f"the {language} newsletter differs from {path.name}; if the change is intended, "
        f"regenerate with UPDATE_GOLDEN=1 and review the diff"
    )
