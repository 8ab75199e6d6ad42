"""Fixtures of the rendering tests: real rounds, played once per session, and
headless Chromium, started once per test module that asks for it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.render.browser import BrowserError, Chromium
from tests.render.rounds import Round, make_round

#: Sun 6 Dec 2026, 20:00 in Berlin (CET).
DEADLINE = datetime(2026, 12, 6, 19, 0, tzinfo=UTC)


@pytest.fixture(scope="session")
def round16() -> Round:
    """14 player teams + 2 GM teams, Monte Carlo with 2000 tournaments; the
    seed gives a final decided by lot and a lot decision in a group table."""
    return make_round(14, seed=20261207)


@pytest.fixture(scope="session")
def round_empty() -> Round:
    """A round nobody entered."""
    return make_round(0, seed=1)


@pytest.fixture(scope="module")
def browser() -> Chromium:
    try:
        chromium = Chromium()
    except BrowserError as exc:
        pytest.fail(str(exc), pytrace=False)
    with chromium:
        yield chromium
