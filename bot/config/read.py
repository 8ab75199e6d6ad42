"""The walk from a parsed YAML mapping to the typed sections.

Every ``read_*`` takes a ``Section`` and returns the settings of one part;
the problems go into the section's shared list, so one pass finds them all.
Defaults come from the settings types (``S().field``), never from here.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import bot.config.parsers as p
from bot.config.errors import HIDDEN, MISSING, ConfigError
from bot.config.sections import Section
from bot.config.settings import (
    DEFAULT_IMAP_SECURITY,
    DEFAULT_MAIL_HOST,
    DEFAULT_SMTP_SECURITY,
    GM_PASSWORD_MIN,
    AnalysisSettings,
    ArchiveSettings,
    AuthSettings,
    GameSection,
    GmSettings,
    MaildirSettings,
    MailLimits,
    MailSettings,
    NewsletterSettings,
    PszSettings,
    RemindersSettings,
    RetentionSettings,
    TrustSettings,
    default_imap,
    default_smtp,
)
from bot.mail import imap_settings, smtp_settings
from bot.mail.imap_settings import ImapSettings
from bot.mail.oauth import AUTH_MODES, TokenCommand
from bot.mail.smtp_settings import SmtpSettings
from bot.rules.tournament import Points
from bot.schedule import ScheduleSettings

_SECURITY = p.choice("ssl", "starttls", "none")
_AUTH = p.choice(*AUTH_MODES)
_REQUIRED_FOR_IMAP = "required when mail.transport is 'imap'"


def read_game(s: Section) -> GameSection:
    d = GameSection()
    points = d.points
    if s.has("points"):
        points = read_points(s.raw("points"), s.key("points"), s.problems, d.points)
    game = GameSection(
        name=s.get("name", p.text(60), d.name),
        language=s.get("language", p.choice("de", "en"), d.language),
        points=points,
        season_rounds=s.get("season_rounds", p.integer(1, 100), d.season_rounds),
        initial_wp=s.get("initial_wp", p.decimal_number(Decimal(0)), d.initial_wp),
    )
    s.finish()
    return game


def read_points(value: Any, key: str, problems: list[ConfigError], default: Points) -> Points:
    allowed = "whole numbers win >= draw >= loss >= 0, e.g. {win: 3, draw: 1, loss: 0}"
    if isinstance(value, list) and len(value) == 3:
        value = dict(zip(("win", "draw", "loss"), value, strict=True))
    section = Section(value, key, problems)
    before = len(problems)
    win = section.get("win", p.integer(0, 100), default.win)
    draw = section.get("draw", p.integer(0, 100), default.draw)
    loss = section.get("loss", p.integer(0, 100), default.loss)
    section.finish()
    if len(problems) == before and not win >= draw >= loss:
        problems.append(ConfigError(key, value, allowed, reason="not win >= draw >= loss"))
        return default
    return Points(win, draw, loss) if len(problems) == before else default


def read_psz(s: Section) -> PszSettings:
    d = PszSettings()
    psz = PszSettings(
        initial=s.get("initial", p.decimal_number(Decimal(0)), d.initial),
        bound=s.get("bound", p.boolean, d.bound),
    )
    s.finish()
    return psz


def read_analysis(s: Section) -> AnalysisSettings:
    d = AnalysisSettings()
    analysis = AnalysisSettings(
        simulations=s.get("simulations", p.integer(0, 100_000_000), d.simulations)
    )
    s.finish()
    return analysis


def read_reminders(s: Section) -> RemindersSettings:
    d = RemindersSettings()
    reminders = RemindersSettings(hours_before=s.get("hours_before", p.hours_list,
                                                     d.hours_before))
    s.finish()
    return reminders


def read_gm(s: Section, environ: Mapping[str, str] | None = None, *,
            check: bool = False) -> GmSettings:
    """The ``gm`` section; the caller finishes it with ``require_gm_address``.
    ``password_env`` names the variable of the GM password (never the password
    itself: a ``password`` key is refused); with ``check`` it must be set now,
    to at least ``GM_PASSWORD_MIN`` characters."""
    d = GmSettings()
    if s.has("password"):
        s.fail("password", HIDDEN, "no password in the file: name the environment variable "
               "that holds it with password_env", reason="the GM password is never written "
               "into the configuration (RULES.md §13)")
    env_name = s.get("password_env", p.optional(p.env_name), None)
    if check and env_name is not None:
        value = (os.environ if environ is None else environ).get(env_name)
        if not value or len(value) < GM_PASSWORD_MIN:
            state = ("is not set" if value is None else "is empty" if not value
                     else f"holds only {len(value)} characters")
            s.fail("password_env", env_name, "the name of an environment variable that holds "
                   f"the GM password, at least {GM_PASSWORD_MIN} characters",
                   reason=f"environment variable {env_name!r} {state}")
    return GmSettings(
        address=s.get("address", p.address, d.address),
        name=s.get("name", p.text(100), d.name),
        password_env=env_name,
        environ=environ,
    )


def require_gm_address(s: Section, transport: str) -> None:
    """The real transport needs the game master's own address."""
    if transport == "imap" and not s.has("address"):
        s.fail("address", MISSING, "the game master's mail address", reason=_REQUIRED_FOR_IMAP)
    s.finish()


