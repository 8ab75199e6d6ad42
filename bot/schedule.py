"""When rounds end: the schedule's settings, deadline parsing and the plan.

``ScheduleSettings`` is either a crontab line evaluated in a time zone or an
explicit list of moments. ``cron_trigger`` turns a standard 5-field crontab
line into an APScheduler trigger (weekday numbers as in crontab, 0 and 7 =
Sunday); ``parse_local_datetime`` reads a local date-time in German or ISO
form (``'06.12.2026 20:00'``, ``'2026-12-06 20:00'``) and refuses the hours
a change of summer time skips or repeats. The configuration calls both to validate its ``schedule``
section; nothing here knows the configuration.

A ``DeadlinePlan`` answers "what is the first deadline strictly after this
moment?". All results are aware UTC datetimes. Summer time: a wall-clock
time that happens twice (clocks go back) is a deadline once, at its first
occurrence; one that does not exist (clocks go forward) falls one hour later
in local time, right after the skipped hour.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from bot.errors import N_, TurnitedError

if TYPE_CHECKING:
    from apscheduler.triggers.cron import CronTrigger

_TICK = timedelta(microseconds=1)


@dataclass(frozen=True)
class ScheduleSettings:
    """When rounds end. Either ``cron`` (a crontab line evaluated in
    ``timezone``) or ``deadlines`` (explicit moments, aware UTC, ascending)."""

    timezone: str = "Europe/Berlin"
    cron: str | None = "0 20 * * SUN"
    deadlines: tuple[datetime, ...] = ()

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)

    def cron_trigger(self) -> CronTrigger:
        """The APScheduler trigger of ``cron`` in the configured zone."""
        if self.cron is None:
            raise ValueError("this schedule has an explicit deadline list, not a cron line")
        return cron_trigger(self.cron, self.zone)


# ---------------------------------------------------------------------------
# Cron lines
# ---------------------------------------------------------------------------

_CRON_DAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat", "sun")


def _cron_day_of_week(field_text: str) -> str:
    """Translate a standard crontab day-of-week field (0 or 7 = Sunday) into
    APScheduler 3's names (APScheduler 3 counts 0 = Monday). Names pass
    through; numbers, numeric ranges and steps are expanded to name lists."""
    out: list[str] = []
    for part in field_text.split(","):
        base, _, step_text = part.partition("/")
        step = int(step_text) if step_text.isdigit() and int(step_text) > 0 else None
        if step_text and step is None:
            raise ValueError(f"bad step {step_text!r} in day-of-week {part!r}")
        if base == "*":
            first, last = (0, 6)
        elif re.fullmatch(r"\d+", base):
            first = last = int(base)
            if step is not None:
                last = 6
        elif re.fullmatch(r"\d+-\d+", base):
            first, last = (int(x) for x in base.split("-"))
        else:
            if step is not None:
                raise ValueError(f"a step needs numbers in day-of-week {part!r}")
            out.append(base.lower())
            continue
        if step is None and base == "*":
            out.append("*")
            continue
        if not (0 <= first <= 7 and 0 <= last <= 7) or first > last:
            raise ValueError(f"day-of-week {part!r}: numbers 0-7 (0 and 7 are Sunday), low-high")
        names = [_CRON_DAYS[n] for n in range(first, last + 1, step or 1)]
        out.extend(dict.fromkeys(names))
    return ",".join(dict.fromkeys(out))


def cron_trigger(expr: str, zone: ZoneInfo) -> CronTrigger:
    """A ``CronTrigger`` for a standard 5-field crontab line in ``zone``.

    Day-of-week numbers follow crontab (0 and 7 = Sunday), unlike
    APScheduler 3's own numbering. Raises ``ValueError`` with the reason.
    """
    from apscheduler.triggers.cron import CronTrigger

    fields = expr.split()
    if len(fields) != 5:
        raise ValueError(f"{len(fields)} fields instead of 5 (minute hour day month weekday)")
    fields[4] = _cron_day_of_week(fields[4])
    return CronTrigger.from_crontab(" ".join(fields), timezone=zone)


class DateTimeError(TurnitedError, ValueError):
    """Text that is no date and time a deadline can be (the message names the
    input and what would be right; ``words`` for the console's language)."""

    def __init__(self, message: str, /, **values: object) -> None:
        self.words = (message, values)
        super().__init__(message % values)


_ISO = re.compile(
    r"(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})(?:[ T](?P<time>\d{2}:\d{2}(?::\d{2})?"
    r"(?:[+-]\d{2}:?\d{2}|Z)?))?")
_GERMAN = re.compile(
    r"(?P<d>\d{1,2})\.(?P<m>\d{1,2})\.(?P<y>\d{4})(?:,?\s+(?:"
    r"(?P<H>\d{1,2}):(?P<M>\d{2})(?::(?P<S>\d{2}))?(?:\s*Uhr)?|(?P<H2>\d{1,2})\s*Uhr))?",
    re.IGNORECASE)


def _read(text: str) -> datetime:
    """The date-time written in ``text``, naive (local) or with its offset."""
    iso, german = _ISO.fullmatch(text), _GERMAN.fullmatch(text)
    match = iso or german
    if match is None:
        raise DateTimeError(N_("%(text)s is not a date and time; write e.g. '17.01.2027 20:00' or "
                               "'2027-01-17 20:00'"),
                            text=repr(text))
    has_time = bool(match["time"]) if iso else bool(match["H"] or match["H2"])
    if not has_time:
        raise DateTimeError(N_("%(text)s has no time of day; write e.g. '17.01.2027 20:00' or "
                               "'2027-01-17 20:00'"),
                            text=repr(text))
    try:
        if iso:
            return datetime.fromisoformat(text.replace("Z", "+00:00"))
        assert german is not None
        return datetime(int(german["y"]), int(german["m"]), int(german["d"]),
                        int(german["H"] or german["H2"]), int(german["M"] or 0),
                        int(german["S"] or 0))
    except ValueError:
        raise DateTimeError(N_("%(text)s is not a valid date and time (there is no such day "
                               "or hour); write e.g. '17.01.2027 20:00' or '2027-01-17 20:00'"),
                            text=repr(text)) from None


def parse_local_datetime(value: str | datetime, zone: ZoneInfo) -> datetime:
    """A deadline given as local date and time in ``zone``, as an aware UTC
    datetime. Both forms a person writes are read, everywhere a date is given
    (the command line, the configuration, a game master's mail): German
    ``17.01.2027 20:00`` (also ``17.1.2027, 20:00 Uhr``, ``17.01.2027 20
    Uhr``, with seconds) and ISO ``2027-01-17 20:00`` (also with ``T``,
    seconds, and an explicit offset: ``2026-10-25 02:30+01:00``, ``...Z``).

    Raises ``DateTimeError`` (a ``ValueError``) for text that is no
    date-time, a date without a time, a day or hour that does not exist, a
    local time that does not exist (the hour skipped when clocks go forward)
    or one that happens twice (clocks go back) without an offset.
    """
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, date):
        raise DateTimeError(N_("%(text)s has no time of day; write e.g. '17.01.2027 20:00' or "
                               "'2027-01-17 20:00'"),
                            text=repr(value.isoformat()))
    elif isinstance(value, str):
        moment = _read(" ".join(value.split()))
    else:
        raise DateTimeError(N_("%(text)s is not a date and time; write e.g. '17.01.2027 20:00' or "
                               "'2027-01-17 20:00'"),
                            text=repr(value))
    if moment.tzinfo is not None:
        return moment.astimezone(UTC)
    first = moment.replace(tzinfo=zone, fold=0)
    second = moment.replace(tzinfo=zone, fold=1)
    if first.utcoffset() != second.utcoffset():
        stamp = moment.strftime("%Y-%m-%d %H:%M")
        if first.astimezone(UTC).astimezone(zone).replace(tzinfo=None) != moment:
            raise DateTimeError(N_("%(stamp)s does not exist in %(zone)s (the clocks jump "
                                   "forward); choose a time outside the skipped hour"),
                                stamp=repr(stamp), zone=zone.key)
        early, late = (f"'{stamp}{_offset(d.utcoffset())}'" for d in (first, second))
        raise DateTimeError(N_("%(stamp)s happens twice in %(zone)s (the clocks go back); add "
                               "the offset: %(early)s or %(late)s"),
                            stamp=repr(stamp), zone=zone.key, early=early, late=late)
    return first.astimezone(UTC)


