"""The game master's YAML configuration, validated into typed, frozen settings.

``load_config(path)`` reads a YAML file; ``Config.from_mapping(data,
base_dir)`` validates an already-parsed mapping. Validation is strict: an
unknown key, a wrong type or a value out of range is a ``ConfigError``
naming the dotted key, the value (secrets redacted) and what is allowed;
all problems of a file are reported together. Secrets are given by
reference (``password_env``), checked at load and read only when a mail
connection logs in; they never appear in ``repr``, ``str`` or errors.

The sections are the lower layers' own settings types where a layer owns
one: ``mail.imap`` is an ``ImapSettings``, ``mail.smtp`` an
``SmtpSettings``, ``schedule`` a ``bot.schedule.ScheduleSettings``. The
configuration knows nothing of the use cases: the composition root
(``bot.wiring``) maps it onto their settings types.

Modules: ``errors`` (ConfigError, redaction), ``files`` (which file a
command reads), ``yaml_loader`` (the strict YAML reader), ``parsers``
(value parsers), ``sections`` (the walk over one mapping), ``settings`` (the
configuration's own sections), ``read`` (one reader per section), ``load``
(``Config``, ``load_config``).

The names below are loaded from their modules when first used, so asking
whether a configuration file exists (``config_file``) or naming an error
type does not load YAML and the layers' settings types.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.config.errors import (
        HIDDEN,
        MISSING,
        REDACTED,
        ConfigError,
        ConfigFileMissing,
        is_secret_key,
    )
    from bot.config.files import DEFAULT_CONFIG_NAME, config_file, named_or_default
    from bot.config.load import Config, example_config_text, load_config
    from bot.config.settings import (
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
        TrustSettings,
    )

#: Each public name and the module (under ``bot.config``) that defines it.
_HOME: dict[str, str] = {
    **dict.fromkeys(("HIDDEN", "MISSING", "REDACTED", "ConfigError", "ConfigFileMissing",
                     "is_secret_key"), "errors"),
    **dict.fromkeys(("DEFAULT_CONFIG_NAME", "config_file", "named_or_default"), "files"),
    **dict.fromkeys(("Config", "example_config_text", "load_config"), "load"),
    **dict.fromkeys(("AnalysisSettings", "ArchiveSettings", "AuthSettings", "GameSection",
                     "GmSettings", "MaildirSettings", "MailLimits", "MailSettings",
                     "NewsletterSettings", "PszSettings", "RemindersSettings",
                     "TrustSettings"), "settings"),
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'bot.config' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"bot.config.{home}"), name)
    globals()[name] = value
    return value


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
    "ConfigFileMissing",
    "GameSection",
    "GmSettings",
    "MailLimits",
    "MailSettings",
    "MaildirSettings",
    "NewsletterSettings",
    "PszSettings",
    "RemindersSettings",
    "TrustSettings",
    "config_file",
    "example_config_text",
    "is_secret_key",
    "load_config",
    "named_or_default",
]
