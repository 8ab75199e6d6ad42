"""``Config``, the whole configuration, and ``load_config``.

``load_config(path)`` reads a YAML file; ``Config.from_mapping(data,
base_dir)`` validates an already-parsed mapping. Every key has a default, so
an empty file gives a working bot on the embedded Maildir transport.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import bot.config.parsers as p
from bot.config.errors import ConfigError
from bot.config.read import (
    read_analysis,
    read_archive,
    read_auth,
    read_game,
    read_gm,
    read_mail,
    read_newsletter,
    read_psz,
    read_reminders,
    read_retention,
    read_schedule,
    require_gm_address,
)
from bot.config.sections import Section
from bot.config.settings import (
    AnalysisSettings,
    ArchiveSettings,
    AuthSettings,
    GameSection,
    GmSettings,
    MailSettings,
    NewsletterSettings,
    PszSettings,
    RemindersSettings,
    RetentionSettings,
)
from bot.config.yaml_loader import read_yaml
from bot.mail.imap_settings import ImapSettings
from bot.mail.smtp_settings import SmtpSettings
from bot.mail.transport import TransportConfigError
from bot.schedule import ScheduleSettings


@dataclass(frozen=True)
class Config:
    """The whole configuration. ``state_dir`` is absolute; ``source`` is the
    file it was read from (None when built from a mapping)."""

    game: GameSection = field(default_factory=GameSection)
    psz: PszSettings = field(default_factory=PszSettings)
    analysis: AnalysisSettings = field(default_factory=AnalysisSettings)
    schedule: ScheduleSettings = field(default_factory=ScheduleSettings)
    reminders: RemindersSettings = field(default_factory=RemindersSettings)
    gm: GmSettings = field(default_factory=GmSettings)
    mail: MailSettings = field(default_factory=MailSettings)
    auth: AuthSettings = field(default_factory=AuthSettings)
    newsletter: NewsletterSettings = field(default_factory=NewsletterSettings)
    archive: ArchiveSettings = field(default_factory=ArchiveSettings)
    retention: RetentionSettings = field(default_factory=RetentionSettings)
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
        check_secrets: bool = True,
    ) -> Config:
        """Validate a parsed YAML mapping. Relative paths are taken relative
        to ``base_dir``. ``*_env`` variables are looked up in ``environ``
        (default ``os.environ``): with ``check_secrets`` they must be set
        now (for the IMAP transport); their values are read only when a
        connection logs in. Raises ``ConfigError``."""
        return _build(data, Path(base_dir), environ, source, check_secrets=check_secrets)

    # -- derived values ----------------------------------------------------

    @property
    def maildir_root(self) -> Path:
        """Where the embedded Maildir transport keeps its folders."""
        return self.state_dir / "maildir"

    def secrets(self) -> tuple[str, ...]:
        """Every secret value that can be read now (for log redaction)."""
        found = []
        for server in (self.mail.imap, self.mail.smtp):
            try:
                found.append(server.login_password())
            except TransportConfigError:
                continue
        found.append(self.gm.password() or "")
        return tuple(s for s in found if s)

    # -- the settings of the other layers ----------------------------------

    def imap_settings(self) -> ImapSettings:
        """The IMAP mailbox's settings (``mail.imap``)."""
        return self.mail.imap

    def smtp_settings(self) -> SmtpSettings:
        """The SMTP sender's settings (``mail.smtp``)."""
        return self.mail.smtp


def load_config(
    path: Path | str,
    *,
    environ: Mapping[str, str] | None = None,
    check_secrets: bool = True,
) -> Config:
    """Read and validate the YAML configuration at ``path``.

    Raises ``ConfigError`` for a missing or unreadable file, YAML syntax
    errors and every invalid value. ``check_secrets=False`` suits commands
    that never connect to a mail server: unset password variables are fine.
    """
    path = Path(path)
    data = read_yaml(path)
    return Config.from_mapping(
        data, path.absolute().parent, environ=environ, source=path.absolute(),
        check_secrets=check_secrets,
    )


def _build(
    data: Mapping[str, Any] | None,
    base_dir: Path,
    environ: Mapping[str, str] | None,
    source: Path | None,
    *,
    check_secrets: bool,
) -> Config:
    problems: list[ConfigError] = []
    top = Section(data, "", problems)

    game = read_game(top.section("game"))
    psz = read_psz(top.section("psz"))
    analysis = read_analysis(top.section("analysis"))
    state_text = top.get("state_dir", p.text(1000), "state")
    state_dir = Path(os.path.abspath(base_dir / Path(state_text).expanduser()))
    schedule = read_schedule(top.section("schedule"))
    reminders = read_reminders(top.section("reminders"))
    gm_section = top.section("gm")
    gm = read_gm(gm_section, environ, check=check_secrets)
    mail = read_mail(top.section("mail"), game, environ, check_secrets=check_secrets,
                     base_dir=base_dir)
    require_gm_address(gm_section, mail.transport)
    auth = read_auth(top.section("auth"))
    newsletter = read_newsletter(top.section("newsletter"), game)
    archive = read_archive(top.section("archive"))
    retention = read_retention(top.section("retention"))
    top.finish()

    if problems:
        first = problems[0]
        for problem in problems:
            problem.source = source
        first.others = tuple(problems[1:])
        raise first
    return Config(
        game=game, psz=psz, analysis=analysis, schedule=schedule, reminders=reminders,
        gm=gm, mail=mail, auth=auth, newsletter=newsletter, archive=archive,
        retention=retention, state_dir=state_dir, source=source,
    )


def example_config_text() -> str:
    """The commented example configuration shipped with the package
    (``bot/data/config.example.yaml``; ``turnited init`` writes it)."""
    from importlib.resources import files

    return files("bot").joinpath("data", "config.example.yaml").read_text(encoding="utf-8")
