"""The rules a player can read (RULES.md §12), in German and English.

One source per language, shipped in the package: ``bot/data/rules/de.md``
and ``en.md``, the player's version of the binding rules (lineups, the
3:1 rule and the corrections, a match, the tournament, WP, ageing, two
teams, PSZ, the mail commands), written as Markdown that reads as plain
text. Both forms a player sees come from it, each followed by the help's
list of commands (``templates/shared/commands.j2``, so a new command is
listed without touching the document):

* the reply to ``Regeln`` / ``Rules`` carries the text as it is
  (``rules_text``; the reply template appends the command list);
* the archive's page ``rules.html`` is the same text as HTML
  (``write_rules_page``, Markdown rendered by markdown-it-py with raw HTML
  switched off, inside the archive's layout).
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from pathlib import Path

from jinja2 import Environment
from markdown_it import MarkdownIt

from bot.render.archive import atomic_write
from bot.render.environment import Environments, environment_for
from bot.render.formatting import check_language
from bot.render.textwidth import clean

#: The archive page's file name (the archive's home page links it).
RULES_PAGE = "rules.html"


@cache
def rules_text(language: str) -> str:
    """The rules document of ``language`` as shipped (Markdown, plain text
    lines of at most 72 columns), read once per process."""
    language = check_language(language)
    source = files("bot").joinpath("data", "rules", f"{language}.md")
    return source.read_text(encoding="utf-8")


@cache
def rules_html(language: str) -> str:
    """The rules document of ``language`` as an HTML fragment. Raw HTML in
    the source is not passed through (the text is escaped)."""
    return MarkdownIt("commonmark", {"html": False}).render(rules_text(language))


def write_rules_page(archive_dir: Path, *, game_name: str, language: str,
                     env: Environment | Environments | None = None) -> Path:
    """Write ``rules.html`` into ``archive_dir`` (atomically) and return its path."""
    language = check_language(language)
    env = environment_for(language, env)
    folder = Path(archive_dir)
    folder.mkdir(parents=True, exist_ok=True)
    page = env.get_template("site_rules.html.j2").render(
        game_name=clean(game_name).strip(), body=rules_html(language))
    path = folder / RULES_PAGE
    atomic_write(path, page.encode("utf-8"))
    return path


__all__ = ["RULES_PAGE", "rules_html", "rules_text", "write_rules_page"]
