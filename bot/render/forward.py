"""A player's message to the game master, forwarded (RULES.md §11).

A mail, or a line of it, that is plainly a message to a person (a question,
sentences; ``bot.mail.prose``) is forwarded once to the game master's
address. ``render_forward`` words that mail in the game master's language:
who wrote (the From name and address, also the Reply-To the caller sets, so
that "reply" reaches the player), when and under which Subject, the
player's text quoted as he wrote it (without the older mails quoted under
it), and that the bot answered the player as well.
"""

from __future__ import annotations

from datetime import datetime

from jinja2 import Environment

from bot.render.environment import Environments, environment_for
from bot.render.formatting import zone
from bot.render.model import RenderedMail
from bot.render.textwidth import clean, tidy_text

#: At most this many lines of the player's text are quoted.
MAX_QUOTED_LINES = 200


def render_forward(
    *,
    sender: str,
    sender_name: str | None,
    subject: str,
    text: str,
    received: datetime,
    timezone: str,
    language: str,
    game_name: str,
    env: Environment | Environments | None = None,
) -> RenderedMail:
    """The mail that forwards a player's message (module doc)."""
    env = environment_for(language, env)
    zone(timezone)
    lines = (text or "").strip("\n").splitlines()
    quoted = [("> " + clean(line)).rstrip() for line in lines[:MAX_QUOTED_LINES]]
    context = {
        "sender": clean(sender).strip(),
        "sender_name": clean(sender_name or "").strip() or None,
        "subject": clean(subject or "").strip(),
        "quoted": quoted,
        "cut": max(0, len(lines) - MAX_QUOTED_LINES),
        "received": received,
        "timezone": timezone,
        "game_name": clean(game_name).strip(),
    }
    module = env.get_template("forward.txt.j2").make_module(context)
    title = getattr(module, "title")  # noqa: B009 - a template variable, not a Python one
    return RenderedMail(subject=" ".join(str(title).split()), text=tidy_text(str(module)),
                        html=None, language=language)
