"""What the connection check (``turnited check --connect``) found, step by
step, as codes and values: the words (German or English, with the key of
``config.yaml`` to change) are ``bot.render.connection_words``.

``Recorder`` collects the steps of one server; ``connect_problem`` names
what went wrong while connecting and securing a connection (the same for
IMAP and SMTP); ``login_problem`` what went wrong while logging in.
Nothing here holds a password or a token: values are host names, folder
names, the server's replies and the command line of a token command.
"""

from __future__ import annotations

import socket
import ssl
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from bot.mail.oauth import TokenCommandError
from bot.mail.tls import verify_problem
from bot.mail.transport import (
    LoginRefusedError,
    NoLoginMechanismError,
    TransportConfigError,
    TransportError,
)

Values = dict[str, object]


class Status(StrEnum):
    OK = "ok"
    #: Works, but the game master should know (no TLS, no IDLE).
    NOTE = "note"
    PROBLEM = "problem"


@dataclass(frozen=True, slots=True)
class Step:
    """One line of the check: ``server`` is ``imap`` or ``smtp``, ``step``
    what was tried (connect, tls, login, folder, idle, sender), ``code``
    names the outcome and ``values`` fill in its words."""

    server: str
    step: str
    status: Status
    code: str
    values: Values = field(default_factory=dict)

    def as_json(self) -> dict[str, object]:
        return {"server": self.server, "step": self.step, "status": str(self.status),
                "code": self.code, "values": {k: _plain(v) for k, v in self.values.items()}}


def _plain(value: object) -> object:
    return value if isinstance(value, (str, int, float, bool, type(None))) else str(value)


class Recorder:
    """The steps of one server; every step gets the values naming the
    server (``key`` such as ``mail.imap``, ``endpoint``, ``host``, ``port``)."""

    def __init__(self, server: str, *, host: str, port: int, security: str) -> None:
        self.server = server
        self.steps: list[Step] = []
        self.base: Values = {"key": f"mail.{server}", "endpoint": f"{host}:{port}",
                             "host": host, "port": port, "security": security}

    def add(self, step: str, status: Status, code: str, **values: object) -> None:
        self.steps.append(Step(self.server, step, status, code, {**self.base, **values}))

    def ok(self, step: str, code: str, **values: object) -> None:
        self.add(step, Status.OK, code, **values)

    def note(self, step: str, code: str, **values: object) -> None:
        self.add(step, Status.NOTE, code, **values)

    def problem(self, step: str, problem: tuple[str, Values]) -> None:
        code, values = problem
        self.add(step, Status.PROBLEM, code, **values)

    @property
    def failed(self) -> bool:
        return any(s.status is Status.PROBLEM for s in self.steps)


def tls_version(sock: object) -> str:
    """The TLS version of a connection's socket (``TLSv1.3``), or ``TLS``."""
    version = getattr(sock, "version", None)
    value = version() if callable(version) else None
    return str(value) if value else "TLS"


def connect_problem(exc: BaseException, *, security: str, timeout: float,
                    ca_file: Path | None) -> tuple[str, Values]:
    """What an exception of connecting or securing a connection means."""
    if isinstance(exc, ssl.SSLCertVerificationError):
        return f"cert_{verify_problem(exc)}", {"detail": exc.verify_message or str(exc)}
    if isinstance(exc, ssl.SSLError):
        return "tls_handshake", {"detail": exc.reason or str(exc)}
    if isinstance(exc, TransportError):  # the CA file could not be read
        return "ca_file_bad", {"path": str(ca_file)}
    if isinstance(exc, socket.gaierror):
        return "dns", {"detail": exc.strerror or str(exc)}
    if isinstance(exc, ConnectionRefusedError):
        return "refused", {}
    if isinstance(exc, TimeoutError):
        return ("timeout" if security == "ssl" else "timeout_plain"), {"seconds": f"{timeout:g}"}
    if isinstance(exc, ConnectionError | EOFError):
        return "lost", {"detail": _words(exc)}
    if isinstance(exc, OSError):
        return "connection_failed", {"detail": _words(exc)}
    return "unexpected", {"detail": f"{type(exc).__name__}: {_words(exc)}"}


def login_problem(exc: BaseException, **context: object) -> tuple[str, Values] | None:
    """What an exception of logging in means (None: not a login problem)."""
    if isinstance(exc, TokenCommandError):
        return f"token_{exc.kind}", {"command": exc.command, "detail": exc.detail}
    if isinstance(exc, LoginRefusedError):
        code = "login_refused" if exc.method == "LOGIN" else "token_refused"
        return code, {"user": exc.user, "method": exc.method, "reply": exc.reply, **context}
    if isinstance(exc, NoLoginMechanismError):
        return "no_oauth", {"offered": ", ".join(exc.offered) or "-"}
    if isinstance(exc, TransportConfigError):  # the password variable is not set
        return "password_unset", {"env": str(exc.value)}
    return None


def _words(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    text = " ".join(a.decode("utf-8", "replace") if isinstance(a, bytes) else str(a)
                    for a in exc.args)
    return text or type(exc).__name__
