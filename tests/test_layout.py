"""Tests find their code: the folders under ``tests/`` mirror the layers of
``bot/`` (the layers contract in pyproject.toml), beside a few cross-cutting
suites kept by name. A test of a layer lives in ``tests/<layer>/`` (a CLI
test in ``tests/cli/``, a use case's in ``tests/service/``, the tournament's
in ``tests/rules/``); a top-level module's in ``tests/test_<module>.py``."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"

#: Suites that check no one layer, each kept by its name.
CROSS_CUTTING = {
    "compliance": "RULES.md, sentence by sentence, each with the test that proves it",
    "corpus": "real-world mails (data, read by the mail and integration tests)",
    "e2e": "the worker as a process against real servers",
    "integration": "several layers against real Dovecot and SMTP servers",
    "packaging": "the wheel and what it ships",
    "support": "the helpers every suite shares",
}
#: Top-level test files that check the whole tree, not one module.
WHOLE_TREE = {"test_bench", "test_import_cycles", "test_import_layers", "test_layout"}


def layers(pyproject: Path = ROOT / "pyproject.toml") -> list[str]:
    """The layers of ``bot`` as the import contract names them (``cli``,
    ``mail``, ``render``, ``app``, ...), top to bottom."""
    config = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    (contract,) = [c for c in config["tool"]["importlinter"]["contracts"]
                   if c["type"] == "layers"]
    names = []
    for entry in contract["layers"]:
        names += [part.strip().removeprefix("bot.") for part in entry.split("|")]
    return names


def suite_folders(tests: Path) -> list[str]:
    """The folders directly under ``tests`` that hold anything but byte code
    (a folder left with only ``__pycache__`` after a checkout is no suite)."""
    return sorted(
        folder.name for folder in tests.iterdir()
        if folder.is_dir() and not folder.name.startswith((".", "__"))
        and any(f.is_file() and "__pycache__" not in f.parts for f in folder.rglob("*")))


def stray_folders(tests: Path, layer_names: list[str]) -> list[str]:
    """The folders under ``tests`` that are neither a layer nor a cross-cutting suite."""
    return [name for name in suite_folders(tests)
            if name not in layer_names and name not in CROSS_CUTTING]


def test_every_test_folder_is_a_layer_of_bot_or_a_cross_cutting_suite() -> None:
    stray = stray_folders(TESTS, layers())
    assert not stray, (
        f"tests/{stray[0]}/ is neither a layer of bot/ ({', '.join(layers())}) nor a "
        f"cross-cutting suite ({', '.join(sorted(CROSS_CUTTING))}): move its tests with "
        "git mv to the folder of the layer they check (a CLI test to tests/cli/, a use "
        "case's to tests/service/, the tournament's to tests/rules/)")


def test_every_layer_has_its_tests_where_a_reader_looks() -> None:
    for layer in layers():
        package = (ROOT / "bot" / layer).is_dir()
        if package:
            assert (TESTS / layer).is_dir(), f"bot/{layer}/ has no tests/{layer}/"
        else:
            assert (ROOT / "bot" / f"{layer}.py").is_file(), f"no bot/{layer}.py"
            assert (TESTS / layer).is_dir() or (TESTS / f"test_{layer}.py").is_file(), (
                f"bot/{layer}.py has neither tests/test_{layer}.py nor tests/{layer}/")


def test_top_level_test_files_are_named_for_a_module_of_bot() -> None:
    modules = {path.stem for path in (ROOT / "bot").glob("*.py")}
    for path in sorted(TESTS.glob("test_*.py")):
        assert path.stem.removeprefix("test_") in modules or path.stem in WHOLE_TREE, (
            f"tests/{path.name} names no top-level module of bot/: it belongs in the "
            "folder of the layer it checks")


def test_the_check_finds_a_stray_folder_and_passes_over_byte_code(tmp_path: Path) -> None:
    for name, file in (("cli", "test_x.py"), ("support", "helpers.py"),
                       ("console", "test_y.py"), ("tournament", "__pycache__/t.pyc"),
                       (".hypothesis", "examples")):
        (tmp_path / name / file).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name / file).write_text("")
    assert stray_folders(tmp_path, layers()) == ["console"]


@pytest.mark.parametrize("expected", ["cli", "service", "rules", "mail", "render", "app"])
def test_the_layers_come_from_the_import_contract(expected: str) -> None:
    assert expected in layers()
