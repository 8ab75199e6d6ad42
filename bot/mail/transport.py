"""What every mail transport shares: the incoming-mail record, the source and
sender protocols, and the typed transport errors.

Transports move bytes and nothing else: they never parse a mail and never
delete one. A source hands out mails; the caller marks each one processed
only after its own transaction has committed, so a crash at any point can at
worst hand the same mail out again (the caller dedupes by ``key``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol, runtime_checkable

from bot.errors import TurnitedError

#: Of a mail too large to read, at most this many bytes of its header section are read.
HEADER_BYTES = 64 * 1024


def header_section(data: bytes) -> bytes:
    """The header section of the start of a mail (up to and with the empty
    line), at most ``HEADER_BYTES`` long."""
    data = data[:HEADER_BYTES]
    ends = [i + len(sep) for sep in (b"\r\n\r\n", b"\n\n") if (i := data.find(sep)) >= 0]
    return data[: min(ends)] if ends else data


@dataclass(frozen=True, slots=True)
class IncomingMail:
    """One mail as a source delivered it.

    ``source`` names the mailbox (e.g. ``imap://bot%40example.org@host:143/INBOX``
    or ``maildir:/state/maildir/inbox``); ``uidvalidity``/``uid`` are the IMAP
    identity (``None`` for Maildir); ``key`` is unique and stable within the
    source and is what the caller dedupes on. ``arrived`` is when the mailbox
    received the mail (aware UTC; IMAP's INTERNALDATE), ``None`` if unknown:
    a mail read after a deadline that arrived before it is in time.

    ``size`` is the whole mail's size in bytes as the mailbox reports it
    (IMAP ``RFC822.SIZE``, the file size), known before anything is read.
    A mail larger than the ``max_size`` given to ``fetch_new`` is not read
    whole: ``complete`` is False and ``raw`` holds only (the first
    ``HEADER_BYTES`` of) its header section, enough to answer the sender.
    """

    source: str
    uidvalidity: int | None
    uid: int | None
    raw: bytes = field(repr=False)
    key: str
    arrived: datetime | None = field(default=None, compare=False)
    size: int | None = field(default=None, compare=False)
    complete: bool = field(default=True, compare=False)

    @property
    def whole_size(self) -> int:
        """The mail's size in bytes (``size``, or the bytes at hand)."""
        return self.size if self.size is not None else len(self.raw)

    def __repr__(self) -> str:
        return (
            f"IncomingMail(source={self.source!r}, uidvalidity={self.uidvalidity!r}, "
            f"uid={self.uid!r}, key={self.key!r}, raw=<{len(self.raw)} bytes>, "
            f"size={self.size!r}, complete={self.complete!r})"
        )


@runtime_checkable
class MailSource(Protocol):
    """Where incoming mail comes from (IMAP mailbox or local Maildir)."""

    def fetch_new(
        self, limit: int | None = None, *, max_size: int | None = None
    ) -> list[IncomingMail]:
        """Every mail not yet marked processed (at most ``limit``), oldest
        first. Never changes the mailbox (no ``\\Seen``, no moves). A mail
        larger than ``max_size`` bytes comes with its header only
        (``complete=False``); its size is asked before its body is read."""
        ...

    def mark_processed(self, mail: IncomingMail) -> None:
        """Record that ``mail`` is done (moved or flagged, never deleted).
        Call it only after the caller's transaction for the mail committed."""
        ...

    def mark_processed_many(self, mails: list[IncomingMail]) -> None:
        """``mark_processed`` for several mails, in one command where possible."""
        ...

    def quarantine(self, mail: IncomingMail) -> None:
        """Move ``mail`` out of the way into the quarantine folder (never
        deleted): for a mail whose handling failed too often."""
        ...

    def wait_for_mail(self, timeout: float) -> bool:
        """Block up to ``timeout`` seconds; True as soon as new mail arrived."""
        ...

    def close(self) -> None:
        """Release connections; the source may be used again afterwards."""
        ...


@runtime_checkable
class MailSender(Protocol):
    """Where outgoing mail goes (SMTP server or the local ``sent`` Maildir)."""

    def send(self, raw: bytes, mail_from: str, rcpt: str) -> None:
        """Deliver ``raw`` to ``rcpt``; raise ``TemporarySendError`` or
        ``PermanentSendError`` when it was not accepted."""
        ...

    def close(self) -> None:
        """Release the connection (a later ``send`` opens a new one)."""
        ...


class TransportError(TurnitedError, OSError):
    """A mail server could not be used: unreachable, refused the login, or the
    configuration does not match what the server speaks.

    An ``OSError`` so command-line callers report it as one line.
    ``endpoint`` is ``host:port``; ``retryable`` says whether trying again
    later can help (a dead server) or a person must fix something (a wrong
    password, TLS against a plain port).
    """

    def __init__(self, message: str, *, endpoint: str = "", retryable: bool = True) -> None:
        super().__init__(message)
        self.endpoint = endpoint
        self.retryable = retryable

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class TransportConfigError(TransportError, ValueError):
    """A setting that cannot work (unknown security mode, empty host, ...)."""

    def __init__(self, setting: str, value: object, expected: str) -> None:
        super().__init__(
            f"mail setting {setting}={value!r} is invalid: expected {expected}",
            retryable=False,
        )
        self.setting = setting
        self.value = value


class SendError(TransportError):
    """A message was not accepted for one recipient."""

    def __init__(
        self,
        message: str,
        *,
        recipient: str,
        code: int | None,
        reply: str,
        endpoint: str = "",
        retryable: bool,
    ) -> None:
        super().__init__(message, endpoint=endpoint, retryable=retryable)
        self.recipient = recipient
        self.code = code
        self.reply = reply


class TemporarySendError(SendError):
    """Try again later: the server is unreachable, timed out or answered 4xx.

    ``connection_failed`` is True when no server could be talked to at all
    (refused, timed out, dropped): the outbox then stops the whole drain
    instead of trying every queued message against a dead server.
    """

    def __init__(
        self,
        recipient: str,
        reply: str,
        *,
        code: int | None = None,
        endpoint: str = "",
        connection_failed: bool = False,
    ) -> None:
        what = f"{code} {reply}" if code is not None else reply
        super().__init__(
            f"sending to {recipient!r} via {endpoint or 'the mail server'} failed "
            f"temporarily ({what}); the message stays queued and is retried later",
            recipient=recipient,
            code=code,
            reply=reply,
            endpoint=endpoint,
            retryable=True,
        )
        self.connection_failed = connection_failed


class PermanentSendError(SendError):
    """The server refused the message for this recipient for good (5xx)."""

    def __init__(self, recipient: str, reply: str, *, code: int | None = None, endpoint: str = ""):
        what = f"{code} {reply}" if code is not None else reply
        super().__init__(
            f"{endpoint or 'the mail server'} refused the message to {recipient!r} "
            f"permanently ({what}); check the address, retrying will not help",
            recipient=recipient,
            code=code,
            reply=reply,
            endpoint=endpoint,
            retryable=False,
        )


class LoginRefusedError(TransportError):
    """The server refused the login (a password or an OAuth2 access token);
    ``method`` is ``LOGIN`` or the SASL mechanism, ``reply`` the server's
    words (never the secret). Not retryable: a person must fix it."""

    def __init__(self, message: str, *, endpoint: str, user: str, method: str,
                 reply: str) -> None:
        super().__init__(message, endpoint=endpoint, retryable=False)
        self.user = user
        self.method = method
        self.reply = reply


class NoLoginMechanismError(TransportError):
    """The server offers none of the logins the settings ask for
    (``wanted``); ``offered`` lists the SASL mechanisms it does offer."""

    def __init__(self, message: str, *, endpoint: str, wanted: str,
                 offered: tuple[str, ...]) -> None:
        super().__init__(message, endpoint=endpoint, retryable=False)
        self.wanted = wanted
        self.offered = offered
