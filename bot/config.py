"""The game master's YAML configuration, validated into typed, frozen settings.

``load_config(path)`` reads a YAML file; ``Config.from_mapping(data, base_dir)``
validates an already-parsed mapping. Every key has a default, so an empty
file gives a working bot on the embedded Maildir transport. Validation is
strict: an unknown key, a wrong type or a value out of range is a
``ConfigError`` naming the dotted key, the value (secrets redacted) and what
is allowed; all problems of a file are reported together. Secrets are given
by reference (``password_env``) and resolved at load time; they never
appear in ``repr``, ``str`` or error messages.

The conversions ``imap_settings()``, ``smtp_settings()`` and
``league_settings()`` build the settings objects of the other layers (imported
lazily, so this module only depends on the standard library, PyYAML and
APScheduler's cron parser).
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal, InvalidOperation
from email.utils import formataddr, parseaddr
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

import yaml

if TYPE_CHECKING:
    from apscheduler.triggers.cron import CronTrigger

    from bot.league.service import LeagueSettings
    from bot.mail.imap_source import ImapSettings
    from bot.mail.smtp_sender import SmtpSettings

T = TypeVar("T")

#: The default name of the configuration file (``turnited --config``).
DEFAULT_CONFIG_NAME = "config.yaml"
#: Shown instead of a secret value.
REDACTED = "'***'"
#: Key names whose values are never shown.
_SECRET_NAMES = ("password", "passwd", "pwd", "secret", "token")
#: Word parts of unknown keys whose values are not shown (misspelt secrets).
_SECRET_WORDS = ("pass", "secret", "token", "pwd")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class _Marker:
    def __init__(self, text: str) -> None:
        self._text = text

    def __repr__(self) -> str:
        return self._text


#: The value of a ConfigError about a key that is not there at all.
MISSING: Any = _Marker("<missing>")
#: The value of a ConfigError whose real value is a secret.
HIDDEN: Any = _Marker(REDACTED)


class ConfigError(ValueError):
    """A configuration value that is not allowed.

    ``key`` is the dotted key (``mail.imap.port``), ``value`` the value found
    (``MISSING`` if the key is absent), ``allowed`` a description of what is
    allowed. When a file has several problems, the first one is raised and
    the others are in ``others``; ``str()`` lists them all.
    """

    def __init__(
        self,
        key: str,
        value: Any,
        allowed: str,
        *,
        reason: str | None = None,
        source: Path | str | None = None,
    ) -> None:
        self.key = key
        self.value = value
        self.allowed = allowed
        self.reason = reason
        self.source = source
        self.others: tuple[ConfigError, ...] = ()
        super().__init__(key, allowed)

    @property
    def secret(self) -> bool:
        """Whether the value must not be shown."""
        return is_secret_key(self.key)

    def describe(self) -> str:
        """This one problem as a sentence (without the file name)."""
        if self.value is MISSING:
            head = f"{self.key} is missing"
        else:
            shown = REDACTED if self.secret else _show(self.value)
            head = f"{self.key} = {shown} is invalid"
        if self.reason:
            head += f": {self.reason}"
        return f"{head} (allowed: {self.allowed})"

    def __str__(self) -> str:
        where = f"configuration {self.source}: " if self.source else "configuration: "
        lines = [where + self.describe()]
        if self.others:
            lines[0] += f" (and {len(self.others)} more problem(s))"
            lines.extend(f"  - {other.describe()}" for other in self.others)
        return "\n".join(lines)


def is_secret_key(key: str) -> bool:
    """True for keys like ``mail.smtp.password`` whose values are never shown.

    ``password_env`` names a variable, not a secret, and is shown; so is
    the switch ``auth.passwords``.
    """
    last = key.rsplit(".", 1)[-1].lower()
    return last in _SECRET_NAMES or last.endswith(tuple("_" + n for n in _SECRET_NAMES))


def _looks_secret(name: str) -> bool:
    """For unknown keys: anything that might be a misspelt secret."""
    lowered = name.lower()
    return is_secret_key(name) or (
        not lowered.endswith("_env") and any(w in lowered for w in _SECRET_WORDS)
    )


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


# ---------------------------------------------------------------------------
# The settings tree
# ---------------------------------------------------------------------------


class _RedactedRepr:
    """``repr`` that shows every dataclass field but never a secret's value."""

    def __repr__(self) -> str:
        parts = []
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            if is_secret_key(f.name):
                shown = "None" if value is None else REDACTED
            else:
                shown = repr(value)
            parts.append(f"{f.name}={shown}")
        return f"{type(self).__name__}({', '.join(parts)})"


