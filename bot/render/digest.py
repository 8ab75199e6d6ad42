"""The game master's round report (the digest sent after each evaluation):
what the bot did since the last one, and what needs a human. Plain text
only, entirely in the game's language.

The input is a simple mapping of counts and lists, e.g.::

    {"mails_processed": 42, "moves": 17, "errors": ["hans@x: rejected round 5: ..."],
     "bounces": [...], "failed_sends": [...], "needs_attention": [...],
     "evaluated_round": 5, "players_in_round": 9, "teams_deleted": [...],
     "deadlines_left": 1, "last_deadline": datetime(...)}

A count may be given as a number or as the list of its items (then the
items are listed, at most ``MAX_ITEMS`` of each). The ledger's outcome lines
(``hans@x: rejected round 5: nothing_changed, password_missing``) are read
into their parts, so the template says each outcome and code as a sentence
in the game's language (``ITEM_PATTERNS``); a line of another shape is shown
as it is. Unknown keys are listed too, under their own name, so nothing
passed in is silently dropped.

``evaluated_round`` names the round in the title; ``deadlines_left`` (given
only when the planned deadlines run out) and ``last_deadline`` warn the game
master a round before no new round can open. ``deferred_mail`` (given only
when the daily sending limit holds mail back) is ``{"count": 12,
"max_per_day": 100, "last_at": datetime(...)}``: one line saying how many
newsletters and reminders wait and until when.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from jinja2 import Environment

from bot.render.environment import Environments, environment_for
from bot.render.formatting import zone
from bot.render.model import RenderedMail
from bot.render.textwidth import clean, tidy_text

#: The known entries, in the order they are shown (attention first).
KNOWN = ("needs_attention", "failed_sends", "bounces", "errors", "mails_processed", "moves",
         "players_in_round", "teams_deleted")
#: Entries whose non-zero count means a human should look.
ALARMING = ("needs_attention", "failed_sends", "bounces", "gm_refused")
#: Keys that are not table rows: the title's round and the deadline warning.
SPECIAL = ("evaluated_round", "deadlines_left", "last_deadline", "deferred_mail")
MAX_ITEMS = 50

#: How the outcome lines of the ledger and the outbox look (full matches).
ITEM_PATTERNS: tuple[re.Pattern[str], ...] = tuple(re.compile(p) for p in (
    # a manager's mail: "addr: accepted round 5: lineup_set, late"
    r"(?P<who>\S+): (?P<outcome>accepted|rejected) round (?P<round>\d+): (?P<codes>[a-z_, ]*)",
    # refused before reading: "addr: too_large: nothing changed"
    r"(?P<who>\S+): (?P<outcome>too_large|too_many_lines|unreadable|slow_down): nothing changed",
    r"(?P<who>\S+): (?P<outcome>rate_limited): no reply \(told already\)",
    # a mail refused as the game master's: "addr: gm_refused: gm_password_wrong"
    r"(?P<who>\S+): (?P<outcome>gm_refused): (?P<codes>[a-z_]+)",
    # a crash while handling one mail: "addr: internal_error: KeyError: 'x'"
    r"(?P<who>\S+): (?P<outcome>internal_error): (?P<detail>.+)",
    # a bounce: "bounce (mailbox full): anna@x, bob@y"
    r"(?P<outcome>bounce) \((?P<detail>.*)\): (?P<who>.+)",
    # the outbox: "5 outgoing mail(s) waiting for more than a day"
    r"(?P<count>\d+) outgoing mail\(s\) (?P<outcome>waiting) for more than a day",
))

#: The marks the ingest appends to a ledger line (``bot.service.inbound``).
TAGS = re.compile(r"(?: \[(?:password ok|bot thread [^\]]*)\])+$")


@dataclass(frozen=True, slots=True)
class DigestItem:
    """One listed line: ``text`` as given (cleaned), and its parts when it
    has a known shape (``outcome`` None: shown as it is)."""

    text: str
    outcome: str | None = None
    who: str | None = None
    round: int | None = None
    codes: tuple[str, ...] = ()
    detail: str | None = None
    count: int | None = None


@dataclass(frozen=True, slots=True)
class DigestEntry:
    key: str
    count: int
    items: tuple[DigestItem, ...]
    more: int


def read_item(text: str) -> DigestItem:
    """The parts of one outcome line (see ``ITEM_PATTERNS``)."""
    text = " ".join(clean(text).split())
    bare = TAGS.sub("", text)  # "[password ok]", "[bot thread ...]": not said
    for pattern in ITEM_PATTERNS:
        match = pattern.fullmatch(bare)
        if match is None:
            continue
        parts = match.groupdict()
        codes = tuple(c.strip() for c in (parts.get("codes") or "").split(",") if c.strip())
        return DigestItem(
            text, parts["outcome"], parts.get("who"),
            int(parts["round"]) if parts.get("round") else None, codes, parts.get("detail"),
            int(parts["count"]) if parts.get("count") else None,
        )
    return DigestItem(text)


def _entry(key: str, value: object) -> DigestEntry:
    if isinstance(value, bool):
        raise TypeError(f"digest entry {key!r} is {value!r}: expected a count or a list")
    if isinstance(value, int):
        if value < 0:
            raise ValueError(f"digest entry {key!r} is {value}: a count cannot be negative")
        return DigestEntry(key, value, (), 0)
    if isinstance(value, list | tuple):
        items = tuple(read_item(str(v)) for v in value)
        return DigestEntry(key, len(items), items[:MAX_ITEMS], max(0, len(items) - MAX_ITEMS))
    raise TypeError(
        f"digest entry {key!r} is {type(value).__name__} {value!r}: expected a count or a list"
    )


def digest_entries(stats: Mapping[str, object]) -> list[DigestEntry]:
    """The known entries (missing ones as 0) in order, then the unknown ones."""
    entries = [_entry(k, stats.get(k, 0)) for k in KNOWN]
    entries += [_entry(str(k), v) for k, v in stats.items()
                if k not in KNOWN and k not in SPECIAL]
    return entries


def _deferred(value: object) -> dict[str, object] | None:
    """The ``deferred_mail`` entry, checked: count, max_per_day, last_at."""
    if value is None:
        return None
    allowed = "a mapping of count, max_per_day and last_at (a date-time)"
    if not isinstance(value, Mapping) or set(value) != {"count", "max_per_day", "last_at"}:
        raise TypeError(f"digest entry 'deferred_mail' is {value!r}: expected {allowed}")
    count, limit, last = value["count"], value["max_per_day"], value["last_at"]
    if isinstance(last, str):
        last = datetime.fromisoformat(last)
    if (not isinstance(count, int) or not isinstance(limit, int) or isinstance(count, bool)
            or count < 1 or limit < 1 or not isinstance(last, datetime)):
        raise TypeError(f"digest entry 'deferred_mail' is {value!r}: expected {allowed}")
    return {"count": count, "max_per_day": limit, "last_at": last}


def _special(stats: Mapping[str, object]) -> tuple[int | None, int | None, datetime | None]:
    number, left, last = (stats.get(k) for k in SPECIAL[:3])
    for key, value in (("evaluated_round", number), ("deadlines_left", left)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                  or value < 0):
            raise TypeError(f"digest entry {key!r} is {value!r}: expected a whole number >= 0")
    if isinstance(last, str):
        last = datetime.fromisoformat(last)
    if last is not None and not isinstance(last, datetime):
        raise TypeError(f"digest entry 'last_deadline' is {last!r}: expected a date-time")
    return number, left, last  # type: ignore[return-value]


def render_digest(
    stats: Mapping[str, object],
    *,
    now: datetime,
    timezone: str,
    game_name: str,
    language: str = "de",
    env: Environment | Environments | None = None,
) -> RenderedMail:
    """The round report for the game master at ``now`` (plain text; ``html``
    None). The subject names the round and says whether anything needs a
    human; running out of planned deadlines does."""
    env = environment_for(language, env)
    zone(timezone)
    entries = digest_entries(stats)
    number, deadlines_left, last_deadline = _special(stats)
    alarm = sum(e.count for e in entries if e.key in ALARMING) + (deadlines_left is not None)
    game_name = clean(game_name).strip()
    subjects = env.get_template("subjects.j2").module
    subject = str(subjects.digest(game_name, number))  # type: ignore[attr-defined]
    context = {
        "entries": entries,
        "alarm": alarm,
        "now": now,
        "timezone": timezone,
        "game_name": game_name,
        "title": subject,
        "round_number": number,
        "deadlines_left": deadlines_left,
        "last_deadline": last_deadline,
        "deferred_mail": _deferred(stats.get("deferred_mail")),
    }
    text = tidy_text(env.get_template("digest.txt.j2").render(context))
    subject = str(subjects.digest_subject(  # type: ignore[attr-defined]
        game_name, now, timezone, alarm, number))
    return RenderedMail(subject=subject, text=text, html=None, language=language)
