"""The Jinja environment factory: one environment per language, no singleton.

Templates are looked up first in ``templates/<language>/`` (the words) and
then in ``templates/shared/`` (layout, style sheet, macros). Templates whose
name ends in ``.html.j2`` are autoescaped, so team and manager names can
never inject markup; every undefined variable is an error
(``StrictUndefined``) instead of silently empty text.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from bot.render import formatting, reasons, textwidth
from bot.render.formatting import check_language

#: The templates shipped with the bot (``<repository>/templates``).
TEMPLATES_DIR = Path(__file__).resolve().parents[2] / "templates"
SHARED = "shared"


def make_environment(language: str, templates_dir: Path | None = None) -> Environment:
    """A fresh environment for ``language`` (``de`` or ``en``) whose filters
    format numbers and dates the way that language writes them."""
    language = check_language(language)
    root = Path(templates_dir) if templates_dir is not None else TEMPLATES_DIR
    env = Environment(
        loader=FileSystemLoader([str(root / language), str(root / SHARED)]),
        autoescape=select_autoescape(
            enabled_extensions=("html.j2", "html"), default_for_string=False, default=False
        ),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
        auto_reload=False,
        extensions=["jinja2.ext.do"],
    )
    bound = {
        "percent": formatting.percent,
        "estimate": formatting.estimate_percent,
        "whole_percent": formatting.whole_percent,
        "wp": formatting.wp,
        "wp_gain": formatting.wp_gain,
        "psz": formatting.psz,
        "integer": formatting.integer,
        "signed": formatting.signed,
        "duration": formatting.duration,
    }
    for name, func in bound.items():
        env.filters[name] = partial(_last, func, language)
    env.filters["fixed"] = lambda value, places=1, sign=False: formatting.fixed(
        value, places, language, sign=sign
    )
    env.filters["when"] = lambda moment, tz: formatting.datetime_long(moment, tz, language)
    env.filters["date"] = lambda moment, tz: formatting.date(moment, tz, language)
    env.filters["bar_width"] = formatting.bar_width
    env.filters["text_bar"] = formatting.text_bar
    env.filters["wrap"] = textwidth.wrap
    env.filters["ljust"] = textwidth.ljust
    env.filters["rjust"] = textwidth.rjust
    env.filters["clean"] = textwidth.clean
    env.filters["reason"] = partial(reasons.reason, language=language)
    env.globals.update(
        language=language,
        table=textwidth.table,
        fits=textwidth.fits,
        text_width=textwidth.TEXT_WIDTH,
        width=textwidth.width,
    )
    return env


def _last(func: Callable[[object, str], str], language: str, value: object) -> str:
    """Call ``func(value, language)``: filters take the value first."""
    return func(value, language)


class Environments:
    """One environment per language, made on first use and then reused, so
    every template is compiled once per process (owned by whoever renders
    many mails: the pipeline, the App; not a global)."""

    def __init__(self, templates_dir: Path | None = None) -> None:
        self.templates_dir = templates_dir
        self._made: dict[str, Environment] = {}

    def get(self, language: str) -> Environment:
        language = check_language(language)
        env = self._made.get(language)
        if env is None:
            env = self._made[language] = make_environment(language, self.templates_dir)
        return env
