"""Which configuration file a command reads.

``turnited --config PATH`` names the file; without it the command reads
``config.yaml`` in the working directory if there is one. A file that was
named must exist: a mistyped path is reported as such (``ConfigFileMissing``),
not later as a missing league database in the default state directory. Only
this module and ``bot.config.errors`` are loaded to find out (not YAML and the
layers' settings types).
"""

from __future__ import annotations

from pathlib import Path

from bot.config.errors import ConfigFileMissing

#: The default name of the configuration file (``turnited --config``).
DEFAULT_CONFIG_NAME = "config.yaml"


def config_file(named: str | Path | None) -> Path | None:
    """The configuration file to read: ``named`` (the ``--config`` value),
    which must exist, else ``ConfigFileMissing`` naming it; without a name
    ``config.yaml`` in the working directory, or None when there is none (a
    command that can do without a configuration then uses its defaults)."""
    if named is None:
        default = Path(DEFAULT_CONFIG_NAME)
        return default if default.is_file() else None
    path = Path(named)
    if not path.exists():
        raise ConfigFileMissing(path)
    return path


def named_or_default(named: str | Path | None) -> Path:
    """The file ``named``, else ``config.yaml`` (for a command that needs one,
    or writes one: ``turnited init``)."""
    return Path(named) if named is not None else Path(DEFAULT_CONFIG_NAME)