def read_auth(s: Section) -> AuthSettings:
    auth = AuthSettings(passwords=s.get("passwords", p.boolean, AuthSettings().passwords))
    s.finish()
    return auth


def read_newsletter(s: Section, game: GameSection) -> NewsletterSettings:
    d = NewsletterSettings()
    newsletter = NewsletterSettings(
        extra_recipients=s.get(
            "extra_recipients", p.list_of(p.address, "mail addresses"), d.extra_recipients
        ),
        language=s.get("language", p.choice("de", "en"), game.language),
    )
    s.finish()
    return newsletter


def read_archive(s: Section) -> ArchiveSettings:
    url = s.get("url", p.optional(p.text(500)), ArchiveSettings().url)
    if url is not None:
        if not url.startswith(("https://", "http://")) or any(c.isspace() for c in url):
            s.fail("url", url, "the web address of the published archive, e.g. "
                   "'https://example.org/turnited' (http:// or https://, no spaces)")
            url = None
        else:
            url = url.rstrip("/")
    archive = ArchiveSettings(url=url)
    s.finish()
    return archive


def read_retention(s: Section) -> RetentionSettings:
    d = RetentionSettings()
    days = p.optional(p.integer(minimum=1))
    retention = RetentionSettings(spool_days=s.get("spool_days", days, d.spool_days),
                                  outbox_days=s.get("outbox_days", days, d.outbox_days))
    s.finish()
    return retention


def read_schedule(s: Section) -> ScheduleSettings:
    d = ScheduleSettings()
    zone_name = s.get("timezone", p.timezone, d.timezone)
    cron: str | None = d.cron
    deadlines: tuple[datetime, ...] = ()
    raw = s.raw("deadlines")
    key = s.key("deadlines")
    allowed = "either 'cron: \"0 20 * * SUN\"' or a list of local date-times"
    if raw is MISSING or raw is None:
        pass
    elif isinstance(raw, Mapping):
        section = Section(raw, key, s.problems)
        if section.has("cron"):
            cron = section.get("cron", p.cron(zone_name), cron)
        else:
            s.problems.append(ConfigError(f"{key}.cron", MISSING, allowed))
        section.finish()
    elif isinstance(raw, list):
        cron = None
        if not raw:
            s.problems.append(ConfigError(key, raw, allowed, reason="the list is empty"))
        parsed = p.list_of(p.local_datetime(zone_name), "date-times")
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


