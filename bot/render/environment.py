"""The Jinja environments of the renderer and its one render cache.

``Environments`` is the render cache: one environment per language, made
on first use and kept, so each template is compiled once. The use-case
layer holds ONE instance and passes it as ``env=`` to every renderer
(``render_newsletter``, ``render_reply``, ``render_reminder``,
``render_digest``, ``write_archive``), whatever the language of the mail;
``environment_for`` picks the language's environment from it. A single
``Environment`` (``make_environment``) is accepted too, for one language.

Each mail has one template, in ``templates/mail/``, whatever its language:
its sentences are ``{% trans %}`` blocks and ``_()`` calls of Jinja's i18n
extension, and the environment of a language carries that language's message
catalog (``bot.render.i18n``). Trans blocks are trimmed (line breaks and
indentation inside a block collapse to one space) unless marked
``notrimmed``. Templates are looked up first in ``templates/mail/`` and then
in ``templates/shared/`` (layout, style sheet, macros); ``templates`` is
the package's own (``find_templates_dir``), in a wheel and in a checkout
alike. Templates whose name ends in ``.html.j2`` are autoescaped, so team and manager names can
never inject markup; every undefined variable is an error
(``StrictUndefined``) instead of silently empty text.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import bot.render.formatting as formatting
import bot.render.i18n as i18n
import bot.render.textwidth as textwidth
from bot.render.formatting import check_language
from bot.render.reasons import reason
from bot.render.words import Words

if TYPE_CHECKING:  # Jinja is imported when the first environment is made
    from jinja2 import Environment

SHARED = "shared"
#: The folder of the mails' templates, one per mail for every language.
MAIL = "mail"


def find_templates_dir() -> Path:
    """The templates shipped with the bot: ``bot/templates`` inside an
    installed wheel (setuptools maps the repository's ``templates/`` there),
    else ``<checkout>/templates`` beside ``bot/`` (an editable install or a
    plain checkout). Raises ``FileNotFoundError`` naming both places."""
    import bot

    package = Path(bot.__file__).resolve().parent
    candidates = (package / "templates", package.parent / "templates")
    for candidate in candidates:
        if (candidate / SHARED).is_dir():
            return candidate
    raise FileNotFoundError(
        "the bot's templates are missing: looked in "
        + " and ".join(str(c) for c in candidates)
        + "; reinstall the package (pip install turnited) or run from a full checkout"
    )


#: The templates shipped with the bot (see ``find_templates_dir``).
TEMPLATES_DIR = find_templates_dir()


def archive_page_function(archive_url: str | None) -> Callable[[int], str | None]:
    """The templates' ``archive_page(number)``: the web address of a round's
    archive page under ``archive.url``, or None when the archive is not on
    the web (then the newsletters carry no link)."""
    base = archive_url.rstrip("/") if archive_url else None

    def archive_page(number: int) -> str | None:
        if base is None:
            return None
        # the page name of bot.render.archive.round_stem (archive imports this
        # module, so the name is written here; a test checks they agree)
        return f"{base}/round-{int(number):03d}.html"

    return archive_page


def contact_address(gm_address: str | None) -> str | None:
    """The game master's address as mails name it for a person to write to;
    None without one, or for an address that never receives mail (the
    reserved top-level domain ``.invalid``, RFC 2606, as in a demo)."""
    if not gm_address or not gm_address.strip():
        return None
    address = gm_address.strip()
    if address.rstrip(".").lower().endswith(".invalid"):
        return None
    return address


def make_environment(language: str, templates_dir: Path | None = None, *,
                     archive_url: str | None = None, gm_address: str | None = None,
                     code_sentences: Mapping[str, str] | None = None) -> Environment:
    """A fresh environment for ``language`` (``de`` or ``en``) whose filters
    format numbers and dates the way that language writes them;
    ``archive_url`` is the published archive (``archive.url``), ``gm_address``
    the game master's (``gm.address``), which every mail's footer names;
    ``code_sentences`` what the digest says of the commands' notice codes."""
    from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

    language = check_language(language)
    root = Path(templates_dir) if templates_dir is not None else TEMPLATES_DIR
    env = Environment(
        loader=FileSystemLoader([str(root / MAIL), str(root / SHARED)]),
        autoescape=select_autoescape(
            enabled_extensions=("html.j2", "html"), default_for_string=False, default=False
        ),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
        auto_reload=False,
        extensions=["jinja2.ext.do", "jinja2.ext.i18n"],
    )
    env.policies["ext.i18n.trimmed"] = True
    env.install_gettext_translations(  # type: ignore[attr-defined]
        i18n.translations(language), newstyle=True)
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
    env.filters["reason"] = partial(reason, language=language)
    env.filters["score"] = score
    env.filters["said"] = partial(said, language)
    env.filters["block"] = block
    env.globals.update(
        language=language,
        table=textwidth.table,
        fits=textwidth.fits,
        text_width=textwidth.TEXT_WIDTH,
        width=textwidth.width,
        archive_page=archive_page_function(archive_url),
        code_sentences=dict(code_sentences or {}),
        gm_address=contact_address(gm_address),
    )
    return env


def said(language: str, value: Any, timezone: str = "UTC") -> list[str]:
    """A game master's use case's result in the language: its ``lines(w)``
    (``bot.service``), or an error's ``words`` as one line."""
    w = Words(language, timezone)
    if isinstance(value, BaseException):
        return [w.error(value)]
    return list(value.lines(w))


def block(lines: Sequence[str], indent: str = "    ", keep: bool = False) -> str:
    """``lines`` as a block a reply keeps as it is: each indented by four
    spaces (its own indentation kept) and wrapped on its own (``keep``: not
    wrapped, for a text laid out already, such as a newsletter's tables)."""
    out = []
    for line in lines:
        inner = line[:len(line) - len(line.lstrip())]
        if not line.strip():
            out.append("")
        elif keep:
            out.append(indent + line.rstrip())
        else:
            out.append(textwidth.wrap(line, indent=indent + inner, hanging=indent + inner + "  "))
    return "\n".join(out)


def score(goals: Sequence[int]) -> str:
    """A result as players read it: ``3:1`` (home goals first)."""
    home, away = goals
    return f"{home}:{away}"


def _last(func: Callable[[Any, str], str], language: str, value: object) -> str:
    """Call ``func(value, language)``: filters take the value first."""
    return func(value, language)


class Environments:
    """The render cache: one environment per language, made on first use and
    then reused, so every template is compiled once per process. Not a
    global: the use-case layer owns one and passes it to every renderer."""

    def __init__(self, templates_dir: Path | None = None, *,
                 archive_url: str | None = None, gm_address: str | None = None,
                 code_sentences: Mapping[str, str] | Callable[[], Mapping[str, str]] | None
                 = None) -> None:
        """``code_sentences`` may be a function: it is called when the first
        environment is made (a command that renders nothing never pays for it)."""
        self.templates_dir = templates_dir
        self.archive_url = archive_url
        self.gm_address = gm_address
        self._code_sentences = code_sentences
        self._made: dict[str, Environment] = {}

    @property
    def code_sentences(self) -> dict[str, str]:
        given = self._code_sentences
        return dict((given() if callable(given) else given) or {})

    def get(self, language: str) -> Environment:
        language = check_language(language)
        env = self._made.get(language)
        if env is None:
            env = self._made[language] = make_environment(
                language, self.templates_dir, archive_url=self.archive_url,
                gm_address=self.gm_address, code_sentences=self.code_sentences)
        return env


def environment_for(language: str, env: Environment | Environments | None) -> Environment:
    """The environment to render ``language`` with: from the cache ``env``,
    ``env`` itself if it was made for ``language``, else a fresh one."""
    language = check_language(language)
    if env is None:
        return make_environment(language)
    if isinstance(env, Environments):
        return env.get(language)
    if env.globals.get("language") != language:
        raise ValueError(
            f"environment is for {env.globals.get('language')!r}, not {language!r}: "
            f"make one with make_environment({language!r}) or pass an Environments cache"
        )
    return env