def _offset(delta: timedelta | None) -> str:
    minutes = int((delta or timedelta()).total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"



# ---------------------------------------------------------------------------
# The plan
# ---------------------------------------------------------------------------


def _require_aware(moment: datetime, name: str) -> None:
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"{name} must be an aware datetime (UTC), got naive {moment!r}")


class DeadlinePlan:
    """The deadlines of a ``ScheduleSettings``."""

    def __init__(self, settings: ScheduleSettings) -> None:
        self.settings = settings
        self._cron: CronTrigger | None = None

    @property
    def _trigger(self) -> CronTrigger | None:
        """The cron line's trigger, made when first needed (APScheduler is
        loaded only by what asks for a cron deadline)."""
        if self.settings.cron is None:
            return None
        if self._cron is None:
            self._cron = self.settings.cron_trigger()
        return self._cron

    def __eq__(self, other: object) -> bool:
        """Two plans of the same schedule are the same plan."""
        return isinstance(other, DeadlinePlan) and other.settings == self.settings

    def __hash__(self) -> int:
        return hash(self.settings)

    def __repr__(self) -> str:
        if self.settings.cron is not None:
            return f"DeadlinePlan(cron={self.settings.cron!r}, timezone={self.settings.timezone!r})"
        return f"DeadlinePlan({len(self.settings.deadlines)} explicit deadlines)"

    def next_deadline(self, after: datetime) -> datetime | None:
        """The first deadline strictly after ``after`` (aware UTC), or None
        when the explicit list has no later entry."""
        _require_aware(after, "after")
        trigger = self._trigger
        if trigger is None:
            return next((d for d in self.settings.deadlines if d > after), None)
        zone = self.settings.zone
        start = (after.astimezone(UTC) + _TICK).astimezone(zone)
        while True:
            fire: datetime | None = trigger.get_next_fire_time(None, start)
            if fire is None:
                return None
            if fire.fold == 1 and fire.replace(fold=0).utcoffset() != fire.utcoffset():
                # Second occurrence of a repeated wall-clock time: the deadline
                # already was at the first one. (Step in UTC: wall-clock
                # arithmetic would drop the fold and find this one again.)
                start = (fire.astimezone(UTC) + timedelta(seconds=1)).astimezone(zone)
                continue
            return fire.astimezone(UTC)

    def upcoming(self, after: datetime, count: int) -> list[datetime]:
        """The next ``count`` deadlines after ``after`` (fewer if the list ends)."""
        found: list[datetime] = []
        moment = after
        while len(found) < count:
            nxt = self.next_deadline(moment)
            if nxt is None:
                break
            found.append(nxt)
            moment = nxt
        return found

    def local(self, moment: datetime) -> datetime:
        """``moment`` in the configured time zone (for display)."""
        return moment.astimezone(self.settings.zone)


def reminder_times(deadline: datetime, hours_before: Iterable[int]) -> list[tuple[int, datetime]]:
    """``(hours, moment)`` for each reminder of ``deadline``, earliest first.

    Hours are elapsed hours, so across a change of summer time "48 hours
    before Sunday 20:00" is Friday 19:00 or 21:00 local time.
    """
    _require_aware(deadline, "deadline")
    pairs = {int(h): deadline.astimezone(UTC) - timedelta(hours=int(h)) for h in hours_before}
    for hours in pairs:
        if hours <= 0:
            raise ValueError(f"reminder hours must be > 0, got {hours!r}")
    return sorted(pairs.items(), key=lambda pair: pair[1])