def read_mail(
    s: Section, game: GameSection, environ: Mapping[str, str] | None, *, check_secrets: bool,
    base_dir: Path | None = None,
) -> MailSettings:
    """``environ`` None means ``os.environ``, read again at each login;
    ``ca_file`` paths are relative to ``base_dir`` (the configuration's folder)."""
    base = base_dir or Path.cwd()
    d = MailSettings()
    transport = s.get("transport", p.choice("imap", "maildir"), d.transport)
    real = transport == "imap"
    address = s.get("address", p.address, d.address)
    if real and not s.has("address"):
        s.fail("address", MISSING, "the bot's own mail address", reason=_REQUIRED_FOR_IMAP)
    from_header = s.get("from", p.from_header, p.display_address(game.name, address))
    imap = _read_imap(s.section("imap"), address, environ, real=real, check=check_secrets,
                      base=base)
    smtp = _read_smtp(s.section("smtp"), environ, real=real, check=check_secrets, base=base)

    maildir_s = s.section("maildir")
    maildir = MaildirSettings(poll_seconds=maildir_s.get(
        "poll_seconds", p.positive_number, MaildirSettings().poll_seconds))
    maildir_s.finish()

    limits_s = s.section("limits")
    dl = MailLimits()
    limits = MailLimits(
        max_text_bytes=limits_s.get("max_text_bytes", p.integer(1024, 64 * 1024 * 1024),
                                    dl.max_text_bytes),
        max_command_lines=limits_s.get("max_command_lines", p.integer(1, 10_000),
                                       dl.max_command_lines),
        max_mails_per_hour=limits_s.get("max_mails_per_hour", p.integer(1, 100_000),
                                        dl.max_mails_per_hour),
        max_mail_bytes=limits_s.get("max_mail_bytes", p.integer(64 * 1024, 1024 * 1024 * 1024),
                                    dl.max_mail_bytes),
        handling_seconds=limits_s.get("handling_seconds", p.positive_number,
                                      dl.handling_seconds),
        max_attempts=limits_s.get("max_attempts", p.integer(1, 100), dl.max_attempts),
    )
    limits_s.finish()
    trust_s = s.section("trust")
    trust = TrustSettings(authserv_id=trust_s.get("authserv_id", p.optional(p.text()), None))
    trust_s.finish()
    s.finish()
    return MailSettings(
        transport=transport, address=address, from_header=from_header,
        imap=imap, smtp=smtp, maildir=maildir, limits=limits, trust=trust,
    )


def _read_ca_file(s: Section, base: Path) -> Path | None:
    """``ca_file``: a PEM file of the CA(s) to trust, which must exist."""
    text = s.get("ca_file", p.optional(p.text(1000)), None)
    if text is None:
        return None
    path = Path(os.path.abspath(base / Path(text).expanduser()))
    if not path.is_file():
        s.fail("ca_file", text, "the path of a PEM file of CA certificates (relative to the "
               "configuration's folder)", reason=f"there is no file {str(path)!r}")
        return None
    return path


def _read_imap(
    s: Section, address: str, environ: Mapping[str, str] | None, *, real: bool, check: bool,
    base: Path,
) -> ImapSettings:
    d = default_imap()
    before = len(s.problems)
    security = s.get("security", _SECURITY, DEFAULT_IMAP_SECURITY)
    auth, token_command = _read_auth(s, d.auth)
    password, password_env = _read_password(s, environ, check=real and check and
                                            auth == "password", required=real,
                                            oauth2=auth == "oauth2")
    values: dict[str, Any] = dict(
        host=s.get("host", p.text(), DEFAULT_MAIL_HOST),
        port=s.get("port", p.integer(1, 65535), imap_settings.DEFAULT_PORTS[security]),
        security=security,
        username=s.get("username", p.optional(p.text()), None) or address,
        password=password,
        password_env=password_env,
        folder=s.get("folder", p.text(), d.folder),
        processed_folder=s.get("processed_folder", p.optional(p.text()), d.processed_folder),
        quarantine_folder=s.get("quarantine_folder", p.text(), d.quarantine_folder),
        idle=s.get("idle", p.boolean, d.idle),
        poll_seconds=s.get("poll_seconds", p.integer(5, 86_400), d.poll_seconds),
        environ=environ,
        ca_file=_read_ca_file(s, base),
        auth=auth,
        token_command=token_command,
    )
    if real and not s.has("host"):
        s.fail("host", MISSING, "the IMAP server's host name", reason=_REQUIRED_FOR_IMAP)
    folder, processed = values["folder"], values["processed_folder"]
    if processed is not None and processed == folder:
        s.fail("processed_folder", processed,
               f"a folder other than mail.imap.folder ({folder!r}), or null")
    if values["quarantine_folder"] in (folder, processed):
        s.fail("quarantine_folder", values["quarantine_folder"],
               "a folder other than mail.imap.folder and mail.imap.processed_folder")
    s.finish()
    return ImapSettings(**values) if len(s.problems) == before else d


