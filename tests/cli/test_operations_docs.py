"""The operations examples in docs/ stay true to the command line."""

from __future__ import annotations

import configparser
import shlex
from pathlib import Path

from bot.cli import build_parser

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_the_systemd_unit_runs_a_command_line_the_bot_accepts():
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str  # type: ignore[assignment]
    unit.read_string((DOCS / "turnited.service").read_text(encoding="utf-8"))
    argv = shlex.split(unit["Service"]["ExecStart"])
    assert argv[0].endswith("/turnited")
    args = build_parser().parse_args(argv[1:])
    assert args.command == "run" and args.log_file == "/var/log/turnited/worker.log"
    assert unit["Service"]["KillSignal"] == "SIGTERM"
    assert "/var/log/turnited" in unit["Service"]["ReadWritePaths"]


def test_logrotate_moves_the_file_and_never_truncates_it():
    text = (DOCS / "turnited.logrotate").read_text(encoding="utf-8")
    rules = [line.split("#")[0].strip() for line in text.splitlines()]
    assert "/var/log/turnited/*.log {" in rules
    assert "copytruncate" not in rules and "create 0640 turnited turnited" in rules


def test_operations_names_every_console_command():
    text = (DOCS / "operations.md").read_text(encoding="utf-8")
    for command in ("status --json", "backup", "publish", "managers", "missing",
                    "remind --missing", "broadcast", "ca_file", "--log-file"):
        assert command in text
