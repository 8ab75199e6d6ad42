"""The texts of the worker's notices to the game master, in German and English.

The worker mails the game master when the inbox cannot be read at a
deadline (the evaluation waits), when it can be read again, and when an
evaluation fails. The language is ``game.language``.
"""

from __future__ import annotations

from datetime import datetime

_TEXTS: dict[str, dict[str, tuple[str, str]]] = {
    "inbox_unreadable": {
        "de": (
            "Posteingang nicht lesbar – Auswertung wartet",
            "Der Einsendeschluss {deadline} ist erreicht, aber der Posteingang konnte "
            "nicht gelesen werden:\n\n    {error}\n\n"
            "Die Runde wird erst ausgewertet, wenn alle bis dahin eingegangenen Mails "
            "gelesen sind, damit keine Aufstellung fehlt. Der Bot versucht es "
            "weiter (nächster Versuch in {retry} Sekunden) und meldet sich, sobald "
            "es geklappt hat.",
        ),
        "en": (
            "Inbox unreadable – evaluation waits",
            "The deadline {deadline} has passed, but the inbox could not be read:\n\n"
            "    {error}\n\n"
            "The round is evaluated only after every mail received until then has "
            "been read, so that no lineup is missing. The bot keeps trying (next "
            "attempt in {retry} seconds) and reports back once it succeeded.",
        ),
    },
    "inbox_recovered": {
        "de": (
            "Posteingang wieder lesbar",
            "Der Posteingang ist wieder lesbar (Einsendeschluss {deadline}). "
            "Ausgewertete Runde(n): {rounds}.",
        ),
        "en": (
            "Inbox readable again",
            "The inbox can be read again (deadline {deadline}). Round(s) evaluated: {rounds}.",
        ),
    },
    "evaluation_failed": {
        "de": (
            "Auswertung fehlgeschlagen",
            "Die Auswertung zum Einsendeschluss {deadline} ist fehlgeschlagen:\n\n"
            "    {error}\n\n"
            "Am Spielstand wurde nichts verändert. Der Bot versucht es in {retry} "
            "Sekunden erneut; bitte das Protokoll des Workers ansehen.",
        ),
        "en": (
            "Evaluation failed",
            "The evaluation at the deadline {deadline} failed:\n\n    {error}\n\n"
            "Nothing in the game state was changed. The bot tries again in {retry} "
            "seconds; please look at the worker's log.",
        ),
    },
}

#: Every notice code.
CODES = tuple(_TEXTS)


def render_notice(code: str, language: str, **params: object) -> tuple[str, str]:
    """``(subject, text)`` of notice ``code`` in ``language`` (``de``/``en``)."""
    try:
        variants = _TEXTS[code]
    except KeyError:
        raise ValueError(f"unknown notice {code!r}; known: {', '.join(CODES)}") from None
    subject, text = variants.get(language, variants["de"])
    return subject, text.format(**params)


def format_deadline(moment: datetime | None, timezone: str) -> str:
    """A deadline as local time with zone and UTC, e.g.
    ``2026-12-06 20:00 Europe/Berlin (19:00 UTC)``."""
    from zoneinfo import ZoneInfo

    if moment is None:
        return "-"
    local = moment.astimezone(ZoneInfo(timezone))
    utc = moment.astimezone(ZoneInfo("UTC"))
    return f"{local:%Y-%m-%d %H:%M} {timezone} ({utc:%Y-%m-%d %H:%M} UTC)"
