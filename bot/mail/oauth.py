"""OAuth2 logins for IMAP and SMTP: the access token from a command, and the
SASL ``XOAUTH2`` / ``OAUTHBEARER`` exchange.

The bot is no OAuth client. Like isync's ``PassCmd``, msmtp's
``passwordeval`` and mutt's ``oauthbearer_refresh_command``, it runs the
game master's ``token_command`` at each login; whatever that prints on
standard output is the access token (the command refreshes it with its own
refresh token, e.g. a short ``msal`` script or ``oama``). A command that
cannot be run, fails, takes too long or prints no token is a
``TokenCommandError``: one line naming the setting and the command, never
the token. The token itself is used for one login and kept nowhere.

``SaslResponder`` answers the server's challenges: the initial response
first, then an empty line to an error challenge (a server that refuses a
token sends a base64 JSON error as a challenge and waits for the empty
line before its final ``NO`` / ``535``); the error is kept for the message.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import signal
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass

from bot.mail.transport import TransportConfigError, TransportError

#: The SASL mechanisms of an OAuth2 login, the standard one (RFC 7628) first.
MECHANISMS = ("OAUTHBEARER", "XOAUTH2")
#: Seconds a token command may take by default.
TOKEN_TIMEOUT = 30.0
#: At most this many characters of a failing command's error output are shown.
STDERR_SHOWN = 200
#: The ``auth`` settings: a password, or an OAuth2 access token.
AUTH_MODES = ("password", "oauth2")


class TokenCommandError(TransportError):
    """The token command gave no usable access token (the message names the
    setting and the command; it never holds a token). Not retryable: the
    connection is not tried again at once (running a failing command again
    and again), the caller's loop tries again later."""

    def __init__(self, message: str, *, kind: str, command: str, detail: str = "") -> None:
        super().__init__(message, retryable=False)
        #: What went wrong: not_run, failed, timeout, empty or malformed.
        self.kind = kind
        self.command = command
        #: The command's own words (its last line on standard error, the
        #: operating system's reason), never its standard output.
        self.detail = detail


