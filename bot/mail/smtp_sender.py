"""The SMTP sender: hands finished messages to the mail server (a ``MailSender``).

One connection is opened lazily and reused for a whole outbox drain; a
dropped connection is reopened on the next message. Every failure is
classified for the outbox: unreachable server, time-out or a 4xx reply is a
``TemporarySendError`` (keep the message queued), a 5xx reply for the
recipient is a ``PermanentSendError`` (tell the game master). A wrong
password or TLS against the wrong port is a ``TransportError`` that retrying
cannot fix.
"""

from __future__ import annotations

import logging
import smtplib
import ssl
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from bot.mail.compose import InvalidAddressError, envelope_address
from bot.mail.secret import login_password, redacted_repr
from bot.mail.tls import client_context, describe_verify_error
from bot.mail.transport import (
    PermanentSendError,
    TemporarySendError,
    TransportConfigError,
    TransportError,
)

log = logging.getLogger(__name__)

SECURITY_MODES = ("ssl", "starttls", "none")
#: The usual port of each security mode (the configuration's default).
DEFAULT_PORTS = {"ssl": 465, "starttls": 587, "none": 25}
#: A reused connection idle for longer than this is checked with NOOP first.
REUSE_CHECK_SECONDS = 5.0


@dataclass(frozen=True, repr=False)
class SmtpSettings:
    """Where and how to send mail. The password is never shown.

    The password is ``password`` or the environment variable named by
    ``password_env``, read (from ``environ``, default ``os.environ``) only
    when a connection logs in: see ``login_password()``.
    ``rate_per_minute`` is how many messages a drain of the outbox hands to
    this server per minute (None: no limit).
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
        if self.username and self.password is None and self.password_env is None:
            raise TransportConfigError(
                "smtp.password", None, f"a password for smtp.username {self.username!r}"
            )
        if not self.timeout > 0:
            raise TransportConfigError("smtp.timeout", self.timeout, "seconds > 0")

    @property
    def endpoint(self) -> str:
        return f"{self.host}:{self.port}"


class SmtpSender:
    """Sends one message to one recipient per ``send`` over a reused connection."""

    def __init__(
        self, settings: SmtpSettings, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.settings = settings
        self._password: str | None = None
        self._clock = clock
        self._conn: smtplib.SMTP | None = None
        self._last_used = 0.0

    # -- the connection (the one seam)

    def _connect(self) -> smtplib.SMTP:
        """Open, secure and authenticate one connection. The only place that
        creates one; subclass to substitute it."""
        s = self.settings
        context = client_context(s.ca_file, key="mail.smtp") if s.security != "none" else None
        password = self._password = s.login_password() if s.username else None
        conn: smtplib.SMTP
        if s.security == "ssl":
            conn = smtplib.SMTP_SSL(
                s.host, s.port, local_hostname=s.helo, timeout=s.timeout, context=context
            )
        else:
            conn = smtplib.SMTP(s.host, s.port, local_hostname=s.helo, timeout=s.timeout)
        try:
            conn.ehlo()
            if s.security == "starttls":
                if not conn.has_extn("starttls"):
                    raise TransportError(
                        f"SMTP server {s.endpoint} does not offer STARTTLS; use security "
                        f"'ssl' (usually port 465), or 'none' only on a trusted network",
                        endpoint=s.endpoint,
                        retryable=False,
                    )
                conn.starttls(context=context)
                conn.ehlo()
            if s.username:
                conn.login(s.username, password or "")
        except BaseException:
            _close_quietly(conn)
            raise
        return conn

    def _open(self, recipient: str) -> smtplib.SMTP:
        conn = self._conn
        if conn is not None and self._clock() - self._last_used > REUSE_CHECK_SECONDS:
            try:
                if conn.noop()[0] != 250:
                    raise smtplib.SMTPServerDisconnected("NOOP not answered with 250")
            except (OSError, smtplib.SMTPException):
                self._drop()
                conn = None
        if conn is None:
            try:
                conn = self._connect()
            except Exception as exc:
                raise self._connect_error(exc, recipient) from exc
            self._conn = conn
            log.info("SMTP connected to %s", self.settings.endpoint)
        return conn

    def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            _close_quietly(conn)

    def close(self) -> None:
        """QUIT the connection if one is open (a later ``send`` reopens)."""
        conn, self._conn = self._conn, None
        if conn is None:
            return
        try:
            conn.quit()
        except (OSError, smtplib.SMTPException):
            _close_quietly(conn)

    def __enter__(self) -> SmtpSender:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- sending

    def send(self, raw: bytes, mail_from: str, rcpt: str) -> None:
        """Deliver ``raw`` to ``rcpt`` with envelope sender ``mail_from``."""
        conn = self._open(rcpt)
        try:
            envelope_from, envelope_rcpt, options = self._envelope(conn, raw, mail_from, rcpt)
        except InvalidAddressError as exc:
            raise PermanentSendError(rcpt, str(exc), endpoint=self.settings.endpoint) from exc
        try:
            conn.sendmail(envelope_from, [envelope_rcpt], raw, mail_options=options)
        except smtplib.SMTPRecipientsRefused as exc:
            code, reply = exc.recipients.get(rcpt, next(iter(exc.recipients.values())))
            raise self._reply_error(rcpt, code, reply) from exc
        except smtplib.SMTPSenderRefused as exc:
            error = self._reply_error(rcpt, exc.smtp_code, exc.smtp_error, sender=exc.sender)
            raise error from exc
        except smtplib.SMTPServerDisconnected as exc:
            self._drop()
            raise self._lost(rcpt, exc) from exc
        except smtplib.SMTPResponseException as exc:  # DATA refused, 421 closing, ...
            if exc.smtp_code == 421:
                self._drop()
                raise self._lost(rcpt, exc, code=421, reply=_decode(exc.smtp_error)) from exc
            raise self._reply_error(rcpt, exc.smtp_code, exc.smtp_error) from exc
        except smtplib.SMTPNotSupportedError as exc:
            raise PermanentSendError(rcpt, str(exc), endpoint=self.settings.endpoint) from exc
        except OSError as exc:  # reset, broken pipe, time-out
            self._drop()
            raise self._lost(rcpt, exc) from exc
        self._last_used = self._clock()

    def _envelope(
        self, conn: smtplib.SMTP, raw: bytes, mail_from: str, rcpt: str
    ) -> tuple[str, str, list[str]]:
        """The envelope addresses and MAIL options for one message: with a
        server that offers SMTPUTF8 (RFC 6531) Unicode addresses go as they
        are; otherwise their domains are IDNA-encoded, and a Unicode local
        part cannot be sent (``InvalidAddressError``)."""
        utf8 = conn.has_extn("smtputf8")
        envelope_from = envelope_address(mail_from, smtputf8=utf8)
        envelope_rcpt = envelope_address(rcpt, smtputf8=utf8)
        head = raw.split(b"\r\n\r\n", 1)[0]
        options: list[str] = []
        if not raw.isascii() and conn.has_extn("8bitmime"):
            options.append("BODY=8BITMIME")
        if utf8 and not (envelope_from + envelope_rcpt + head.decode("latin-1")).isascii():
            options.append("SMTPUTF8")  # UTF-8 headers (RFC 6532) ask for it too
        return envelope_from, envelope_rcpt, options

    # -- classification

    def _reply_error(
        self, rcpt: str, code: int, reply: bytes | str, *, sender: str | None = None
    ) -> TemporarySendError | PermanentSendError:
        text = _decode(reply)
        if sender is not None:
            text = f"sender {sender!r} refused: {text}"
        endpoint = self.settings.endpoint
        if 400 <= code < 500:
            return TemporarySendError(rcpt, text, code=code, endpoint=endpoint)
        return PermanentSendError(rcpt, text, code=code, endpoint=endpoint)

    def _lost(
        self, rcpt: str, exc: BaseException, *, code: int | None = None, reply: str | None = None
    ) -> TemporarySendError:
        return TemporarySendError(
            rcpt,
            reply or f"connection lost: {_describe(exc)}",
            code=code,
            endpoint=self.settings.endpoint,
            connection_failed=True,
        )

    def _connect_error(self, exc: Exception, rcpt: str) -> TransportError:
        s = self.settings
        if isinstance(exc, TransportError):
            return exc
        if isinstance(exc, smtplib.SMTPAuthenticationError):
            return TransportError(
                _redact(
                    f"SMTP login as {s.username!r} at {s.endpoint} was rejected "
                    f"({exc.smtp_code} {_decode(exc.smtp_error)}); check smtp.username "
                    f"and smtp.password",
                    self._password,
                ),
                endpoint=s.endpoint,
                retryable=False,
            )
        if isinstance(exc, smtplib.SMTPNotSupportedError):
            return TransportError(
                f"SMTP server {s.endpoint} cannot log in {s.username!r} ({exc}); "
                f"it offers no AUTH on this connection: use security 'starttls' or 'ssl'",
                endpoint=s.endpoint,
                retryable=False,
            )
        if isinstance(exc, ssl.SSLCertVerificationError):
            return TransportError(
                describe_verify_error(exc, host=s.host, endpoint=s.endpoint, key="mail.smtp",
                                      ca_file=s.ca_file),
                endpoint=s.endpoint,
                retryable=False,
            )
        if isinstance(exc, ssl.SSLError):
            return TransportError(
                f"TLS with SMTP server {s.endpoint} failed ({exc.reason or exc}); is this a "
                f"plain port? security 'ssl' needs port 465, 'starttls' port 587 or 25",
                endpoint=s.endpoint,
                retryable=False,
            )
        if isinstance(exc, smtplib.SMTPConnectError) and exc.smtp_code >= 500:
            return TransportError(
                f"SMTP server {s.endpoint} refuses to serve this client "
                f"({exc.smtp_code} {_decode(exc.smtp_error)}); check smtp.host and whether "
                f"this machine may send through it",
                endpoint=s.endpoint,
                retryable=False,
            )
        if isinstance(exc, smtplib.SMTPResponseException):
            return TemporarySendError(
                rcpt,
                _decode(exc.smtp_error),
                code=exc.smtp_code,
                endpoint=s.endpoint,
                connection_failed=True,
            )
        if isinstance(exc, TimeoutError):
            return TemporarySendError(
                rcpt,
                f"no answer within {s.timeout:g} s",
                endpoint=s.endpoint,
                connection_failed=True,
            )
        if isinstance(exc, (OSError, smtplib.SMTPException)):
            return TemporarySendError(
                rcpt,
                f"cannot connect: {_describe(exc)}",
                endpoint=s.endpoint,
                connection_failed=True,
            )
        raise exc


def _decode(reply: bytes | str) -> str:
    return reply.decode("utf-8", "replace") if isinstance(reply, bytes) else str(reply)


def _describe(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


def _redact(text: str, secret: str | None) -> str:
    return text.replace(secret, "***") if secret else text


def _close_quietly(conn: smtplib.SMTP) -> None:
    try:
        conn.close()
    except OSError as exc:
        log.debug("SMTP close: %s", exc)
