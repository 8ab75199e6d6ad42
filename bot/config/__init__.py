"""The game master's YAML configuration, validated into typed, frozen settings.

``load_config(path)`` reads a YAML file; ``Config.from_mapping(data,
base_dir)`` validates an already-parsed mapping. Validation is strict: an
unknown key, a wrong type or a value out of range is a ``ConfigError``
naming the dotted key, the value (secrets redacted) and what is allowed;
all problems of a file are reported together. Secrets are given by
reference (``password_env``), checked at load and read only when a mail
connection logs in; they never appear in ``repr``, ``str`` or errors.

The sections are the other layers' own settings types where a layer owns
one: ``mail.imap`` is an ``ImapSettings``, ``mail.smtp`` an
``SmtpSettings``, ``schedule`` a ``bot.schedule.ScheduleSettings``.

Modules: ``errors`` (ConfigError, redaction), ``yaml_loader`` (the strict
YAML reader), ``parsers`` (value parsers), ``sections`` (the walk over one
mapping), ``settings`` (the configuration's own sections), ``read`` (one
reader per section), ``load`` (``Config``, ``load_config``).
"""

from bot.config.errors import HIDDEN, MISSING, REDACTED, ConfigError, is_secret_key
from bot.config.load import DEFAULT_CONFIG_NAME, Config, example_config_text, load_config
from bot.config.settings import (
    AnalysisSettings,
    ArchiveSettings,
    AuthSettings,
    GameSettings,
    GmSettings,
    MaildirSettings,
    MailLimits,
    MailSettings,
    NewsletterSettings,
    PszSettings,
    RemindersSettings,
    TrustSettings,
)

__all__ = [
    "DEFAULT_CONFIG_NAME",
    "HIDDEN",
    "MISSING",
    "REDACTED",
    "AnalysisSettings",
    "ArchiveSettings",
    "AuthSettings",
    "Config",
    "ConfigError",
    "GameSettings",
    "GmSettings",
    "MailLimits",
    "MailSettings",
    "MaildirSettings",
    "NewsletterSettings",
    "PszSettings",
    "RemindersSettings",
    "TrustSettings",
    "example_config_text",
    "is_secret_key",
    "load_config",
]