@dataclass(frozen=True)
class Points:
    """League points for a game (RULES.md §4): win, draw, loss."""

    win: int = 3
    draw: int = 1
    loss: int = 0

    def as_tuple(self) -> tuple[int, int, int]:
        return (self.win, self.draw, self.loss)


@dataclass(frozen=True)
class GameSettings:
    name: str = "Turnited"
    language: str = "de"
    points: Points = field(default_factory=Points)
    season_rounds: int = 5
    initial_wp: Decimal = Decimal(90)


@dataclass(frozen=True)
class PszSettings:
    initial: Decimal = Decimal(250)
    bound: bool = True


@dataclass(frozen=True)
class AnalysisSettings:
    simulations: int = 100_000


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


@dataclass(frozen=True)
class RemindersSettings:
    """Hours before a deadline at which managers without a lineup are reminded
    (descending; empty: no reminders)."""

    hours_before: tuple[int, ...] = (48, 6)


@dataclass(frozen=True)
class GmSettings:
    address: str = "gm@turnited.invalid"
    name: str = "Spielleitung"


@dataclass(frozen=True)
class AuthSettings:
    passwords: bool = True


@dataclass(frozen=True)
class NewsletterSettings:
    extra_recipients: tuple[str, ...] = ()
    language: str = "de"


@dataclass(frozen=True, repr=False)
class ImapConfig(_RedactedRepr):
    host: str = "localhost"
    port: int = 993
    security: str = "ssl"
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    password_env: str | None = None
    folder: str = "INBOX"
    processed_folder: str | None = "Processed"
    idle: bool = True
    poll_seconds: int = 60


@dataclass(frozen=True, repr=False)
class SmtpConfig(_RedactedRepr):
    host: str = "localhost"
    port: int = 587
    security: str = "starttls"
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    password_env: str | None = None
    rate_per_minute: int | None = 30


@dataclass(frozen=True)
class MaildirConfig:
    """The embedded transport: ``STATE/maildir`` is polled this often."""

    poll_seconds: float = 2.0


@dataclass(frozen=True)
class MailLimits:
    max_text_bytes: int = 512 * 1024
    max_command_lines: int = 60
    max_mails_per_hour: int = 20


@dataclass(frozen=True)
class MailSettings:
    transport: str = "maildir"
    address: str = "bot@turnited.invalid"
    from_header: str = "Turnited <bot@turnited.invalid>"
    imap: ImapConfig = field(default_factory=ImapConfig)
    smtp: SmtpConfig = field(default_factory=SmtpConfig)
    maildir: MaildirConfig = field(default_factory=MaildirConfig)
    limits: MailLimits = field(default_factory=MailLimits)


