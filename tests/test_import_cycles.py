"""No import cycle anywhere in ``bot``, a package's ``__init__`` included.

The import-linter contract ``acyclic_siblings`` (pyproject.toml) looks at the
modules below each package; a cycle through the package itself, such as
``bot/config/__init__.py`` importing ``load`` while ``load`` says ``from
bot.config import parsers`` (it runs the package's ``__init__`` first), is
not among siblings and went unnoticed. This test reads every import
statement of ``bot`` (in functions and ``TYPE_CHECKING`` blocks too) and
counts ``from P import N`` as an import of the package ``P`` as well as of
the module ``P.N``.
"""

from __future__ import annotations

import ast
from pathlib import Path

BOT = Path(__file__).resolve().parent.parent / "bot"


def module_files(root: Path) -> dict[str, Path]:
    """Every module under the package directory ``root``, by dotted name."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules of ``modules`` that the file of module ``name`` imports."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join([*base, node.module] if node.module else base)
            else:
                source = node.module or ""
            found.add(source)
            found.update(f"{source}.{alias.name}" for alias in node.names)
    return {m for m in found if m in modules and m != name}


def cycles(modules: dict[str, Path]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    graph = {name: sorted(imports_of(name, path, modules)) for name, path in modules.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in graph[node]:
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in graph:
        if node not in index:
            visit(node)
    return sorted(groups)


def test_bot_has_no_import_cycle() -> None:
    modules = module_files(BOT)
    assert "bot.config" in modules and "bot.config.load" in modules
    assert cycles(modules) == []


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root / "pkg"


def test_a_cycle_through_a_package_init_is_found(tmp_path: Path) -> None:
    """The shape bot.config had: __init__ -> load -> read -> (from the package) __init__."""
    package = write(tmp_path, {
        "pkg/__init__.py": "from pkg.load import load\n",
        "pkg/load.py": "from pkg import parsers\nfrom pkg.read import read\n",
        "pkg/read.py": "from pkg import parsers as p\n",
        "pkg/parsers.py": "",
    })
    assert cycles(module_files(package)) == [["pkg", "pkg.load", "pkg.read"]]


def test_imports_of_the_submodule_itself_are_no_cycle(tmp_path: Path) -> None:
    package = write(tmp_path, {
        "pkg/__init__.py": "from pkg.load import load\n",
        "pkg/load.py": "import pkg.parsers as p\nfrom .read import read\n",
        "pkg/read.py": "from pkg.parsers import parse\n",
        "pkg/parsers.py": "",
    })
    assert cycles(module_files(package)) == []


def test_relative_and_lazy_imports_count(tmp_path: Path) -> None:
    package = write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/a.py": "from . import b\n",
        "pkg/b.py": "def f():\n    from .c import g\n",
        "pkg/c.py": ("from typing import TYPE_CHECKING\n"
                     "if TYPE_CHECKING:\n    from pkg.a import x\n"),
    })
    assert cycles(module_files(package)) == [["pkg.a", "pkg.b", "pkg.c"]]
