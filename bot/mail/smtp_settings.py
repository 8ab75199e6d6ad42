"""The settings of the SMTP server the bot sends through: where it is, how
to secure the connection, how to log in (a password or an OAuth2 token
command) and how fast to send (per minute, per day). Checked when made;
the password is never shown.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from bot.mail.oauth import TokenCommand, check_auth
from bot.mail.secret import login_password, redacted_repr
from bot.mail.transport import TransportConfigError

SECURITY_MODES = ("ssl", "starttls", "none")
#: The usual port of each security mode (the configuration's default).
DEFAULT_PORTS = {"ssl": 465, "starttls": 587, "none": 25}


@dataclass(frozen=True, repr=False)
class SmtpSettings:
    """Where and how to send mail. The password is never shown.

    ``auth`` is ``password`` or ``oauth2``. The password is ``password`` or
    the environment variable named by ``password_env``, read (from
    ``environ``, default ``os.environ``) only when a connection logs in: see
    ``login_password()``. With ``oauth2`` the ``token_command`` is run at
    each login and prints the access token (``bot.mail.oauth``).
    ``rate_per_minute`` is how many messages a drain of the outbox hands to
    this server per minute, ``max_per_day`` how many in any 24 hours (None:
    no limit; see ``bot.service.drain``).
    """

    host: str
    port: int
    security: str
    username: str | None = None
    password: str | None = None
    password_env: str | None = None
    rate_per_minute: int | None = 30
    timeout: float = 30
    helo: str | None = None
    environ: Mapping[str, str] | None = field(default=None, compare=False)
    #: PEM file of the CA(s) to trust instead of the system's; None: the system's.
    ca_file: Path | None = None
    #: How to log in: 'password' or 'oauth2' (SASL XOAUTH2 / OAUTHBEARER).
    auth: str = "password"
    #: With ``auth: oauth2``: the command printing the access token.
    token_command: TokenCommand | None = None
    #: At most this many messages in any 24 hours (the provider's daily cap).
    max_per_day: int | None = None

    def __repr__(self) -> str:
        return redacted_repr(self)

    def login_password(self) -> str | None:
        """The password to log in with, read now (``TransportConfigError``
        names an unset ``password_env`` variable)."""
        return login_password("smtp.password_env", self.password, self.password_env,
                              self.environ)

    def __post_init__(self) -> None:
        if self.security not in SECURITY_MODES:
            raise TransportConfigError(
                "smtp.security",
                self.security,
                "'ssl' (port 465), 'starttls' (port 587) or 'none'",
            )
        if not self.host:
            raise TransportConfigError("smtp.host", self.host, "a host name")
        if not 0 < self.port < 65536:
            raise TransportConfigError("smtp.port", self.port, "a TCP port 1..65535")
        check_auth("smtp", self.auth, self.token_command, self.password, self.password_env)
        if self.auth == "oauth2" and not self.username:
            raise TransportConfigError(
                "smtp.username", self.username, "the mailbox login, needed when auth is 'oauth2'"
            )
        if (self.auth == "password" and self.username and self.password is None
                and self.password_env is None):
            raise TransportConfigError(
                "smtp.password", None, f"a password for smtp.username {self.username!r}"
            )
        if not self.timeout > 0:
            raise TransportConfigError("smtp.timeout", self.timeout, "seconds > 0")
        if self.max_per_day is not None and self.max_per_day < 1:
            raise TransportConfigError("smtp.max_per_day", self.max_per_day,
                                       "a whole number >= 1, or none for no daily limit")

    @property
    def endpoint(self) -> str:
        return f"{self.host}:{self.port}"
