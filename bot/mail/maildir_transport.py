"""The embedded mail transport for one machine without a mail server.

Layout under ``STATE/maildir`` (each a Maildir with ``tmp/new/cur``):

``inbox``      incoming mail; ``deliver()`` drops a mail here atomically
``processed``  where ``MaildirInbox.mark_processed`` moves a handled mail
``quarantine`` where ``MaildirInbox.quarantine`` moves a mail that failed too often
``sent``       every outgoing message, one file each (``MaildirSender``),
               headed by ``Return-Path``/``Delivered-To`` with the envelope

Used by ``demo`` and tests. Files are written to ``tmp``, fsynced and
renamed, so a reader never sees half a mail and a crash never loses one.
"""

from __future__ import annotations

import contextlib
import itertools
import mailbox
import os
import re
import socket
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from bot.mail.transport import (
    HEADER_BYTES,
    IncomingMail,
    PermanentSendError,
    TemporarySendError,
    header_section,
)

INBOX = "inbox"
PROCESSED = "processed"
QUARANTINE = "quarantine"
SENT = "sent"

_counter = itertools.count()
#: A bare address as the envelope needs it: one '@', no spaces or brackets.
_ADDRESS = re.compile(r"[^@\s<>\"]+@[^@\s<>\"]+")


def unique_name() -> str:
    """A Maildir file name that sorts by creation time and never repeats."""
    host = socket.gethostname().replace("/", r"\057").replace(":", r"\072") or "localhost"
    return f"{time.time_ns():020d}.P{os.getpid()}Q{next(_counter)}.{host}"


