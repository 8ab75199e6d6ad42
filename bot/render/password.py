"""The mails about a manager's password (RULES.md §9), in German or English.

``reset``: the new password a manager asked for by mail (``Passwort
vergessen``); ``too_soon``: asked again within a day, nothing changed;
``unknown``: asked from an address nobody registered; ``given``: the game
master gave a new one (``turnited manager reset-password``). The answers to a
mail carry its ``Re:`` subject and open with the reply marker, like every
reply; the game master's mail has a subject of its own.
"""

from __future__ import annotations

from typing import Literal

from jinja2 import Environment

from bot.render.environment import Environments, environment_for
from bot.render.model import RenderedMail
from bot.render.reply import reply_subject
from bot.render.textwidth import clean, tidy_text

PasswordMail = Literal["reset", "too_soon", "unknown", "given"]
KINDS: tuple[str, ...] = ("reset", "too_soon", "unknown", "given")


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
    """The mail of ``kind`` (see the module); ``subject`` is the subject of
    the mail answered (not used for ``given``)."""
    if kind not in KINDS:
        raise ValueError(f"unknown password mail {kind!r}: expected one of {', '.join(KINDS)}")
    if kind in ("reset", "given") and not password:
        raise ValueError(f"the {kind} password mail needs the new password")
    env = environment_for(language, env)
    text = tidy_text(env.get_template("password.txt.j2").render(
        kind=kind, name=clean(name or "").strip() or None, password=password,
        sender=sender, game_name=game_name, address=game_address,
    ))
    if kind == "given":
        title = str(env.get_template("subjects.j2").module.password_given(  # type: ignore[attr-defined]
            clean(game_name).strip()))
    else:
        title = reply_subject(subject, language)
    return RenderedMail(title, text, None, language)


__all__ = ["KINDS", "PasswordMail", "render_password_mail"]
