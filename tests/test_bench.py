"""Every benchmark module imports (none is run): a renamed or removed API that
a bench uses fails here, in CI, not for the next person who measures.

The benches are a package run from the checkout as ``python -m bench.NAME``;
this also fails when one of them edits ``sys.path`` to find its helpers."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import pytest

import bench

BENCH = Path(bench.__file__).parent
MODULES = sorted(info.name for info in pkgutil.iter_modules([str(BENCH)]))
#: Helpers the benches share, run by none alone.
HELPERS = {"revision", "player_mails"}


def test_every_bench_file_is_a_module_of_the_package() -> None:
    files = sorted(path.stem for path in BENCH.glob("*.py") if path.stem != "__init__")
    assert files == MODULES
    assert len(MODULES) >= 19


@pytest.mark.parametrize("name", MODULES)
def test_bench_imports(name: str) -> None:
    module = importlib.import_module(f"bench.{name}")
    assert module.__doc__, f"bench/{name}.py says in its docstring what it measures"
    runs_alone = hasattr(module, "main") or name in HELPERS
    assert runs_alone, f"bench/{name}.py has a main() for python -m bench.{name}"


@pytest.mark.parametrize("name", MODULES)
def test_bench_finds_its_helpers_without_sys_path_edits(name: str) -> None:
    source = (BENCH / f"{name}.py").read_text(encoding="utf-8")
    assert "sys.path" not in source, f"bench/{name}.py edits sys.path"
