"""The mails about a manager's account that answer no mail of the reader:
the confirmation code mailed to a new address, and the word to the old
address that the teams moved (RULES.md §12, ``bot.service.commands``).

Each is made of notices (``bot.league.outcome.Notice``, one template per
code in ``templates/mail/notice/``) in the frame of a reply
(``templates/mail/reply.txt.j2``, without teams or deadline), with a
subject of its own (``templates/mail/subjects.j2``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import datetime
from typing import Literal

from jinja2 import Environment

from bot.league.outcome import MoveOutcome, Notice
from bot.render.environment import Environments, environment_for
from bot.render.model import RenderedMail
from bot.render.reply import render_reply
from bot.render.textwidth import clean

#: The subjects (macros of ``subjects.j2``) such a mail may have.
Title = Literal["confirm_address", "address_moved"]
TITLES: tuple[str, ...] = ("confirm_address", "address_moved")


def render_account_mail(
    title: Title,
    notices: Sequence[Notice],
    *,
    language: str,
    now: datetime,
    timezone: str,
    game_name: str,
    game_address: str | None,
    name: str | None = None,
    env: Environment | Environments | None = None,
) -> RenderedMail:
    """A mail of ``notices`` under the subject ``title``, greeting ``name``."""
    if title not in TITLES:
        raise ValueError(f"unknown account mail {title!r}: expected one of {', '.join(TITLES)}")
    outcome = MoveOutcome(manager=None, accepted=True, round=0, late=False, deadline=None,
                          notices=list(notices), language=language, sender_name=name)
    rendered = render_reply(outcome, subject=None, now=now, timezone=timezone,
                            game_name=game_name, game_address=game_address,
                            language=language, env=env)
    subjects = environment_for(language, env).get_template("subjects.j2").module
    subject = str(getattr(subjects, title)(clean(game_name).strip()))
    return dataclasses.replace(rendered, subject=subject)


__all__ = ["TITLES", "Title", "render_account_mail"]
