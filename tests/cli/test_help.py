"""Every ``turnited ... --help`` reads on its own: it cites no document the
package does not ship (``RULES.md`` and its sections), and names no Python
function or module (issue 20)."""

from __future__ import annotations

import argparse
import re

from bot.cli import build_parser


def helps(parser: argparse.ArgumentParser, path: str = "turnited"):
    yield path, parser.format_help()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from helps(sub, f"{path} {name}")


def test_no_help_cites_an_unshipped_document_or_a_python_name() -> None:
    found = list(helps(build_parser()))
    assert len(found) > 20
    for path, text in found:
        assert "RULES.md" not in text and "§" not in text, path
        assert not re.search(r"\bbot\.[a-z_]+\.", text), path