@dataclass(frozen=True)
class TokenCommand:
    """A command that prints a fresh OAuth2 access token on standard output.

    ``command`` is a shell command line (run by ``/bin/sh -c``, so pipes and
    ``~`` work) or a list of arguments (run as it is, no shell)."""

    command: str | tuple[str, ...]
    timeout: float = TOKEN_TIMEOUT

    def __post_init__(self) -> None:
        if isinstance(self.command, str):
            if not self.command.strip():
                raise TransportConfigError("token_command", self.command, "a command line")
        elif not self.command or not all(isinstance(a, str) and a for a in self.command):
            raise TransportConfigError("token_command", self.command,
                                       "a command line or a non-empty list of arguments")
        if not self.timeout > 0:
            raise TransportConfigError("token_command timeout", self.timeout, "seconds > 0")

    @property
    def shown(self) -> str:
        """The command as the game master wrote it."""
        return self.command if isinstance(self.command, str) else shlex.join(self.command)

    def __repr__(self) -> str:
        return f"TokenCommand({self.shown!r}, timeout={self.timeout:g})"

    def fetch(self, setting: str) -> str:
        """Run the command now and return the access token it printed.

        ``setting`` names the configuration key in the error
        (``mail.imap.token_command``). Raises ``TokenCommandError``.
        """
        argv = ["/bin/sh", "-c", self.command] if isinstance(self.command, str) else [
            os.path.expanduser(self.command[0]), *self.command[1:]]
        where = f"{setting} {self.shown!r}"
        try:
            process = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                start_new_session=True,  # a time-out kills the whole group, pipes and all
            )
        except OSError as exc:
            reason = exc.strerror or str(exc)
            raise TokenCommandError(
                f"{where} cannot be run ({reason}); give the full path of an installed program",
                kind="not_run", command=self.shown, detail=reason) from None
        try:
            out, err = process.communicate(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            raise TokenCommandError(
                f"{where} printed no token within {self.timeout:g} s; run it by hand: "
                "does it wait for input (a first login must be done by hand once)?",
                kind="timeout", command=self.shown, detail=f"{self.timeout:g}") from None
        if process.returncode != 0:
            said = _last_line(err)
            status = (f"killed by signal {-process.returncode}" if process.returncode < 0
                      else f"exit status {process.returncode}")
            detail = status + (f": {said}" if said else "")
            raise TokenCommandError(
                f"{where} failed ({detail}); run it by hand to see why (an expired or "
                "revoked login: log in again with the tool)",
                kind="failed", command=self.shown, detail=detail)
        return _token(out, where, self.shown)


def _token(out: bytes, where: str, shown: str) -> str:
    """The one line of ``out``; the bytes are never shown (they may be a secret)."""
    try:
        text = out.decode("ascii").strip()
    except UnicodeDecodeError:
        raise TokenCommandError(
            f"{where} printed something that is not an access token (not ASCII text); it "
            "must print only the token", kind="malformed", command=shown) from None
    if not text:
        raise TokenCommandError(
            f"{where} printed no token (its output was empty); it must print the access "
            "token on standard output", kind="empty", command=shown)
    lines = text.splitlines()
    if len(lines) > 1 or any(ch.isspace() or not ch.isprintable() for ch in text):
        raise TokenCommandError(
            f"{where} printed {len(lines)} line(s) with spaces or control characters; it "
            "must print only the access token, on one line", kind="malformed", command=shown)
    return text


def _last_line(err: bytes) -> str:
    lines = [line.strip() for line in err.decode("utf-8", "replace").splitlines()]
    lines = [line for line in lines if line]
    if not lines:
        return ""
    last = lines[-1]
    return last if len(last) <= STDERR_SHOWN else last[: STDERR_SHOWN - 1] + "…"


def choose_mechanism(offered: Iterable[str]) -> str | None:
    """The OAuth2 mechanism to use of those the server offers (OAUTHBEARER
    before XOAUTH2), None if it offers neither."""
    names = {name.upper() for name in offered}
    return next((m for m in MECHANISMS if m in names), None)


def initial_response(mechanism: str, user: str, token: str) -> str:
    """The client's first message of ``mechanism`` (before base64)."""
    if mechanism == "XOAUTH2":
        return f"user={user}\x01auth=Bearer {token}\x01\x01"
    if mechanism == "OAUTHBEARER":  # RFC 7628 3.1, with the GS2 header of RFC 5801
        name = user.replace("=", "=3D").replace(",", "=2C")
        return f"n,a={name},\x01auth=Bearer {token}\x01\x01"
    raise ValueError(f"SASL mechanism {mechanism!r} is not an OAuth2 mechanism {MECHANISMS}")


class SaslResponder:
    """The client side of one OAuth2 SASL exchange, for ``smtplib.SMTP.auth``
    (called with no challenge first) and imapclient's ``sasl_login`` (called
    with the server's first, empty challenge). After the initial response
    every further challenge is an error report: it is kept in ``error`` and
    answered with an empty line, as RFC 7628 asks."""

    def __init__(self, mechanism: str, user: str, token: str) -> None:
        self.mechanism = mechanism
        self._first: str | None = initial_response(mechanism, user, token)
        self.error: str | None = None

    def __call__(self, challenge: bytes | None = None) -> str:
        if self._first is not None:
            first, self._first = self._first, None
            return first
        self.error = describe_error_challenge(challenge or b"")
        return ""


def describe_error_challenge(challenge: bytes) -> str:
    """The server's error challenge (already base64-decoded by imaplib and
    smtplib) in a few words: the JSON's ``status`` (and ``scope``) when it
    is one, else the text itself."""
    text = challenge.decode("utf-8", "replace").strip()
    try:
        report = json.loads(text)
    except ValueError:
        return text[:STDERR_SHOWN]
    if not isinstance(report, dict):
        return text[:STDERR_SHOWN]
    parts = [f"{key} {report[key]}" for key in ("status", "scope") if report.get(key)]
    return ", ".join(parts) or text[:STDERR_SHOWN]


def check_auth(prefix: str, auth: str, token_command: TokenCommand | None,
               password: str | None, password_env: str | None) -> None:
    """The ``auth`` setting against the others (``TransportConfigError``)."""
    if auth not in AUTH_MODES:
        raise TransportConfigError(f"{prefix}.auth", auth, "'password' or 'oauth2'")
    if auth == "oauth2" and token_command is None:
        raise TransportConfigError(
            f"{prefix}.token_command", None,
            "a command that prints the access token, needed when auth is 'oauth2'")
    if auth == "password" and token_command is not None:
        raise TransportConfigError(
            f"{prefix}.token_command", token_command.shown,
            "no token command when auth is 'password' (set auth: oauth2 to use it)")
    if auth == "oauth2" and (password is not None or password_env is not None):
        raise TransportConfigError(
            f"{prefix}.password_env", password_env or "***",
            "no password when auth is 'oauth2' (the token command gives the login)")
