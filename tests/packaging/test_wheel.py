"""The wheel and the sdist carry everything the bot reads at run time: every
template, the data files and every module (built the way PyPI would, the
wheel from the unpacked sdist)."""

from __future__ import annotations

import subprocess
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run([str(ROOT / "scripts" / "build-dist"), str(out)], check=True,
                   capture_output=True, text=True, timeout=300)
    return out


def _templates() -> list[str]:
    return sorted(str(p.relative_to(ROOT / "templates"))
                  for p in (ROOT / "templates").rglob("*") if p.is_file())


def test_the_checkout_has_the_templates_and_the_style_sheet() -> None:
    names = _templates()
    # one template per mail since issue 13 (25 per-language files before)
    assert len([n for n in names if n.endswith(".j2")]) >= 20
    assert "shared/style.css" in names
    assert not [n for n in names if n.startswith(("de/", "en/"))]


LOCALE = ["bot/locale/messages.pot", "bot/locale/de/LC_MESSAGES/messages.po"]


def test_the_wheel_holds_every_template_data_file_and_module(dist: Path) -> None:
    (wheel,) = dist.glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = [t for t in _templates() if f"bot/templates/{t}" not in names]
    assert not missing, f"templates missing from {wheel.name}: {missing}"
    data = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "bot" / "data").rglob("*")
                  if p.is_file())
    assert "bot/data/rules/de.md" in data and "bot/data/rules/en.md" in data
    assert [d for d in data if d not in names] == []
    assert [c for c in LOCALE if c not in names] == []
    modules = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "bot").rglob("*.py"))
    assert [m for m in modules if m not in names] == []
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    assert "turnited = bot.cli:main" in zipfile.ZipFile(wheel).read(entry).decode()


def test_the_sdist_holds_every_template(dist: Path) -> None:
    (sdist,) = dist.glob("*.tar.gz")
    with tarfile.open(sdist) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    assert [t for t in _templates() if f"templates/{t}" not in names] == []
    assert "bot/data/config.example.yaml" in names
    assert {"bot/data/rules/de.md", "bot/data/rules/en.md"} <= names  # the players' rules
    assert [c for c in LOCALE if c not in names] == []
