"""The rules core stays pure: bot/rules/*.py import only the standard library,
numpy and bot.rules itself (ARCHITECTURE.md), and no module doing I/O."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

RULES = Path(__file__).resolve().parent.parent / "bot" / "rules"
RULES_FILES = sorted(RULES.glob("*.py"))

#: Standard-library modules that talk to the outside world, the file system or
#: the clock (the clock is passed in, never read inside the rules).
FORBIDDEN_STDLIB = {
    "sqlite3", "smtplib", "imaplib", "poplib", "socket", "ssl", "http", "urllib",
    "ftplib", "email", "mailbox", "subprocess", "os", "shutil", "tempfile", "io",
    "pathlib", "glob", "fileinput", "asyncio", "selectors", "signal", "threading",
    "multiprocessing", "logging", "pickle", "shelve", "dbm", "time",
}
#: numba compiles the Monte Carlo's inner loops (bot/rules/mc_kernel.py): computation only.
THIRD_PARTY_ALLOWED = {"numpy", "numba"}


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in a file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative import: resolve against bot.rules
                base = ["bot", "rules"][: 2 - (node.level - 1)] if node.level <= 2 else []
                name = ".".join([*base, node.module] if node.module else base)
                found.append((node.lineno, name or "."))
            else:
                found.append((node.lineno, node.module or ""))
    return found


def verdict(module: str) -> str | None:
    """Why ``module`` may not be imported by the rules core, or None if it may."""
    top = module.split(".")[0]
    if module == "bot.rules" or module.startswith("bot.rules."):
        return None
    if top == "bot":
        return "other layers of bot (the rules core imports nothing above it)"
    if top in FORBIDDEN_STDLIB:
        return "an I/O module of the standard library"
    if top in THIRD_PARTY_ALLOWED or top == "__future__" or top in sys.stdlib_module_names:
        return None
    return "a third-party package other than numpy"


def test_the_rules_core_has_modules() -> None:
    names = {p.stem for p in RULES_FILES}
    assert {"lineup", "corrections", "match", "gm_teams", "wp", "psz", "rounding"} <= names


@pytest.mark.parametrize("path", RULES_FILES, ids=lambda p: p.name)
def test_rules_import_only_stdlib_numpy_and_themselves(path: Path) -> None:
    bad = [
        f"{path.name}:{line}: {module} ({why})"
        for line, module in imported_modules(path)
        if (why := verdict(module))
    ]
    assert bad == []


@pytest.mark.parametrize(
    ("module", "allowed"),
    [
        ("bot.rules.lineup", True), ("fractions", True), ("numpy.random", True),
        ("bot.storage.db", False), ("bot", False), ("sqlite3", False), ("os.path", False),
        ("smtplib", False), ("yaml", False), ("jinja2", False),
    ],
)
def test_the_checker_itself(module: str, allowed: bool) -> None:
    assert (verdict(module) is None) == allowed


def test_relative_imports_are_resolved(tmp_path: Path) -> None:
    source = tmp_path / "x.py"
    source.write_text("from .lineup import Lineup\nfrom ..storage import db\nimport os\n")
    assert imported_modules(source) == [(1, "bot.rules.lineup"), (2, "bot.storage"), (3, "os")]
