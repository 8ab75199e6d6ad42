"""Value parsers: ``(value, key) -> typed value``, or raise ``ConfigError``.

Each parser names what is allowed in the words the error shows. The
schedule's own parsers (``cron_trigger``, ``parse_local_datetime``) do the
work for cron lines and deadlines; these only phrase their errors.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from datetime import datetime
from decimal import Decimal, InvalidOperation
from email.headerregistry import Address
from email.utils import parseaddr
from typing import Any, TypeVar
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from bot.config.errors import ConfigError
from bot.mail.address_check import InvalidAddressError, check_address
from bot.schedule import cron_trigger, parse_local_datetime

T = TypeVar("T")
Parser = Callable[[Any, str], T]

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def integer(minimum: int | None = None, maximum: int | None = None) -> Parser[int]:
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
        return int(value)

    return parse


def positive_number(value: Any, key: str) -> float:
    allowed = "a number of seconds > 0"
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise ConfigError(key, value, allowed)
    return float(value)


def decimal_number(minimum: Decimal) -> Parser[Decimal]:
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


def boolean(value: Any, key: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(key, value, "true or false")
    return value


def text(max_length: int = 200) -> Parser[str]:
    def parse(value: Any, key: str) -> str:
        allowed = f"a non-empty text of at most {max_length} characters"
        if not isinstance(value, str) or not value.strip() or len(value) > max_length:
            raise ConfigError(key, value, allowed)
        if any(ch in value for ch in "\r\n"):
            raise ConfigError(key, value, allowed, reason="line breaks are not allowed")
        return value.strip()

    return parse


def optional(parse: Parser[T]) -> Parser[T | None]:
    def wrapped(value: Any, key: str) -> T | None:
        return None if value is None else parse(value, key)

    return wrapped


def choice(*options: str) -> Parser[str]:
    def parse(value: Any, key: str) -> str:
        allowed = "one of " + ", ".join(repr(o) for o in options)
        if value not in options:
            raise ConfigError(key, value, allowed)
        return str(value)

    return parse


def address(value: Any, key: str) -> str:
    """One plain address, by the same rule the mail composer applies."""
    allowed = "a mail address like 'name@example.org'"
    if not isinstance(value, str):
        raise ConfigError(key, value, allowed)
    try:
        return check_address(value, key)
    except InvalidAddressError as exc:
        raise ConfigError(key, value, allowed, reason=getattr(exc, "reason", None)) from None


def from_header(value: Any, key: str) -> str:
    allowed = "a display name and address like 'Turnited <bot@example.org>'"
    if not isinstance(value, str) or any(ch in value for ch in "\r\n"):
        raise ConfigError(key, value, allowed)
    name, addr = parseaddr(value)
    try:
        addr = address(addr, key)
    except ConfigError:
        raise ConfigError(key, value, allowed, reason="no valid address in it") from None
    return display_address(name, addr)


def display_address(name: str, addr: str) -> str:
    """``Name <addr>`` as a person writes it, quoted where needed but never
    RFC 2047-encoded (``Liga Süd <bot@example.org>``): the mail composer
    encodes the header when it writes one."""
    return str(Address(display_name=name, addr_spec=addr)) if name else addr


def list_of(item: Parser[T], what: str) -> Parser[tuple[T, ...]]:
    def parse(value: Any, key: str) -> tuple[T, ...]:
        if not isinstance(value, list):
            raise ConfigError(key, value, f"a list of {what}")
        return tuple(item(v, f"{key}[{i}]") for i, v in enumerate(value))

    return parse


def hours_list(value: Any, key: str) -> tuple[int, ...]:
    hours = list_of(integer(1, 24 * 28), "whole numbers of hours")(value, key)
    if len(set(hours)) != len(hours):
        raise ConfigError(key, value, "distinct whole numbers of hours", reason="a repeated value")
    return tuple(sorted(hours, reverse=True))


def timezone(value: Any, key: str) -> str:
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


def env_name(value: Any, key: str) -> str:
    if not isinstance(value, str) or not _ENV_NAME.match(value):
        raise ConfigError(key, value, "the name of an environment variable, e.g. 'IMAP_PASSWORD'")
    return value


def secret(value: Any, key: str) -> str:
    if not isinstance(value, str) or not value:
        raise ConfigError(key, value, "a non-empty text (better: use the *_env key instead)")
    return value


def command_line(value: Any, key: str) -> str | tuple[str, ...]:
    """A shell command line, or a list of a program and its arguments."""
    allowed = ("a command line such as 'oama access bot@example.org', or a list of the "
               "program and its arguments")
    if isinstance(value, str) and value.strip() and not any(ch in value for ch in "\r\n"):
        return value.strip()
    if isinstance(value, list) and value and all(isinstance(a, str) and a for a in value):
        return tuple(value)
    raise ConfigError(key, value, allowed)



def cron(zone_name: str) -> Parser[str]:
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



def local_datetime(zone_name: str) -> Parser[datetime]:
    def parse(value: Any, key: str) -> datetime:
        try:
            return parse_local_datetime(value, ZoneInfo(zone_name))
        except ValueError as exc:
            raise ConfigError(
                key, value, f"a local date and time in {zone_name} like '2026-12-06 20:00'",
                reason=str(exc),
            ) from None

    return parse