def _read_smtp(
    s: Section, environ: Mapping[str, str] | None, *, real: bool, check: bool, base: Path
) -> SmtpSettings:
    d = default_smtp()
    before = len(s.problems)
    security = s.get("security", _SECURITY, DEFAULT_SMTP_SECURITY)
    username = s.get("username", p.optional(p.text()), d.username)
    auth, token_command = _read_auth(s, d.auth)
    oauth2 = auth == "oauth2"
    password, password_env = _read_password(
        s, environ, check=real and check and not oauth2,
        required=real and username is not None, oauth2=oauth2,
    )
    if oauth2 and username is None:
        s.fail("username", MISSING, "the mailbox login", reason="needed when auth is 'oauth2'")
    values: dict[str, Any] = dict(
        host=s.get("host", p.text(), DEFAULT_MAIL_HOST),
        port=s.get("port", p.integer(1, 65535), smtp_settings.DEFAULT_PORTS[security]),
        security=security,
        username=username,
        password=password,
        password_env=password_env,
        rate_per_minute=s.get("rate_per_minute", p.optional(p.integer(1, 10_000)),
                              d.rate_per_minute),
        max_per_day=s.get("max_per_day", p.optional(p.integer(1, 1_000_000)), d.max_per_day),
        environ=environ,
        ca_file=_read_ca_file(s, base),
        auth=auth,
        token_command=token_command,
    )
    if real and not s.has("host"):
        s.fail("host", MISSING, "the SMTP server's host name", reason=_REQUIRED_FOR_IMAP)
    s.finish()
    return SmtpSettings(**values) if len(s.problems) == before else d


def _read_auth(s: Section, default: str) -> tuple[str, TokenCommand | None]:
    """``auth`` and ``token_command`` of an imap/smtp section: the command
    exactly when ``auth`` is ``oauth2``."""
    auth = s.get("auth", _AUTH, default)
    command = s.get("token_command", p.optional(p.command_line), None)
    if auth == "oauth2" and command is None and s.raw("token_command") in (MISSING, None):
        s.fail("token_command", MISSING, "a command that prints the OAuth2 access token",
               reason="needed when auth is 'oauth2'")
    if auth == "password" and command is not None:
        s.fail("token_command", command, "no token command when auth is 'password'",
               reason="set auth: oauth2 to log in with the token it prints")
        command = None
    return auth, TokenCommand(command) if command is not None else None


def _read_password(
    s: Section, environ: Mapping[str, str] | None, *, check: bool, required: bool,
    oauth2: bool = False,
) -> tuple[str | None, str | None]:
    """``(password, password_env)`` of an imap/smtp section: ``password`` or
    ``password_env``, not both, and neither with ``oauth2``. With ``check``
    the variable must be set now (an error names it); its value is read
    only when a connection logs in."""
    direct = s.get("password", p.optional(p.secret), None)
    env_name = s.get("password_env", p.optional(p.env_name), None)
    if oauth2:
        if direct is not None or env_name is not None:
            s.fail("password_env" if env_name else "password", env_name or HIDDEN,
                   "no password when auth is 'oauth2'",
                   reason="the token command gives the login")
        return None, None
    if direct is not None and env_name is not None:
        s.fail("password_env", env_name, "either password or password_env, not both")
        return direct, None
    if direct is not None or env_name is None:
        if direct is None and required:
            s.fail("password_env", MISSING,
                   "the name of an environment variable holding the password (or password)",
                   reason=f"{s.prefix} needs a password when mail.transport is 'imap'")
        return direct, None
    if check:
        value = (os.environ if environ is None else environ).get(env_name)
        if not value:
            state = "is not set" if value is None else "is empty"
            s.fail("password_env", env_name,
                   "the name of an environment variable that holds the password",
                   reason=f"environment variable {env_name!r} {state}")
    return None, env_name
