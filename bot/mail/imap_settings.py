"""The settings of the IMAP mailbox: where it is, how to secure the
connection, how to log in (a password or an OAuth2 token command) and which
folders the bot uses. Checked when made; the password is never shown.
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
DEFAULT_PORTS = {"ssl": 993, "starttls": 143, "none": 143}


@dataclass(frozen=True, repr=False)
class ImapSettings:
    """Where and how to read the bot's mailbox. The password is never shown.

    ``auth`` is ``password`` or ``oauth2``. The password is ``password`` or
    the environment variable named by ``password_env``, read (from
    ``environ``, default ``os.environ``) only when a connection logs in: see
    ``login_password()``. With ``oauth2`` the ``token_command`` is run at
    each login and prints the access token (``bot.mail.oauth``).
    """

    host: str
    port: int
    security: str
    username: str
    password: str | None = None
    password_env: str | None = None
    folder: str = "INBOX"
    processed_folder: str | None = "Processed"
    #: Where a mail goes whose handling failed too often (created if missing).
    quarantine_folder: str = "Quarantine"
    idle: bool = True
    poll_seconds: float = 60
    timeout: float = 30
    environ: Mapping[str, str] | None = field(default=None, compare=False)
    #: PEM file of the CA(s) to trust instead of the system's (a private CA
    #: or a self-signed certificate); None: the system's CAs.
    ca_file: Path | None = None
    #: How to log in: 'password' or 'oauth2' (SASL XOAUTH2 / OAUTHBEARER).
    auth: str = "password"
    #: With ``auth: oauth2``: the command printing the access token.
    token_command: TokenCommand | None = None

    def __repr__(self) -> str:
        return redacted_repr(self)

    def login_password(self) -> str:
        """The password to log in with, read now (``TransportConfigError``
        names an unset ``password_env`` variable)."""
        return login_password("imap.password_env", self.password, self.password_env,
                              self.environ) or ""

    def __post_init__(self) -> None:
        if self.security not in SECURITY_MODES:
            raise TransportConfigError(
                "imap.security", self.security, "'ssl' (port 993), 'starttls' (port 143) or 'none'"
            )
        if not self.host:
            raise TransportConfigError("imap.host", self.host, "a host name")
        if not 0 < self.port < 65536:
            raise TransportConfigError("imap.port", self.port, "a TCP port 1..65535")
        if not self.username:
            raise TransportConfigError("imap.username", self.username, "the mailbox login")
        if not self.folder:
            raise TransportConfigError("imap.folder", self.folder, "a folder name such as 'INBOX'")
        if self.processed_folder is not None and self.processed_folder in ("", self.folder):
            raise TransportConfigError(
                "imap.processed_folder",
                self.processed_folder,
                f"a folder other than {self.folder!r} (or none to flag mails \\Seen instead)",
            )
        if self.quarantine_folder in ("", self.folder, self.processed_folder):
            raise TransportConfigError(
                "imap.quarantine_folder",
                self.quarantine_folder,
                f"a folder other than {self.folder!r} and the processed folder",
            )
        if not self.poll_seconds > 0:
            raise TransportConfigError("imap.poll_seconds", self.poll_seconds, "seconds > 0")
        if not self.timeout > 0:
            raise TransportConfigError("imap.timeout", self.timeout, "seconds > 0")
        check_auth("imap", self.auth, self.token_command, self.password, self.password_env)

    @property
    def endpoint(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def folders(self) -> tuple[str, ...]:
        """The folders the bot uses: the one it reads first, then the
        processed folder (if any) and the quarantine folder."""
        return tuple(f for f in (self.folder, self.processed_folder, self.quarantine_folder)
                     if f is not None)