@dataclass(frozen=True)
class Config:
    """The whole configuration. ``state_dir`` is absolute; ``source`` is the
    file it was read from (None when built from a mapping)."""

    game: GameSettings = field(default_factory=GameSettings)
    psz: PszSettings = field(default_factory=PszSettings)
    analysis: AnalysisSettings = field(default_factory=AnalysisSettings)
    schedule: ScheduleSettings = field(default_factory=ScheduleSettings)
    reminders: RemindersSettings = field(default_factory=RemindersSettings)
    gm: GmSettings = field(default_factory=GmSettings)
    mail: MailSettings = field(default_factory=MailSettings)
    auth: AuthSettings = field(default_factory=AuthSettings)
    newsletter: NewsletterSettings = field(default_factory=NewsletterSettings)
    state_dir: Path = field(default_factory=lambda: Path("state").absolute())
    source: Path | None = None

    @classmethod
    def from_mapping(
        cls,
        data: Mapping[str, Any] | None,
        base_dir: Path,
        *,
        environ: Mapping[str, str] | None = None,
        source: Path | None = None,
    ) -> Config:
        """Validate a parsed YAML mapping. Relative paths are taken relative
        to ``base_dir``; ``environ`` (default ``os.environ``) resolves
        ``*_env`` references. Raises ``ConfigError``."""
        return _build(data, Path(base_dir), os.environ if environ is None else environ, source)

    # -- derived values ----------------------------------------------------

    @property
    def maildir_root(self) -> Path:
        """Where the embedded Maildir transport keeps its folders."""
        return self.state_dir / "maildir"

    def secrets(self) -> tuple[str, ...]:
        """Every secret value (for log redaction)."""
        found = (self.mail.imap.password, self.mail.smtp.password)
        return tuple(s for s in found if s)

    # -- conversions to the settings of the other layers ---------------------

    def imap_settings(self) -> ImapSettings:
        from bot.mail.imap_source import ImapSettings

        imap = self.mail.imap
        return ImapSettings(
            host=imap.host,
            port=imap.port,
            security=imap.security,
            username=imap.username or self.mail.address,
            password=imap.password or "",
            folder=imap.folder,
            processed_folder=imap.processed_folder,
            idle=imap.idle,
            poll_seconds=imap.poll_seconds,
        )

    def smtp_settings(self) -> SmtpSettings:
        from bot.mail.smtp_sender import SmtpSettings

        smtp = self.mail.smtp
        return SmtpSettings(
            host=smtp.host,
            port=smtp.port,
            security=smtp.security,
            username=smtp.username,
            password=smtp.password,
        )

    def league_settings(self) -> LeagueSettings:
        from bot.league.service import LeagueSettings

        return LeagueSettings(
            initial_wp=self.game.initial_wp,
            initial_psz=self.psz.initial,
            season_rounds=self.game.season_rounds,
            points=self.game.points.as_tuple(),
            passwords=self.auth.passwords,
            simulations=self.analysis.simulations,
            psz_bound=self.psz.bound,
        )


# ---------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------


