"""The notice to the game master that a mail was refused as his (RULES.md
§13): who sent it, why it is not his (``bot.service.commands.gm_access``),
that nothing changed. One template, ``templates/mail/gm_refused.txt.j2``,
in the game master's language; its subject is the template's ``subject``."""

from __future__ import annotations

from datetime import datetime

from jinja2 import Environment

from bot.render.environment import Environments, environment_for
from bot.render.formatting import zone
from bot.render.model import RenderedMail
from bot.render.textwidth import clean, tidy_text


def render_gm_refused(
    refusal: str, *, sender: str, subject: str | None, password_right: bool,
    verification: str | None, language: str, name: str | None, game_name: str,
    now: datetime, timezone: str, env: Environment | Environments | None = None,
) -> RenderedMail:
    """The notice of one refused attempt: ``refusal`` is its code (``gm_off``,
    ``gm_other_address``, ``gm_password_missing``, ``gm_password_wrong``,
    ``gm_too_many_passwords``, ``gm_unverified``)."""
    zone(timezone)
    module = environment_for(language, env).get_template("gm_refused.txt.j2").make_module({
        "refusal": refusal, "sender": clean(sender).strip(),
        "subject": clean(subject or "").strip(), "password_right": password_right,
        "verification": verification, "name": clean(name or "").strip() or None,
        "game_name": clean(game_name).strip(), "now": now, "timezone": timezone,
    })
    title = " ".join(str(module.subject).split())  # type: ignore[attr-defined]
    return RenderedMail(title, tidy_text(str(module)), None, language)


__all__ = ["render_gm_refused"]
