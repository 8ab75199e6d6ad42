"""The game master's digest: what the bot did since the last one, and what
needs a human. Plain text only.

The input is a simple mapping of counts and lists, e.g.::

    {"mails_processed": 42, "moves": 17, "errors": ["hans@x: bad lineup ..."],
     "bounces": [...], "failed_sends": [...], "needs_attention": [...]}

A count may be given as a number or as the list of its items (then the
items are listed, at most ``MAX_ITEMS`` of each). Unknown keys are listed
too, under their own name, so nothing passed in is silently dropped.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from jinja2 import Environment

from bot.render.environment import Environments, environment_for
from bot.render.formatting import zone
from bot.render.model import RenderedMail
from bot.render.textwidth import clean, tidy_text

#: The known entries, in the order they are shown (attention first).
KNOWN = ("needs_attention", "failed_sends", "bounces", "errors", "mails_processed", "moves")
#: Entries whose non-zero count means a human should look.
ALARMING = ("needs_attention", "failed_sends", "bounces")
MAX_ITEMS = 50


@dataclass(frozen=True, slots=True)
class DigestEntry:
    key: str
    count: int
    items: tuple[str, ...]
    more: int


def _entry(key: str, value: object) -> DigestEntry:
    if isinstance(value, bool):
        raise TypeError(f"digest entry {key!r} is {value!r}: expected a count or a list")
    if isinstance(value, int):
        if value < 0:
            raise ValueError(f"digest entry {key!r} is {value}: a count cannot be negative")
        return DigestEntry(key, value, (), 0)
    if isinstance(value, list | tuple):
        items = tuple(" ".join(clean(v).split()) for v in value)
        return DigestEntry(key, len(items), items[:MAX_ITEMS], max(0, len(items) - MAX_ITEMS))
    raise TypeError(
        f"digest entry {key!r} is {type(value).__name__} {value!r}: expected a count or a list"
    )


def digest_entries(stats: Mapping[str, object]) -> list[DigestEntry]:
    """The known entries (missing ones as 0) in order, then the unknown ones."""
    entries = [_entry(k, stats.get(k, 0)) for k in KNOWN]
    entries += [_entry(str(k), v) for k, v in stats.items() if k not in KNOWN]
    return entries


def render_digest(
    stats: Mapping[str, object],
    *,
    now: datetime,
    timezone: str,
    game_name: str,
    language: str = "de",
    env: Environment | Environments | None = None,
) -> RenderedMail:
    """The digest for the game master at ``now`` (plain text; ``html`` None).
    The subject says whether anything needs a human."""
    env = environment_for(language, env)
    zone(timezone)
    entries = digest_entries(stats)
    alarm = sum(e.count for e in entries if e.key in ALARMING)
    game_name = clean(game_name).strip()
    subjects = env.get_template("subjects.j2").module
    subject = str(subjects.digest(game_name))  # type: ignore[attr-defined]
    context = {
        "entries": entries,
        "alarm": alarm,
        "now": now,
        "timezone": timezone,
        "game_name": game_name,
        "title": subject,
    }
    text = tidy_text(env.get_template("digest.txt.j2").render(context))
    subject = str(subjects.digest_subject(game_name, now, timezone, alarm))  # type: ignore[attr-defined]
    return RenderedMail(subject=subject, text=text, html=None, language=language)
