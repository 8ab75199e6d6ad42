"""The message catalogs: one template per mail, every word translated.

Fails when a template's message has no German translation, an empty or a
fuzzy one, or one whose placeholders differ; when the catalog keeps an entry
no template uses; when ``messages.pot`` is stale; and when a template exists
once per language again.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from bot.render import i18n
from bot.render.environment import TEMPLATES_DIR, make_environment

CATALOG = i18n.catalog_path("de")


def test_every_message_has_a_german_translation() -> None:
    problems = i18n.catalog_problems("de", TEMPLATES_DIR)
    assert problems == [], "\n".join(problems)


def test_the_extracted_template_lists_exactly_the_templates_messages() -> None:
    with (i18n.LOCALE_DIR / "messages.pot").open("rb") as handle:
        pot = read_po(handle)
    keys = {i18n.message_key(m.id, m.context) for m in pot if m.id}
    assert keys == set(i18n.template_messages(TEMPLATES_DIR)), (
        "run scripts/i18n to extract the messages again")


def test_no_template_exists_once_per_language() -> None:
    assert sorted(p.name for p in TEMPLATES_DIR.iterdir() if p.is_dir()) == ["mail", "shared"]


def _catalog_with(tmp_path: Path, old: str, new: str) -> Path:
    """A copy of the shipped locale folder whose German catalog has ``old``
    replaced by ``new`` (the test must find the text to change)."""
    locale = tmp_path / "locale"
    shutil.copytree(i18n.LOCALE_DIR, locale)
    po = i18n.catalog_path("de", locale)
    text = po.read_text("utf-8")
    assert old in text
    po.write_text(text.replace(old, new, 1), "utf-8")
    return locale


SUBJECT = 'msgid "%(game_name)s: results archive"\nmsgstr "%(game_name)s: Archiv der Ergebnisse"'


@pytest.mark.parametrize(
    ("new", "problem"),
    [
        ('msgid "%(game_name)s: results archive"\nmsgstr ""', "is empty"),
        ("#, fuzzy\n" + SUBJECT, "is marked fuzzy"),
        ('msgid "%(game_name)s: results archivе"\nmsgstr "x"', "no de translation"),
        ('msgid "%(game_name)s: results archive"\nmsgstr "%(name)s: Archiv"', "placeholders"),
    ],
    ids=["empty", "fuzzy", "missing", "placeholders"],
)
def test_a_broken_catalog_is_found(tmp_path: Path, new: str, problem: str) -> None:
    locale = _catalog_with(tmp_path, SUBJECT, new)
    problems = i18n.catalog_problems("de", TEMPLATES_DIR, locale)
    assert any(problem in p and "results archive" in p for p in problems), problems


def test_a_fuzzy_or_empty_entry_is_not_used_and_english_shows(tmp_path: Path) -> None:
    """What a player would see from a broken entry: the English id, which
    the catalog test above turns into a failure before it ships."""
    locale = _catalog_with(tmp_path, SUBJECT, "#, fuzzy\n" + SUBJECT)
    fuzzy = i18n.translations.__wrapped__("de", locale)
    assert fuzzy.gettext("%(game_name)s: results archive") == "%(game_name)s: results archive"
    shipped = i18n.translations("de")
    german = shipped.gettext("%(game_name)s: results archive")
    assert german == "%(game_name)s: Archiv der Ergebnisse"


def test_one_template_renders_each_language() -> None:
    words = {lang: make_environment(lang).get_template("subjects.j2").module.archive("Turnited")
             for lang in ("de", "en")}
    assert words == {"de": "Turnited: Archiv der Ergebnisse", "en": "Turnited: results archive"}


def test_a_missing_catalog_names_the_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="message catalog is missing"):
        i18n.translations.__wrapped__("de", tmp_path)


def test_babel_extracts_the_python_modules_the_catalog_check_reads() -> None:
    """scripts/i18n (babel.cfg) and the catalog check (PYTHON_SOURCES) read the
    same Python modules, so no message is extracted and then reported unused."""
    import re

    from bot.render.i18n import PYTHON_SOURCES

    config = (Path(__file__).resolve().parents[2] / "babel.cfg").read_text(encoding="utf-8")
    sections = re.findall(r"^\[python: bot/([^\]]+)\]$", config, flags=re.M)
    assert [s.replace("**.py", "*.py") for s in sections] == list(PYTHON_SOURCES)
