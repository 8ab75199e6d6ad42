"""Measure: does a newsletter's plain text say first what its reader needs next?

RULES.md §8: a recipient's copy opens with each of his teams' WP and the WP
it may spend next round, and the next deadline. This plays a demo (or reads
the mails of one already played) and, for every plain-text newsletter of a
reader with a team, finds the first line that shows each of his teams' WP
after the round (the figure of the WP table, e.g. ``91,30``) and the first
line that shows the next deadline. It prints how many newsletters fail to
show them within the first 30 lines, and the median and largest line
numbers. The same count before and after a change is the comparison.

Run: .venv/bin/python -m bench.bench_personal_first_lines [DEMO_DIR]
     (without DEMO_DIR: a fresh demo, 40 managers, one season, seed 7)
"""

from __future__ import annotations

import argparse
import email
import re
import statistics
import sys
import tempfile
from email import policy
from email.message import EmailMessage
from pathlib import Path

FIRST_LINES = 30
#: The heading of a reader's team in the personal block, both languages.
_TEAM_HEAD = re.compile(r"^(?:Dein Team|Your team): (?P<team>.+)$")
#: The next-deadline heading of the common part; the date follows on the next line.
_DEADLINE_HEAD = ("Nächster Einsendeschluss", "Next deadline")
_WP_VALUE = re.compile(r"[+-]?\d+[.,]\d\d")


def newsletters(maildir: Path) -> list[str]:
    """The plain text of every results newsletter the demo sent."""
    texts = []
    for path in sorted(maildir.glob("sent/*/*")):
        with path.open("rb") as handle:
            message = email.message_from_binary_file(handle, policy=policy.default)
        assert isinstance(message, EmailMessage)
        subject = str(message["Subject"] or "")
        if ": Ergebnisse der " not in subject and ": results of round" not in subject:
            continue
        body = message.get_body(("plain",))
        if body is not None:
            texts.append(body.get_content())
    return texts


def first_line(lines: list[str], wanted: str) -> int | None:
    """1-based number of the first line containing ``wanted``."""
    return next((n for n, line in enumerate(lines, 1) if wanted in line), None)


def wp_of(lines: list[str], team: str) -> str | None:
    """The team's WP after the round, as the WP table prints it."""
    for line in lines:
        if team in line and "." in line.split(team)[0][-6:]:
            values = _WP_VALUE.findall(line.split(team, 1)[1])
            if values:
                # the columns end with WP and the round's gain ("–" if it did not play)
                gain_shown = _WP_VALUE.fullmatch(line.split()[-1]) is not None
                return values[-2] if gain_shown and len(values) >= 2 else values[-1]
    return None


def measure(texts: list[str]) -> dict[str, object]:
    wp_lines: list[int] = []
    deadline_lines: list[int] = []
    late_wp = late_deadline = personal = no_wp = 0
    for text in texts:
        lines = text.splitlines()
        teams = [m["team"] for line in lines if (m := _TEAM_HEAD.match(line.strip()))]
        if not teams:
            continue
        personal += 1
        no_wp += not any("WP" in line for line in lines[:FIRST_LINES])
        last = 0
        for team in teams:
            value = wp_of(lines, team)
            found = first_line(lines, value) if value else None
            last = max(last, found or len(lines))
        wp_lines.append(last)
        late_wp += last > FIRST_LINES
        head = next((n for n, line in enumerate(lines) if line.strip() in _DEADLINE_HEAD), None)
        when = lines[head + 2].strip() if head is not None and head + 2 < len(lines) else ""
        found_deadline = first_line(lines, when) if when else None
        deadline_lines.append(found_deadline or len(lines))
        late_deadline += (found_deadline or len(lines)) > FIRST_LINES
    return {
        "newsletters": len(texts),
        "with a personal block": personal,
        f"no WP at all in the first {FIRST_LINES} lines": no_wp,
        f"a team's WP not in the first {FIRST_LINES} lines": late_wp,
        f"next deadline not in the first {FIRST_LINES} lines": late_deadline,
        "line of the last team's WP (median / max)":
            f"{statistics.median(wp_lines) if wp_lines else 0} / {max(wp_lines, default=0)}",
        "line of the next deadline (median / max)":
            f"{statistics.median(deadline_lines) if deadline_lines else 0} / "
            f"{max(deadline_lines, default=0)}",
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("demo_dir", nargs="?", type=Path)
    args = parser.parse_args(argv)
    if args.demo_dir is None:
        from bot.demo.runner import run_demo

        folder = Path(tempfile.mkdtemp(prefix="turnited-bench-")) / "game"
        run_demo(folder, managers=40, seasons=1, seed=7, simulations=2000,
                 log=lambda _line: None)
        args.demo_dir = folder
    for key, value in measure(newsletters(args.demo_dir / "state" / "maildir")).items():
        print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
