"""The newcomer's demo runs through the real pipeline and keeps its promises."""

from __future__ import annotations

import html
import re
import sqlite3
from pathlib import Path

from bot.cli import main
from bot.demo.runner import format_summary, most_titles, run_demo
from bot.render.words import Words


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
    # the summary counts each kind of mail as the outbox stored it (English reminders too)
    sent = dict(db.execute("SELECT kind, COUNT(*) FROM outbox WHERE state = 'sent'"
                           " GROUP BY kind").fetchall())
    assert (summary.newsletters, summary.reminders, summary.replies) == (
        sent["newsletter"], sent["reminder"], sent["reply"])
    english = [path for path in (tmp_path / "game" / "state" / "maildir" / "sent").rglob("*")
               if path.is_file() and b"Content-Language: en" in path.read_bytes()
               and b"Auto-Submitted: auto-generated" in path.read_bytes()]
    assert english  # English managers got newsletters and reminders, and they were counted
    # its most titles are the hall of fame's first ones (player teams; a GM team wins none)
    fame = (tmp_path / "game" / "state" / "archive" / "hall-of-fame.html").read_text("utf-8")
    table = fame.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    rows = re.findall(r'<a href="team-\d+\.html">([^<]+)</a></td><td>(\d+)</td>', table)
    assert bool(rows) == bool(summary.titles)
    best = [html.unescape(name) for name, count in rows if count == rows[0][1]] if rows else []
    assert most_titles(summary) == sorted(best)
    words = format_summary(summary)
    assert ("Meiste Titel: " + ", ".join(f"{n} ({rows[0][1]})" for n in sorted(best))
            if best else "Meiste Titel: -") in words
    assert "5 Spielrunden in" in format_summary(summary)
    assert "Played 5 rounds in" in format_summary(summary, Words("en"))


def test_the_demo_says_1_season(tmp_path: Path) -> None:
    lines: list[str] = []
    run_demo(tmp_path / "game", managers=4, seasons=1, simulations=100, log=lines.append,
             words=Words("en"))
    assert lines[0].startswith("Turnited demo: 4 managers, 1 season (5 rounds) in ")


def test_demo_refuses_a_directory_in_use(tmp_path: Path, capsys) -> None:
    (tmp_path / "something").write_text("x")
    assert main(["demo", str(tmp_path)]) == 2
    assert "ist nicht leer" in capsys.readouterr().err
