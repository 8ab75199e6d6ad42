"""The configuration's own sections (what no lower layer owns).

The mail servers' settings are the transports' own types
(``ImapSettings``, ``SmtpSettings``), the schedule's is
``bot.schedule.ScheduleSettings``, and the league's rules values take their
defaults from ``LeagueSettings``: a default of a layer below the
configuration is written once, in that layer's type. A default of a value
the layers above read (the use cases' ``bot.service.settings``, filled by
``bot.wiring``) is written once, here: those types have none.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from email.utils import formataddr

from bot.league.settings import LeagueSettings
from bot.mail import imap_settings, smtp_settings
from bot.mail.imap_settings import ImapSettings
from bot.mail.smtp_settings import SmtpSettings
from bot.rules.tournament import Points

#: The league's defaults, the one place the rules values are written.
LEAGUE_DEFAULTS = LeagueSettings()

#: The bot's address when the configuration gives none.
DEFAULT_BOT_ADDRESS = "bot@turnited.invalid"
#: Host of both mail servers when the configuration gives none.
DEFAULT_MAIL_HOST = "localhost"
#: Security of the mail servers when the configuration gives none (the port
#: then is the transport's usual one for it).
DEFAULT_IMAP_SECURITY = "ssl"
DEFAULT_SMTP_SECURITY = "starttls"


@dataclass(frozen=True)
class GameSection:
    """The ``game`` section. (What the use cases read about the game is the
    service layer's ``GameSettings``, mapped from the whole configuration by
    ``bot.wiring``.)"""

    name: str = "Turnited"
    language: str = "de"
    points: Points = field(default_factory=lambda: Points(*LEAGUE_DEFAULTS.points))
    season_rounds: int = LEAGUE_DEFAULTS.season_rounds
    initial_wp: Decimal = LEAGUE_DEFAULTS.initial_wp


@dataclass(frozen=True)
class PszSettings:
    initial: Decimal = LEAGUE_DEFAULTS.initial_psz
    bound: bool = LEAGUE_DEFAULTS.psz_bound


@dataclass(frozen=True)
class AnalysisSettings:
    simulations: int = LEAGUE_DEFAULTS.simulations


@dataclass(frozen=True)
class RemindersSettings:
    """Hours before a deadline at which managers without a lineup are reminded
    (descending; empty: no reminders)."""

    hours_before: tuple[int, ...] = (48, 6)


#: The shortest GM password used (RULES.md §13): a game master's mail can
#: change everything, and mail can be sent by anyone as often as he likes.
GM_PASSWORD_MIN = 12


@dataclass(frozen=True)
class GmSettings:
    """The ``gm`` section: the game master's address and name, and
    ``password_env``, the environment variable that holds his GM password
    (RULES.md §13: never the password in the YAML; None: no game master by
    mail). The variable is looked up in ``environ`` (default ``os.environ``)."""

    address: str = "gm@turnited.invalid"
    name: str = "Spielleitung"
    password_env: str | None = None
    environ: Mapping[str, str] | None = field(default=None, repr=False, compare=False)

    def password(self) -> str | None:
        """The GM password, read now; None when none is configured, the
        variable is unset, or its value is shorter than ``GM_PASSWORD_MIN``
        (the configuration check refuses that where the bot reads mail)."""
        if self.password_env is None:
            return None
        value = (os.environ if self.environ is None else self.environ).get(self.password_env)
        return value if value and len(value) >= GM_PASSWORD_MIN else None


@dataclass(frozen=True)
class AuthSettings:
    passwords: bool = LEAGUE_DEFAULTS.passwords


@dataclass(frozen=True)
class NewsletterSettings:
    extra_recipients: tuple[str, ...] = ()
    #: Read from the YAML with the game's language as default.
    language: str = "de"


@dataclass(frozen=True)
class ArchiveSettings:
    """The newsletter archive on the web: ``url`` is where ``turnited publish
    DIR`` copies ``STATE/archive`` to (each newsletter links its page there);
    None: the archive is not on the web and newsletters carry no link."""

    url: str | None = None


@dataclass(frozen=True)
class RetentionSettings:
    """How many days the state keeps what it needs only for a while
    (docs/operations.md, "What the state keeps"): the spool files of incoming
    mail and the outbox rows of delivered mail; None: for ever."""

    spool_days: int | None = 365
    outbox_days: int | None = 90


@dataclass(frozen=True)
class MaildirSettings:
    """The embedded transport: ``STATE/maildir`` is polled this often."""

    poll_seconds: float = 2.0


@dataclass(frozen=True)
class MailLimits:
    """``max_mails_per_hour`` counts only mails without a valid password
    (RULES.md §9); a mail larger than ``max_mail_bytes`` is read header only
    and answered "too large"; a mail whose handling fails or runs longer than
    ``handling_seconds`` is tried ``max_attempts`` times, then quarantined."""

    max_text_bytes: int = 512 * 1024
    max_command_lines: int = 60
    max_mails_per_hour: int = 20
    max_mail_bytes: int = 5 * 1024 * 1024
    handling_seconds: float = 20.0
    max_attempts: int = 3


@dataclass(frozen=True)
class TrustSettings:
    """``authserv_id``: the receiving server's id in ``Authentication-Results``;
    when set, a mail whose DMARC (or SPF and DKIM) verdict fails is forged."""

    authserv_id: str | None = None


def default_imap() -> ImapSettings:
    return ImapSettings(
        host=DEFAULT_MAIL_HOST, port=imap_settings.DEFAULT_PORTS[DEFAULT_IMAP_SECURITY],
        security=DEFAULT_IMAP_SECURITY, username=DEFAULT_BOT_ADDRESS,
    )


def default_smtp() -> SmtpSettings:
    return SmtpSettings(
        host=DEFAULT_MAIL_HOST, port=smtp_settings.DEFAULT_PORTS[DEFAULT_SMTP_SECURITY],
        security=DEFAULT_SMTP_SECURITY,
    )


@dataclass(frozen=True)
class MailSettings:
    """``imap`` and ``smtp`` are the transports' own settings; the IMAP
    login defaults to ``address``."""

    transport: str = "maildir"
    address: str = DEFAULT_BOT_ADDRESS
    from_header: str = formataddr((GameSection.name, DEFAULT_BOT_ADDRESS))
    imap: ImapSettings = field(default_factory=default_imap)
    smtp: SmtpSettings = field(default_factory=default_smtp)
    maildir: MaildirSettings = field(default_factory=MaildirSettings)
    limits: MailLimits = field(default_factory=MailLimits)
    trust: TrustSettings = field(default_factory=TrustSettings)