class _StrictLoader(yaml.SafeLoader):
    """A safe loader that refuses duplicate keys (PyYAML keeps the last one
    silently, which hides typos)."""


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    loader.flatten_mapping(node)
    result: dict = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in result:
            mark = key_node.start_mark
            raise ConfigError(
                str(key),
                HIDDEN if _looks_secret(str(key)) else loader.construct_object(value_node),
                "each key once per section",
                reason=f"duplicate key on line {mark.line + 1}",
            )
        result[key] = loader.construct_object(value_node, deep=deep)
    return result


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def load_config(path: Path | str, *, environ: Mapping[str, str] | None = None) -> Config:
    """Read and validate the YAML configuration at ``path``.

    Raises ``ConfigError`` for a missing or unreadable file, YAML syntax
    errors and every invalid value.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(
            "(file)", str(path), "an existing YAML file (create one with 'turnited init')",
            reason="no such file",
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(
            "(file)", str(path), "a readable UTF-8 YAML file", reason=str(exc)
        ) from None
    try:
        data = yaml.load(text, Loader=_StrictLoader)  # a SafeLoader subclass
    except ConfigError as exc:
        exc.source = path
        raise
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "unknown place"
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(
            "(file)", str(path), "valid YAML", reason=f"YAML syntax error at {where}: {problem}",
            source=path,
        ) from None
    return Config.from_mapping(
        data, path.absolute().parent, environ=environ, source=path.absolute()
    )


# ---------------------------------------------------------------------------
# Value parsers: (value, key) -> typed value, or raise ConfigError
# ---------------------------------------------------------------------------

Parser = Callable[[Any, str], T]


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _int(minimum: int | None = None, maximum: int | None = None) -> Parser[int]:
    def parse(value: Any, key: str) -> int:
        allowed = "a whole number"
        if minimum is not None and maximum is not None:
            allowed += f" from {minimum} to {maximum}"
        elif minimum is not None:
            allowed += f" >= {minimum}"
        if not _is_int(value):
            raise ConfigError(key, value, allowed)
        if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
            raise ConfigError(key, value, allowed, reason="out of range")
        return value

    return parse


def _positive_number(value: Any, key: str) -> float:
    allowed = "a number of seconds > 0"
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise ConfigError(key, value, allowed)
    return float(value)


def _decimal(minimum: Decimal) -> Parser[Decimal]:
    def parse(value: Any, key: str) -> Decimal:
        allowed = f"a decimal number > {minimum}, e.g. 90 or '90.5'"
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            raise ConfigError(key, value, allowed)
        try:
            number = Decimal(str(value).strip())
        except InvalidOperation:
            raise ConfigError(key, value, allowed) from None
        if not number.is_finite() or number <= minimum:
            raise ConfigError(key, value, allowed)
        return number

    return parse


def _bool(value: Any, key: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(key, value, "true or false")
    return value


def _text(max_length: int = 200) -> Parser[str]:
    def parse(value: Any, key: str) -> str:
        allowed = f"a non-empty text of at most {max_length} characters"
        if not isinstance(value, str) or not value.strip() or len(value) > max_length:
            raise ConfigError(key, value, allowed)
        if any(ch in value for ch in "\r\n"):
            raise ConfigError(key, value, allowed, reason="line breaks are not allowed")
        return value.strip()

    return parse


def _optional(parse: Parser[T]) -> Parser[T | None]:
    def wrapped(value: Any, key: str) -> T | None:
        return None if value is None else parse(value, key)

    return wrapped


def _choice(*options: str) -> Parser[str]:
    def parse(value: Any, key: str) -> str:
        allowed = "one of " + ", ".join(repr(o) for o in options)
        if value not in options:
            raise ConfigError(key, value, allowed)
        return value

    return parse


def _address(value: Any, key: str) -> str:
    """One plain address, by the same rule the mail composer applies."""
    from bot.mail.compose import InvalidAddressError, check_address

    allowed = "a mail address like 'name@example.org'"
    if not isinstance(value, str):
        raise ConfigError(key, value, allowed)
    try:
        return check_address(value, key)
    except InvalidAddressError as exc:
        raise ConfigError(key, value, allowed, reason=getattr(exc, "reason", None)) from None


def _from_header(value: Any, key: str) -> str:
    allowed = "a display name and address like 'Turnited <bot@example.org>'"
    if not isinstance(value, str) or any(ch in value for ch in "\r\n"):
        raise ConfigError(key, value, allowed)
    name, addr = parseaddr(value)
    try:
        addr = _address(addr, key)
    except ConfigError:
        raise ConfigError(key, value, allowed, reason="no valid address in it") from None
    return formataddr((name, addr))


def _list_of(item: Parser[T], what: str) -> Parser[tuple[T, ...]]:
    def parse(value: Any, key: str) -> tuple[T, ...]:
        if not isinstance(value, list):
            raise ConfigError(key, value, f"a list of {what}")
        return tuple(item(v, f"{key}[{i}]") for i, v in enumerate(value))

    return parse


def _hours_list(value: Any, key: str) -> tuple[int, ...]:
    hours = _list_of(_int(1, 24 * 28), "whole numbers of hours")(value, key)
    if len(set(hours)) != len(hours):
        raise ConfigError(key, value, "distinct whole numbers of hours", reason="a repeated value")
    return tuple(sorted(hours, reverse=True))


def _timezone(value: Any, key: str) -> str:
    allowed = "an IANA time zone name such as 'Europe/Berlin' or 'UTC'"
    if not isinstance(value, str) or not value:
        raise ConfigError(key, value, allowed)
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        close = difflib.get_close_matches(value, sorted(available_timezones()), n=1)
        reason = "unknown time zone" + (f"; did you mean {close[0]!r}?" if close else "")
        raise ConfigError(key, value, allowed, reason=reason) from None
    return value


def _env_name(value: Any, key: str) -> str:
    if not isinstance(value, str) or not _ENV_NAME.match(value):
        raise ConfigError(key, value, "the name of an environment variable, e.g. 'IMAP_PASSWORD'")
    return value


def _secret(value: Any, key: str) -> str:
    if not isinstance(value, str) or not value:
        raise ConfigError(key, value, "a non-empty text (better: use the *_env key instead)")
    return value


# ---------------------------------------------------------------------------
# Deadlines: cron lines and local date-times
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


def _cron(zone_name: str) -> Parser[str]:
    def parse(value: Any, key: str) -> str:
        allowed = "a crontab line 'minute hour day month weekday', e.g. '0 20 * * SUN'"
        if not isinstance(value, str):
            raise ConfigError(key, value, allowed)
        zone = ZoneInfo(zone_name)
        try:
            trigger = cron_trigger(value, zone)
        except ValueError as exc:
            raise ConfigError(key, value, allowed, reason=str(exc)) from None
        start = datetime.now(zone)
        if trigger.get_next_fire_time(None, start) is None:
            raise ConfigError(key, value, allowed, reason="it never fires")
        return " ".join(value.split())

    return parse


_LOCAL_DATETIME = re.compile(r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2})?([+-]\d{2}:?\d{2}|Z)?")


def parse_local_datetime(value: str | datetime, zone: ZoneInfo) -> datetime:
    """A deadline given as local date and time (``'2026-12-06 20:00'``) in
    ``zone``, or with an explicit offset (``'2026-10-25 02:30+01:00'``),
    as an aware UTC datetime.

    Raises ``ValueError`` for text that is no date-time, a date without a
    time, a local time that does not exist (the hour skipped when clocks go
    forward) or one that happens twice (clocks go back) without an offset.
    """
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, date):
        raise ValueError(f"{value.isoformat()!r} has no time of day; write e.g. '{value} 20:00'")
    elif isinstance(value, str):
        text = value.strip()
        if not _LOCAL_DATETIME.fullmatch(text):
            raise ValueError(
                f"{value!r} is not a date and time; "
                "write 'YYYY-MM-DD HH:MM', e.g. '2026-12-06 20:00'"
            )
        try:
            moment = datetime.fromisoformat(text)
        except ValueError as exc:
            raise ValueError(f"{value!r} is not a valid date and time: {exc}") from None
    else:
        raise ValueError(f"{value!r} is not a date and time; write 'YYYY-MM-DD HH:MM'")
    if moment.tzinfo is not None:
        return moment.astimezone(UTC)
    first = moment.replace(tzinfo=zone, fold=0)
    second = moment.replace(tzinfo=zone, fold=1)
    if first.utcoffset() != second.utcoffset():
        stamp = moment.strftime("%Y-%m-%d %H:%M")
        if first.astimezone(UTC).astimezone(zone).replace(tzinfo=None) != moment:
            raise ValueError(
                f"{stamp!r} does not exist in {zone.key} (the clocks jump forward); "
                "choose a time outside the skipped hour"
            )
        offsets = " or ".join(
            f"'{stamp}{_offset(d.utcoffset())}'" for d in (first, second)
        )
        raise ValueError(
            f"{stamp!r} happens twice in {zone.key} (the clocks go back); "
            f"add the offset: {offsets}"
        )
    return first.astimezone(UTC)


def _offset(delta: timedelta | None) -> str:
    minutes = int((delta or timedelta()).total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def _local_datetime(zone_name: str) -> Parser[datetime]:
    def parse(value: Any, key: str) -> datetime:
        try:
            return parse_local_datetime(value, ZoneInfo(zone_name))
        except ValueError as exc:
            raise ConfigError(
                key, value, f"a local date and time in {zone_name} like '2026-12-06 20:00'",
                reason=str(exc),
            ) from None

    return parse


# ---------------------------------------------------------------------------
# The walk over the mapping
# ---------------------------------------------------------------------------


class _Section:
    """One mapping of the YAML tree: known keys are taken, problems collected,
    and whatever is left over at ``finish()`` is an unknown key."""

    def __init__(self, data: Any, prefix: str, problems: list[ConfigError]) -> None:
        self.prefix = prefix
        self.problems = problems
        self.known: list[str] = []
        if data is None:
            data = {}
        if not isinstance(data, Mapping):
            problems.append(
                ConfigError(prefix or "(top level)", data, "a mapping of 'key: value' lines")
            )
            data = {}
        self.data: Mapping[Any, Any] = data

    def key(self, name: str) -> str:
        return f"{self.prefix}.{name}" if self.prefix else name

    def has(self, name: str) -> bool:
        self.known.append(name)
        return name in self.data

    def get(self, name: str, parse: Parser[T], default: T) -> T:
        self.known.append(name)
        if name not in self.data:
            return default
        try:
            return parse(self.data[name], self.key(name))
        except ConfigError as exc:
            self.problems.append(exc)
            return default

    def raw(self, name: str) -> Any:
        self.known.append(name)
        return self.data.get(name, MISSING)

    def section(self, name: str) -> _Section:
        self.known.append(name)
        return _Section(self.data.get(name), self.key(name), self.problems)

    def fail(self, name: str, value: Any, allowed: str, reason: str | None = None) -> None:
        self.problems.append(ConfigError(self.key(name), value, allowed, reason=reason))

    def finish(self) -> None:
        for name, value in self.data.items():
            if name in self.known:
                continue
            key = self.key(str(name))
            close = difflib.get_close_matches(str(name), self.known, n=1, cutoff=0.5)
            reason = "unknown key" + (f"; did you mean {self.key(close[0])!r}?" if close else "")
            hide = _looks_secret(str(name)) or bool(close and is_secret_key(close[0]))
            self.problems.append(
                ConfigError(
                    key,
                    HIDDEN if hide else value,
                    "the keys " + ", ".join(sorted(set(self.known))),
                    reason=reason,
                )
            )


def _build(
    data: Mapping[str, Any] | None,
    base_dir: Path,
    environ: Mapping[str, str],
    source: Path | None,
) -> Config:
    problems: list[ConfigError] = []
    top = _Section(data, "", problems)

    game = _read_game(top.section("game"))
    psz_s = top.section("psz")
    psz = PszSettings(
        initial=psz_s.get("initial", _decimal(Decimal(0)), PszSettings.initial),
        bound=psz_s.get("bound", _bool, PszSettings.bound),
    )
    psz_s.finish()
    analysis_s = top.section("analysis")
    analysis = AnalysisSettings(
        simulations=analysis_s.get("simulations", _int(0, 100_000_000), 100_000)
    )
    analysis_s.finish()
    state_text = top.get("state_dir", _text(1000), "state")
    state_dir = Path(os.path.abspath(base_dir / Path(state_text).expanduser()))

    schedule = _read_schedule(top.section("schedule"))
    reminders_s = top.section("reminders")
    reminders = RemindersSettings(
        hours_before=reminders_s.get("hours_before", _hours_list, RemindersSettings.hours_before)
    )
    reminders_s.finish()

    gm_s = top.section("gm")
    gm = GmSettings(
        address=gm_s.get("address", _address, GmSettings.address),
        name=gm_s.get("name", _text(100), GmSettings.name),
    )
    mail = _read_mail(top.section("mail"), game, environ)
    if mail.transport == "imap" and not gm_s.has("address"):
        gm_s.fail("address", MISSING, "the game master's mail address",
                  reason="required when mail.transport is 'imap'")
    gm_s.finish()

    auth_s = top.section("auth")
    auth = AuthSettings(passwords=auth_s.get("passwords", _bool, True))
    auth_s.finish()

    news_s = top.section("newsletter")
    newsletter = NewsletterSettings(
        extra_recipients=news_s.get(
            "extra_recipients", _list_of(_address, "mail addresses"), ()
        ),
        language=news_s.get("language", _choice("de", "en"), game.language),
    )
    news_s.finish()
    top.finish()

    if problems:
        first = problems[0]
        for problem in problems:
            problem.source = source
        first.others = tuple(problems[1:])
        raise first
    return Config(
        game=game, psz=psz, analysis=analysis, schedule=schedule, reminders=reminders,
        gm=gm, mail=mail, auth=auth, newsletter=newsletter, state_dir=state_dir, source=source,
    )


def _read_game(s: _Section) -> GameSettings:
    points = Points()
    if s.has("points"):
        points = _read_points(s.raw("points"), s.key("points"), s.problems)
    game = GameSettings(
        name=s.get("name", _text(60), GameSettings.name),
        language=s.get("language", _choice("de", "en"), GameSettings.language),
        points=points,
        season_rounds=s.get("season_rounds", _int(1, 100), GameSettings.season_rounds),
        initial_wp=s.get("initial_wp", _decimal(Decimal(0)), GameSettings.initial_wp),
    )
    s.finish()
    return game


def _read_points(value: Any, key: str, problems: list[ConfigError]) -> Points:
    allowed = "whole numbers win >= draw >= loss >= 0, e.g. {win: 3, draw: 1, loss: 0}"
    if isinstance(value, list) and len(value) == 3:
        value = dict(zip(("win", "draw", "loss"), value, strict=True))
    section = _Section(value, key, problems)
    before = len(problems)
    win = section.get("win", _int(0, 100), 3)
    draw = section.get("draw", _int(0, 100), 1)
    loss = section.get("loss", _int(0, 100), 0)
    section.finish()
    if len(problems) == before and not win >= draw >= loss:
        problems.append(ConfigError(key, value, allowed, reason="not win >= draw >= loss"))
        return Points()
    return Points(win, draw, loss) if len(problems) == before else Points()


def _read_schedule(s: _Section) -> ScheduleSettings:
    zone_name = s.get("timezone", _timezone, ScheduleSettings.timezone)
    cron: str | None = ScheduleSettings.cron
    deadlines: tuple[datetime, ...] = ()
    raw = s.raw("deadlines")
    key = s.key("deadlines")
    allowed = "either 'cron: \"0 20 * * SUN\"' or a list of local date-times"
    if raw is MISSING or raw is None:
        pass
    elif isinstance(raw, Mapping):
        section = _Section(raw, key, s.problems)
        if section.has("cron"):
            cron = section.get("cron", _cron(zone_name), cron)
        else:
            s.problems.append(ConfigError(f"{key}.cron", MISSING, allowed))
        section.finish()
    elif isinstance(raw, list):
        cron = None
        if not raw:
            s.problems.append(ConfigError(key, raw, allowed, reason="the list is empty"))
        parsed = _list_of(_local_datetime(zone_name), "date-times")
        try:
            deadlines = parsed(raw, key)
        except ConfigError as exc:
            s.problems.append(exc)
        if len(set(deadlines)) != len(deadlines):
            s.problems.append(ConfigError(key, raw, allowed, reason="a deadline appears twice"))
        deadlines = tuple(sorted(set(deadlines)))
    else:
        s.problems.append(ConfigError(key, raw, allowed))
    s.finish()
    return ScheduleSettings(timezone=zone_name, cron=cron, deadlines=deadlines)


_DEFAULT_PORTS = {
    "imap": {"ssl": 993, "starttls": 143, "none": 143},
    "smtp": {"ssl": 465, "starttls": 587, "none": 25},
}


def _read_mail(s: _Section, game: GameSettings, environ: Mapping[str, str]) -> MailSettings:
    transport = s.get("transport", _choice("imap", "maildir"), "maildir")
    real = transport == "imap"
    address = s.get("address", _address, MailSettings.address)
    if real and not s.has("address"):
        s.fail("address", MISSING, "the bot's own mail address",
               reason="required when mail.transport is 'imap'")
    from_header = s.get("from", _from_header, formataddr((game.name, address)))

    imap_s = s.section("imap")
    imap_security = imap_s.get("security", _choice("ssl", "starttls", "none"), "ssl")
    imap_password, imap_password_env = _read_password(
        imap_s, environ, resolve=real, required=real
    )
    imap = ImapConfig(
        host=imap_s.get("host", _text(), "localhost"),
        port=imap_s.get("port", _int(1, 65535), _DEFAULT_PORTS["imap"][imap_security]),
        security=imap_security,
        username=imap_s.get("username", _optional(_text()), None),
        password=imap_password,
        password_env=imap_password_env,
        folder=imap_s.get("folder", _text(), "INBOX"),
        processed_folder=imap_s.get("processed_folder", _optional(_text()), "Processed"),
        idle=imap_s.get("idle", _bool, True),
        poll_seconds=imap_s.get("poll_seconds", _int(5, 86_400), 60),
    )
    if real and not imap_s.has("host"):
        imap_s.fail("host", MISSING, "the IMAP server's host name",
                    reason="required when mail.transport is 'imap'")
    if imap.processed_folder is not None and imap.processed_folder == imap.folder:
        imap_s.fail("processed_folder", imap.processed_folder,
                    f"a folder other than mail.imap.folder ({imap.folder!r}), or null")
    imap_s.finish()

    smtp_s = s.section("smtp")
    smtp_security = smtp_s.get("security", _choice("ssl", "starttls", "none"), "starttls")
    smtp_user = smtp_s.get("username", _optional(_text()), None)
    smtp_password, smtp_password_env = _read_password(
        smtp_s, environ, resolve=real, required=real and smtp_user is not None
    )
    smtp = SmtpConfig(
        host=smtp_s.get("host", _text(), "localhost"),
        port=smtp_s.get("port", _int(1, 65535), _DEFAULT_PORTS["smtp"][smtp_security]),
        security=smtp_security,
        username=smtp_user,
        password=smtp_password,
        password_env=smtp_password_env,
        rate_per_minute=smtp_s.get("rate_per_minute", _optional(_int(1, 10_000)), 30),
    )
    if real and not smtp_s.has("host"):
        smtp_s.fail("host", MISSING, "the SMTP server's host name",
                    reason="required when mail.transport is 'imap'")
    smtp_s.finish()

    maildir_s = s.section("maildir")
    maildir = MaildirConfig(
        poll_seconds=maildir_s.get("poll_seconds", _positive_number, MaildirConfig.poll_seconds)
    )
    maildir_s.finish()

    limits_s = s.section("limits")
    limits = MailLimits(
        max_text_bytes=limits_s.get("max_text_bytes", _int(1024, 64 * 1024 * 1024), 512 * 1024),
        max_command_lines=limits_s.get("max_command_lines", _int(1, 10_000), 60),
        max_mails_per_hour=limits_s.get("max_mails_per_hour", _int(1, 100_000), 20),
    )
    limits_s.finish()
    s.finish()
    return MailSettings(
        transport=transport, address=address, from_header=from_header,
        imap=imap, smtp=smtp, maildir=maildir, limits=limits,
    )


def _read_password(
    s: _Section, environ: Mapping[str, str], *, resolve: bool, required: bool
) -> tuple[str | None, str | None]:
    """``(password, password_env)`` of an imap/smtp section: ``password`` or
    ``password_env``, not both. The variable is resolved only when the
    transport uses this server (``resolve``); a missing one is an error
    naming the variable."""
    direct = s.get("password", _optional(_secret), None)
    env_name = s.get("password_env", _optional(_env_name), None)
    if direct is not None and env_name is not None:
        s.fail("password_env", env_name, "either password or password_env, not both")
        return direct, None
    if direct is not None or env_name is None:
        if direct is None and required:
            s.fail("password_env", MISSING,
                   "the name of an environment variable holding the password (or password)",
                   reason=f"{s.prefix} needs a password when mail.transport is 'imap'")
        return direct, None
    if not resolve:
        return None, env_name
    value = environ.get(env_name)
    if not value:
        state = "is not set" if value is None else "is empty"
        s.fail("password_env", env_name,
               "the name of an environment variable that holds the password",
               reason=f"environment variable {env_name!r} {state}")
        return None, env_name
    return value, env_name


def example_config_text() -> str:
    """The commented example configuration shipped with the package
    (``bot/data/config.example.yaml``; ``turnited init`` writes it)."""
    from importlib.resources import files

    return files("bot").joinpath("data", "config.example.yaml").read_text(encoding="utf-8")
