"""The newcomer's demo runs through the real pipeline and keeps its promises."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bot.cli import main
from bot.demo.runner import run_demo


def test_demo_season(tmp_path: Path) -> None:
    summary = run_demo(tmp_path / "game", managers=12, seasons=1, simulations=200,
                       log=lambda _line: None)
    assert summary.rounds == 5
    assert summary.mails > 12 and summary.replies == summary.mails  # one reply per mail
    assert summary.newsletters >= 12 and summary.reminders > 0
    assert summary.last_newsletter is not None and summary.last_newsletter.is_file()
    assert summary.archive_index is not None and summary.archive_index.is_file()
    db = sqlite3.connect(tmp_path / "game" / "state" / "turnited.sqlite3")
    evaluated = db.execute("SELECT COUNT(*) FROM rounds WHERE state = 'evaluated'").fetchone()
    assert evaluated == (5,)
    # every mail is in the ledger, and every round replays bit for bit
    assert db.execute("SELECT COUNT(*) FROM inbound").fetchone()[0] == summary.mails
    assert main(["--config", str(tmp_path / "game" / "config.yaml"), "replay", "--all"]) == 0


def test_demo_refuses_a_directory_in_use(tmp_path: Path, capsys) -> None:
    (tmp_path / "something").write_text("x")
    assert main(["demo", str(tmp_path)]) == 2
    assert "ist nicht leer" in capsys.readouterr().err
