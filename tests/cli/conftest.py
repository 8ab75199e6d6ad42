"""The command-line tests that need a played game run on the demo's league: one
short demo per session, copied into each test's own directory (a real state
directory and config)."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from bot.cli import main
from bot.demo.runner import run_demo


@pytest.fixture(scope="session")
def demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("demo") / "game"
    directory.mkdir()
    run_demo(directory, seed=2026, managers=8, seasons=1, simulations=200)
    return directory


class Game:
    """A copy of the demo game: run the CLI on it, read its database."""

    def __init__(self, root: Path, capsys: pytest.CaptureFixture[str]) -> None:
        self.root, self.capsys = root, capsys
        self.config = root / "config.yaml"
        self.state = root / "state"

    def cli(self, *args: str) -> tuple[int, str, str]:
        self.capsys.readouterr()
        status = main(["--config", str(self.config), *args])
        out, err = self.capsys.readouterr()
        return status, out, err

    def query(self, sql: str, params: tuple = ()) -> list[sqlite3.Row]:
        conn = sqlite3.connect(self.state / "turnited.sqlite3")
        conn.row_factory = sqlite3.Row
        try:
            return conn.execute(sql, params).fetchall()
        finally:
            conn.close()

    def delivered(self, message_id: str) -> bytes:
        """The bytes of a mail the bot delivered (the outbox keeps no body once
        a mail is sent: it lies in the Maildir's ``sent`` folder)."""
        for path in sorted((self.state / "maildir" / "sent").glob("*/*")):
            raw = path.read_bytes()
            if f"Message-ID: {message_id}".encode() in raw:
                return raw
        raise AssertionError(f"no delivered mail with Message-ID {message_id}")

    def set_config(self, old: str, new: str) -> None:
        text = self.config.read_text(encoding="utf-8")
        assert old in text
        self.config.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.fixture
def game(demo_template: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Game:
    root = tmp_path / "game"
    shutil.copytree(demo_template, root)
    return Game(root, capsys)
