"""The configuration keys of a provider's mailbox: ``mail.imap.auth`` /
``mail.smtp.auth`` with ``token_command``, and ``mail.smtp.max_per_day``,
read from the YAML with every mistake named by its key."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.config import Config, ConfigError
from bot.mail.oauth import TokenCommand

BASE = {
    "gm": {"address": "gm@example.org"},
    "mail": {
        "transport": "imap",
        "address": "turnited@outlook.example",
        "imap": {"host": "outlook.office365.com", "auth": "oauth2",
                 "token_command": "oama access turnited@outlook.example"},
        "smtp": {"host": "smtp.office365.com", "username": "turnited@outlook.example",
                 "auth": "oauth2",
                 "token_command": ["/usr/local/bin/ms-token", "--account", "turnited"],
                 "max_per_day": 300},
    },
}


def with_mail(**sections: dict) -> dict:
    mail = {key: dict(value) if isinstance(value, dict) else value
            for key, value in BASE["mail"].items()}
    for name, changes in sections.items():
        mail[name] = {k: v for k, v in {**mail[name], **changes}.items() if v is not ...}
    return {**BASE, "mail": mail}


def problems(data: dict) -> dict[str, str]:
    with pytest.raises(ConfigError) as info:
        Config.from_mapping(data, Path("/srv/game"), environ={})
    return {e.key: str(e) for e in (info.value, *info.value.others)}


def test_oauth2_needs_no_password_variable():
    config = Config.from_mapping(BASE, Path("/srv/game"), environ={})
    imap, smtp = config.imap_settings(), config.smtp_settings()
    assert (imap.auth, imap.token_command) == (
        "oauth2", TokenCommand("oama access turnited@outlook.example"))
    assert smtp.token_command == TokenCommand(
        ("/usr/local/bin/ms-token", "--account", "turnited"))
    assert imap.username == "turnited@outlook.example"  # defaults to mail.address
    assert imap.password is None and imap.password_env is None
    assert smtp.max_per_day == 300 and smtp.rate_per_minute == 30
    assert config.secrets() == ()


def test_the_defaults_are_a_password_and_no_daily_limit():
    config = Config.from_mapping({}, Path("/srv/game"), environ={})
    assert config.mail.imap.auth == config.mail.smtp.auth == "password"
    assert config.mail.imap.token_command is None and config.mail.smtp.max_per_day is None


def test_each_mistake_is_named_by_its_key():
    found = problems(with_mail(imap={"token_command": ...},
                               smtp={"auth": "password", "password_env": "T_SMTP"}))
    assert "needed when auth is 'oauth2'" in found["mail.imap.token_command"]
    assert "no token command when auth is 'password'" in found["mail.smtp.token_command"]
    found = problems(with_mail(imap={"password_env": "T_IMAP"},
                               smtp={"username": ..., "max_per_day": 0}))
    assert "no password when auth is 'oauth2'" in found["mail.imap.password_env"]
    assert "needed when auth is 'oauth2'" in found["mail.smtp.username"]
    assert "out of range" in found["mail.smtp.max_per_day"]
    found = problems(with_mail(imap={"auth": "xoauth2", "token_command": ""},
                               smtp={"token_command": []}))
    assert "one of 'password', 'oauth2'" in found["mail.imap.auth"]
    assert "a command line such as" in found["mail.smtp.token_command"]
    found = problems(with_mail(imap={"tokencommand": "x"}))
    assert "did you mean 'mail.imap.token_command'" in found["mail.imap.tokencommand"]
