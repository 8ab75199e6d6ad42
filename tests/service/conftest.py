"""Fixtures of the pipeline tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.service.harness import Game


@pytest.fixture
def game(tmp_path: Path) -> Game:
    return Game(tmp_path)
