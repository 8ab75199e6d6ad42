"""The worker's notices to the game master, in the game's language.

The worker mails the game master when the inbox cannot be read at a
deadline (the evaluation waits), when it can be read again, and when an
evaluation fails. The language is ``game.language``; the words are in the
message catalog (``bot.render.i18n``, written in English, German in
``messages.po``), with real plurals (``ngettext``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from bot.render.i18n import translations
from bot.render.languages import DEFAULT_LANGUAGE, LANGUAGES

#: Every notice code.
CODES = ("inbox_unreadable", "inbox_recovered", "evaluation_failed")


def render_notice(code: str, language: str, *, deadline: str, error: object = None,
                  retry: int = 0, rounds: Sequence[int] = ()) -> tuple[str, str]:
    """``(subject, text)`` of notice ``code`` in ``language`` (``de``/``en``;
    another is German): ``deadline`` as ``format_deadline`` writes it,
    ``error`` what failed, ``retry`` the seconds until the next attempt,
    ``rounds`` the rounds evaluated once the inbox could be read again."""
    if code not in CODES:
        raise ValueError(f"unknown notice {code!r}; known: {', '.join(CODES)}")
    catalog = translations(language if language in LANGUAGES else DEFAULT_LANGUAGE)
    _, ngettext = catalog.gettext, catalog.ngettext
    if code == "inbox_recovered":
        if rounds:
            said = ngettext(
                "The inbox can be read again (deadline %(deadline)s). Round evaluated: "
                "%(rounds)s.",
                "The inbox can be read again (deadline %(deadline)s). Rounds evaluated: "
                "%(rounds)s.", len(rounds))
        else:
            said = _("The inbox can be read again (deadline %(deadline)s). No round was "
                     "evaluated.")
        text = said % {"deadline": deadline, "rounds": ", ".join(map(str, rounds))}
        return _("Inbox readable again"), text
    if code == "inbox_unreadable":
        subject = _("Inbox unreadable – evaluation waits")
        failed = _("The deadline %(deadline)s has passed, but the inbox could not be read:")
        then = ngettext(
            "The round is evaluated only after every mail received until then has been read, "
            "so that no lineup is missing. The bot keeps trying (next attempt in %(num)s "
            "second) and reports back once it succeeded.",
            "The round is evaluated only after every mail received until then has been read, "
            "so that no lineup is missing. The bot keeps trying (next attempt in %(num)s "
            "seconds) and reports back once it succeeded.", retry)
    else:
        subject = _("Evaluation failed")
        failed = _("The evaluation at the deadline %(deadline)s failed:")
        then = ngettext(
            "Nothing in the game state was changed. The bot tries again in %(num)s second; "
            "please look at the worker's log.",
            "Nothing in the game state was changed. The bot tries again in %(num)s seconds; "
            "please look at the worker's log.", retry)
    text = (f"{failed % {'deadline': deadline}}\n\n    {error}\n\n"
            f"{then % {'num': retry}}")
    return subject, text


def format_deadline(moment: datetime | None, timezone: str) -> str:
    """A deadline as local time with zone and UTC, e.g.
    ``2026-12-06 20:00 Europe/Berlin (19:00 UTC)``."""
    from zoneinfo import ZoneInfo

    if moment is None:
        return "-"
    local = moment.astimezone(ZoneInfo(timezone))
    utc = moment.astimezone(ZoneInfo("UTC"))
    return f"{local:%Y-%m-%d %H:%M} {timezone} ({utc:%Y-%m-%d %H:%M} UTC)"
