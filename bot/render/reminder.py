"""The reminder to a manager whose teams have no lineup for the open round."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from jinja2 import Environment

from bot.render.calendar import calendar_file_name, deadline_event
from bot.render.environment import Environments, environment_for
from bot.render.errors import InvalidTimeError
from bot.render.formatting import zone
from bot.render.model import ReminderTeam, RenderedMail, RoundInfo
from bot.render.textwidth import clean, tidy_text


def render_reminder(
    *,
    manager: str,
    teams: Sequence[ReminderTeam | str],
    round_info: RoundInfo,
    deadline: datetime,
    now: datetime,
    timezone: str,
    language: str,
    game_name: str,
    game_address: str | None = None,
    env: Environment | Environments | None = None,
    commitment: str | None = None,
    calendar: bool = True,
    ahead: Sequence[tuple[str, int]] = (),
) -> RenderedMail:
    """Remind ``manager`` (display name) that ``teams`` have no lineup for
    the round closing at ``deadline``; says how long is left from ``now``.

    A reminder needs at least one team and a deadline still ahead.
    ``commitment``: the open round's seed commitment (RULES.md §4), printed
    when known. ``calendar``: attach the deadline as an ``.ics`` event.
    ``ahead``: (team, last round) of the manager's teams whose lineup was
    sent for several rounds (RULES.md §12).
    """
    env = environment_for(language, env)
    zone(timezone)
    entries = [t if isinstance(t, ReminderTeam) else ReminderTeam(str(t)) for t in teams]
    if not entries:
        raise ValueError("a reminder needs at least one team without a lineup; send none")
    if deadline <= now:
        raise InvalidTimeError(
            f"deadline {deadline.isoformat()} is not after now ({now.isoformat()}): "
            f"a reminder is only sent before the deadline"
        )
    game_name = clean(game_name).strip()
    subjects = env.get_template("subjects.j2").module
    subject = str(subjects.reminder(game_name, round_info))  # type: ignore[attr-defined]
    context = {
        "manager": clean(manager).strip(),
        "teams": entries,
        "round": round_info,
        "deadline": deadline,
        "left": deadline - now,
        "timezone": timezone,
        "game_name": game_name,
        "title": subject,
        "address": clean(game_address).strip() if game_address else None,
        "commitment": commitment,
        "ahead": [(clean(name).strip(), until) for name, until in ahead],
    }
    text = tidy_text(env.get_template("reminder.txt.j2").render(context))
    html = env.get_template("reminder.html.j2").render(context)
    attachments: tuple[tuple[str, str, bytes, str | None], ...] = ()
    if calendar:
        ics = deadline_event(round_info=round_info, deadline=deadline, now=now,
                             game_name=game_name, language=language, address=game_address,
                             env=env)
        attachments = ((calendar_file_name(round_info), "text/calendar", ics, "PUBLISH"),)
    return RenderedMail(subject=subject, text=text, html=html, language=language,
                        attachments=attachments)
