"""The SMTP sender: hands finished messages to the mail server (a ``MailSender``).

One connection is opened lazily and reused for a whole outbox drain; a
dropped connection is reopened on the next message. Every failure is
classified for the outbox: unreachable server, time-out or a 4xx reply is a
``TemporarySendError`` (keep the message queued), a 5xx reply for the
recipient is a ``PermanentSendError`` (tell the game master). A wrong
password, a refused OAuth2 token, a failing token command or TLS against
the wrong port is a ``TransportError`` that retrying cannot fix. Settings:
``bot.mail.smtp_settings``; connecting and logging in: ``bot.mail.smtp_login``.
"""

from __future__ import annotations

import logging
import smtplib
import ssl
import time
from collections.abc import Callable

from bot.mail.address_check import InvalidAddressError, envelope_address
from bot.mail.smtp_login import close_quietly, connect, log_in, secure
from bot.mail.smtp_settings import DEFAULT_PORTS, SECURITY_MODES, SmtpSettings
from bot.mail.tls import describe_verify_error
from bot.mail.transport import (
    PermanentSendError,
    TemporarySendError,
    TransportError,
)

log = logging.getLogger(__name__)

__all__ = ["DEFAULT_PORTS", "SECURITY_MODES", "SmtpSender", "SmtpSettings"]

#: A reused connection idle for longer than this is checked with NOOP first.
REUSE_CHECK_SECONDS = 5.0


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
        password = self._password = (
            s.login_password() if s.username and s.auth == "password" else None)
        conn = connect(s)
        try:
            secure(conn, s)
            log_in(conn, s, password)
        except BaseException:
            close_quietly(conn)
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
            close_quietly(conn)

    def close(self) -> None:
        """QUIT the connection if one is open (a later ``send`` reopens)."""
        conn, self._conn = self._conn, None
        if conn is None:
            return
        try:
            conn.quit()
        except (OSError, smtplib.SMTPException):
            close_quietly(conn)

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
