"""Two texts of the game master's console that a mail carries too: the
preview of an open round (``render_preview``: a first line that says which
seed it played with, RULES.md §13, then the newsletter the evaluation would
send) and the notice to every manager of a rolled-back round
(``render_rollback``: its results are withdrawn, the new deadline). One
template each, ``templates/mail/preview.txt.j2`` and ``rollback.txt.j2``;
their subject is the template's ``subject``. ``preview_lines``: the
previews of a round as the game master's digest lists them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from jinja2 import Environment

from bot.render.environment import Environments, environment_for
from bot.render.formatting import zone
from bot.render.model import RenderedMail
from bot.render.textwidth import clean, tidy_text
from bot.render.words import Words
from bot.storage.previews import CONSOLE, PreviewRow


def _render(env: Environment, template: str, language: str, **context: object
            ) -> RenderedMail:
    module = env.get_template(template).make_module(context)
    subject = " ".join(str(module.subject).split())  # type: ignore[attr-defined]
    return RenderedMail(subject, tidy_text(str(module)), None, language)


def render_preview(newsletter: RenderedMail, *, round_number: int, fresh: bool,
                   game_name: str, language: str,
                   env: Environment | Environments | None = None) -> RenderedMail:
    """The preview of round ``round_number``: ``fresh`` says it played with a
    fresh random seed (before the deadline), else with the committed one."""
    return _render(environment_for(language, env), "preview.txt.j2", language,
                   round_number=round_number, fresh=fresh,
                   game_name=clean(game_name).strip(), newsletter=newsletter)


def render_rollback(*, name: str | None, round_number: int, deadline: datetime, timezone: str,
                    game_name: str, game_address: str, language: str,
                    env: Environment | Environments | None = None) -> RenderedMail:
    """The notice that round ``round_number``'s results are withdrawn and the
    round is open until ``deadline``."""
    zone(timezone)
    return _render(environment_for(language, env), "rollback.txt.j2", language,
                   name=clean(name or "").strip() or None, round_number=round_number,
                   deadline=deadline, timezone=timezone,
                   game_name=clean(game_name).strip(), address=game_address)


def preview_lines(rows: Sequence[PreviewRow], w: Words) -> list[str]:
    """The previews of a round, one line each, as the digest lists them."""
    out = []
    for row in rows:
        where = w._("on the console") if row.via == CONSOLE else w._("by mail")
        if row.fresh:
            out.append(w._("%(when)s, %(where)s: with a fresh random seed", when=row.at,
                           where=where))
        else:
            out.append(w._("%(when)s, %(where)s: with the committed seed (after the deadline)",
                           when=row.at, where=where))
    return out


__all__ = ["preview_lines", "render_preview", "render_rollback"]
