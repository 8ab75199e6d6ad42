"""The compiled catalog kept in the user's cache (``bot.render.i18n``): named
by the ``.po`` file's SHA-256, so it cannot go stale; a damaged or unwritable
cache is not used and the catalog is compiled as before."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bot.render import i18n

MESSAGE = "%(game_name)s: results archive"
GERMAN = "%(game_name)s: Archiv der Ergebnisse"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "turnited"


def compile_fresh(locale: Path | None = None):
    return i18n.translations.__wrapped__("de", locale)


def test_the_first_compile_is_kept_and_read_again(cache: Path):
    assert compile_fresh().gettext(MESSAGE) == GERMAN
    (kept,) = cache.iterdir()
    assert kept.name.startswith("messages-de-") and kept.suffix == ".mo"
    kept.write_bytes(kept.read_bytes().replace(b"Archiv der Ergebnisse",
                                               b"Archiv DER Ergebnisse"))
    assert compile_fresh().gettext(MESSAGE) == "%(game_name)s: Archiv DER Ergebnisse"


def test_another_catalog_has_another_name(cache: Path, tmp_path: Path):
    compile_fresh()
    locale = tmp_path / "locale"
    shutil.copytree(i18n.LOCALE_DIR, locale)
    po = i18n.catalog_path("de", locale)
    po.write_text(po.read_text("utf-8").replace(GERMAN, "%(game_name)s: Ergebnisarchiv"),
                  "utf-8")
    assert compile_fresh(locale).gettext(MESSAGE) == "%(game_name)s: Ergebnisarchiv"
    assert len(list(cache.iterdir())) == 2
    assert compile_fresh().gettext(MESSAGE) == GERMAN


def test_a_damaged_cache_file_is_compiled_again(cache: Path):
    compile_fresh()
    (kept,) = cache.iterdir()
    kept.write_bytes(b"not a catalog")
    assert compile_fresh().gettext(MESSAGE) == GERMAN
    assert kept.read_bytes()[:4] in (b"\xde\x12\x04\x95", b"\x95\x04\x12\xde")  # .mo again


def test_a_cache_that_cannot_be_written_is_not_used(monkeypatch: pytest.MonkeyPatch):
    """A cache folder nobody can create, root included: one inside /proc."""
    monkeypatch.setenv("XDG_CACHE_HOME", "/proc/self")
    assert compile_fresh().gettext(MESSAGE) == GERMAN
    assert not Path("/proc/self/turnited").exists()


def test_a_cache_path_that_is_a_file_is_not_used(cache: Path):
    cache.parent.mkdir(parents=True)
    cache.write_text("in the way", encoding="utf-8")
    assert compile_fresh().gettext(MESSAGE) == GERMAN
