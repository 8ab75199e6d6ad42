"""The mail that carries a new password the game master gave (RULES.md §9),
in German or English (``turnited manager reset-password``), with a subject
of its own. A password a manager asks for by mail (``Passwort vergessen``)
is a notice of the reply to that mail (``bot.service.commands.forgot_password``).
"""

from __future__ import annotations

from typing import Literal

from jinja2 import Environment

from bot.render.environment import Environments, environment_for
from bot.render.model import RenderedMail
from bot.render.textwidth import clean, tidy_text

PasswordMail = Literal["given"]
KINDS: tuple[str, ...] = ("given",)


def render_password_mail(
    kind: PasswordMail,
    *,
    language: str,
    game_name: str,
    game_address: str,
    name: str | None = None,
    password: str | None = None,
    sender: str | None = None,
    subject: str | None = None,
    env: Environment | Environments | None = None,
) -> RenderedMail:
    """The mail of ``kind`` (see the module; ``sender`` and ``subject`` are
    not used)."""
    if kind not in KINDS:
        raise ValueError(f"unknown password mail {kind!r}: expected one of {', '.join(KINDS)}")
    if not password:
        raise ValueError(f"the {kind} password mail needs the new password")
    env = environment_for(language, env)
    text = tidy_text(env.get_template("password.txt.j2").render(
        kind=kind, name=clean(name or "").strip() or None, password=password,
        sender=sender, game_name=game_name, address=game_address,
    ))
    title = str(env.get_template("subjects.j2").module.password_given(  # type: ignore[attr-defined]
        clean(game_name).strip()))
    return RenderedMail(title, text, None, language)


__all__ = ["KINDS", "PasswordMail", "render_password_mail"]