def open_maildir(path: Path) -> mailbox.Maildir:
    """Open the Maildir at ``path``, creating it (and any missing
    ``tmp``/``new``/``cur``) if needed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    box = mailbox.Maildir(path, factory=None, create=True)
    for sub in ("tmp", "new", "cur"):
        (path / sub).mkdir(mode=0o700, exist_ok=True)
    return box


def deliver(maildir: Path, raw: bytes) -> str:
    """Drop ``raw`` into ``maildir/new`` atomically (tmp, fsync, rename);
    returns its key."""
    open_maildir(maildir)
    key = unique_name()
    tmp = maildir / "tmp" / key
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(raw)
            handle.flush()
            os.fsync(handle.fileno())
        os.rename(tmp, maildir / "new" / key)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_dir(maildir / "new")
    return key


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _key_of(name: str) -> str:
    return name.split(":", 1)[0]


def _entries(maildir: Path) -> Iterator[tuple[str, Path]]:
    """(key, path) of every message in ``new`` and ``cur``."""
    for sub in ("new", "cur"):
        try:
            with os.scandir(maildir / sub) as listing:
                for entry in listing:
                    if entry.is_file() and not entry.name.startswith("."):
                        yield _key_of(entry.name), Path(entry.path)
        except FileNotFoundError:
            continue


def _sorted_entries(maildir: Path) -> list[tuple[str, Path]]:
    found = []
    for key, path in _entries(maildir):
        try:
            found.append((path.stat().st_mtime_ns, key, path))
        except FileNotFoundError:
            continue  # moved away meanwhile
    found.sort()  # by time; within one tick by name (ours start with the time)
    return [(key, path) for _mtime, key, path in found]


class MaildirInbox:
    """A ``MailSource`` over ``ROOT/inbox``; processed mail goes to ``ROOT/processed``."""

    def __init__(
        self,
        root: Path,
        *,
        poll_seconds: float = 2.0,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.root = Path(root)
        self.inbox = self.root / INBOX
        self.processed = self.root / PROCESSED
        self.quarantine_dir = self.root / QUARANTINE
        self.poll_seconds = poll_seconds
        self._sleep = sleep
        self._clock = clock
        open_maildir(self.inbox)
        open_maildir(self.processed)
        self._handed_out: set[str] = set()

    @property
    def source(self) -> str:
        return f"maildir:{self.inbox}"

    def deliver(self, raw: bytes) -> str:
        """Drop an incoming mail into the inbox (atomic); returns its key."""
        return deliver(self.inbox, raw)

    def fetch_new(
        self, limit: int | None = None, *, max_size: int | None = None
    ) -> list[IncomingMail]:
        """Every mail in the inbox (at most ``limit``), oldest first. A file
        larger than ``max_size`` bytes is not read whole: only its header
        section (at most ``HEADER_BYTES``), with ``complete=False``."""
        mails: list[IncomingMail] = []
        for key, path in _sorted_entries(self.inbox):
            if limit is not None and len(mails) >= limit:
                break
            try:
                with open(path, "rb") as handle:
                    size = os.fstat(handle.fileno()).st_size
                    complete = max_size is None or size <= max_size
                    raw = handle.read() if complete else header_section(
                        handle.read(HEADER_BYTES))
            except FileNotFoundError:
                continue
            mails.append(IncomingMail(self.source, None, None, raw, key, size=size,
                                      complete=complete))
        self._handed_out = {mail.key for mail in mails}
        return mails

    def mark_processed(self, mail: IncomingMail) -> None:
        """Move the mail to ``processed/cur`` with one atomic rename."""
        if mail.source != self.source:
            raise ValueError(
                f"mail {mail.key!r} does not come from {self.source!r}; "
                "mark it in the source that fetched it"
            )
        self._move(mail, self.processed)

    def quarantine(self, mail: IncomingMail) -> None:
        """Move the mail to ``quarantine/cur`` (created if missing)."""
        if mail.source != self.source:
            raise ValueError(
                f"mail {mail.key!r} does not come from {self.source!r}; "
                "quarantine it in the source that fetched it"
            )
        open_maildir(self.quarantine_dir)
        self._move(mail, self.quarantine_dir)

    def _move(self, mail: IncomingMail, folder: Path) -> None:
        target = folder / "cur" / f"{mail.key}:2,S"
        fresh = self.inbox / "new" / mail.key
        with contextlib.suppress(FileNotFoundError):
            os.rename(fresh, target)  # the usual case: still in new/
            return
        for key, path in _entries(self.inbox):
            if key == mail.key:
                os.rename(path, target)
                return
        if any(key == mail.key for key, _path in _entries(folder)):
            return  # already moved (a repeated call)
        raise FileNotFoundError(
            f"mail {mail.key!r} is neither in {self.inbox} nor in {folder}; "
            "was it removed by hand?"
        )

    def mark_processed_many(self, mails: list[IncomingMail]) -> None:
        for mail in mails:
            self.mark_processed(mail)

    def _has_new(self) -> bool:
        return any(key not in self._handed_out for key, _path in _entries(self.inbox))

    def wait_for_mail(self, timeout: float) -> bool:
        """Poll every ``poll_seconds`` up to ``timeout``; True when a mail not
        handed out by the last ``fetch_new`` is in the inbox."""
        deadline = self._clock() + timeout
        while True:
            if self._has_new():
                return True
            remaining = deadline - self._clock()
            if remaining <= 0:
                return False
            self._sleep(min(self.poll_seconds, remaining))

    def close(self) -> None:
        """Nothing to release; present for the ``MailSource`` protocol."""

    def __enter__(self) -> MaildirInbox:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


@dataclass(frozen=True)
class SentMessage:
    """One message the ``MaildirSender`` delivered, envelope separated again."""

    key: str
    mail_from: str
    rcpt: str
    raw: bytes = field(repr=False)


class MaildirSender:
    """A ``MailSender`` that writes each message to ``ROOT/sent`` (one file each)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.sent = self.root / SENT
        open_maildir(self.sent)

    def send(self, raw: bytes, mail_from: str, rcpt: str) -> None:
        for role, address in (("sender", mail_from), ("recipient", rcpt)):
            if not _ADDRESS.fullmatch(address) and not (role == "sender" and address == ""):
                raise PermanentSendError(
                    rcpt,
                    f"{role} {address!r} is not a mail address like 'name@example.org'",
                    endpoint=str(self.sent),
                )
        envelope = f"Return-Path: <{mail_from}>\r\nDelivered-To: {rcpt}\r\n".encode()
        try:
            deliver(self.sent, envelope + raw)
        except OSError as exc:
            raise TemporarySendError(
                rcpt,
                f"cannot write to {self.sent}: {exc.strerror or exc}",
                endpoint=str(self.sent),
                connection_failed=True,
            ) from exc

    def close(self) -> None:
        """Nothing to release; present for the ``MailSender`` protocol."""

    def __enter__(self) -> MaildirSender:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def messages(self) -> list[SentMessage]:
        """Every sent message, oldest first."""
        return read_sent(self.root)


def read_sent(root: Path) -> list[SentMessage]:
    """Every message in ``ROOT/sent``, oldest first, envelope split off."""
    result = []
    for key, path in sorted(_entries(Path(root) / SENT)):
        data = path.read_bytes()
        first, rest = data.split(b"\r\n", 1)
        second, raw = rest.split(b"\r\n", 1)
        mail_from = first.decode().removeprefix("Return-Path: <").removesuffix(">")
        rcpt = second.decode().removeprefix("Delivered-To: ")
        result.append(SentMessage(key, mail_from, rcpt, raw))
    return result
