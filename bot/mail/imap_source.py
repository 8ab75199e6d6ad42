"""The IMAP mailbox the bot reads its mail from (a ``MailSource``).

Reads with ``BODY.PEEK[]`` (never sets ``\\Seen`` by itself), returns each
mail with its UIDVALIDITY and UID, and marks a mail processed only when the
caller says so: by moving it to ``processed_folder`` (MOVE, or COPY +
``\\Deleted`` + ``UID EXPUNGE`` of exactly that UID) or, without a processed
folder, by flagging it ``\\Seen``. Nothing is ever deleted without a copy.

Waiting uses IDLE when the server offers it and polling otherwise. A server
that goes away is reconnected with a few quick, exponentially spaced retries;
after those a ``TransportError`` lets the caller's loop back off for longer.
The settings are ``bot.mail.imap_settings``; connecting and logging in (a
password or an OAuth2 token) is ``bot.mail.imap_login``.
"""

from __future__ import annotations

import imaplib
import logging
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import TypeVar
from urllib.parse import quote

from imapclient import IMAPClient

from bot.mail.imap_login import connect, log_in, secure, shutdown, translate
from bot.mail.imap_settings import DEFAULT_PORTS, SECURITY_MODES, ImapSettings
from bot.mail.transport import (
    HEADER_BYTES,
    IncomingMail,
    TransportError,
    header_section,
)

log = logging.getLogger(__name__)

SEEN = b"\\Seen"
DELETED = b"\\Deleted"
#: RFC 2177: a client should re-issue IDLE at least every 29 minutes.
IDLE_RENEW_SECONDS = 25 * 60
#: UIDs per FETCH command (bounds the size of one server response).
FETCH_CHUNK = 500
#: Bodies per FETCH command add up to at most this many bytes (one answer is
#: held in memory whole), unless a single mail is larger.
FETCH_BYTES = 16 * 1024 * 1024
#: The header section of a mail too large to fetch, at most HEADER_BYTES of it.
HEADER_ITEM = f"BODY.PEEK[HEADER]<0.{HEADER_BYTES}>"

T = TypeVar("T")

__all__ = ["DEFAULT_PORTS", "SECURITY_MODES", "ImapMailbox", "ImapSettings", "uid_set"]


def uid_set(uids: Iterable[int]) -> str:
    """Compact IMAP sequence set: ``[1, 2, 3, 7, 9, 10]`` -> ``'1:3,7,9:10'``."""
    ordered = sorted(set(uids))
    if not ordered:
        raise ValueError("an IMAP UID set needs at least one UID")
    parts: list[str] = []
    start = prev = ordered[0]
    for uid in ordered[1:]:
        if uid == prev + 1:
            prev = uid
            continue
        parts.append(f"{start}:{prev}" if prev != start else str(start))
        start = prev = uid
    parts.append(f"{start}:{prev}" if prev != start else str(start))
    return ",".join(parts)


class ImapMailbox:
    """A ``MailSource`` over one IMAP folder (see the module docstring).

    ``retries`` quick reconnects are tried per operation, ``backoff_base``
    seconds apart and doubling up to ``backoff_cap``; ``sleep`` and ``clock``
    are injectable for the caller's own scheduling.
    """

    def __init__(
        self,
        settings: ImapSettings,
        *,
        retries: int = 3,
        backoff_base: float = 0.2,
        backoff_cap: float = 5.0,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.settings = settings
        self.retries = retries
        self.backoff_base = backoff_base
        self.backoff_cap = backoff_cap
        self._sleep = sleep
        self._clock = clock
        self._client: IMAPClient | None = None
        self._password: str | None = None
        self._uidvalidity: int | None = None
        self._folders_ready: set[str] = set()
        self._highest_uid = 0
        self._warned_no_uidplus = False
        s = settings
        self._source = f"imap://{quote(s.username, safe='')}@{s.host}:{s.port}/{quote(s.folder)}"

    # -- identity

    @property
    def source(self) -> str:
        """The folder as an IMAP URL (RFC 5092), e.g. ``imap://bot%40x.org@host:143/INBOX``."""
        return self._source

    def key_for(self, uidvalidity: int, uid: int) -> str:
        """RFC 5092 style URL of one message: unique and stable."""
        return f"{self.source};UIDVALIDITY={uidvalidity}/;UID={uid}"

    # -- the connection (the one seam)

    def _connect(self) -> IMAPClient:
        """Open, secure and log in one connection. The only place that
        creates a client; subclass to substitute the connection."""
        s = self.settings
        self._password = s.login_password() if s.auth == "password" else None
        client = connect(s)
        try:
            secure(client, s)
            log_in(client, s)
        except BaseException:
            shutdown(client)
            raise
        return client

    def _open(self) -> IMAPClient:
        if self._client is not None:
            return self._client
        s = self.settings
        client = self._connect()
        try:
            info = client.select_folder(s.folder)
        except BaseException:
            shutdown(client)
            raise
        uidvalidity = int(info[b"UIDVALIDITY"])
        if self._uidvalidity is not None and uidvalidity != self._uidvalidity:
            log.warning(
                "UIDVALIDITY of %s changed from %s to %s: every mail there counts as new",
                self.source, self._uidvalidity, uidvalidity,
            )
            self._highest_uid = 0
        self._uidvalidity = uidvalidity
        self._folders_ready = set()
        self._client = client
        log.info("IMAP connected to %s as %s, folder %s", s.endpoint, s.username, s.folder)
        return client

    def _drop(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            shutdown(client)

    def close(self) -> None:
        client, self._client = self._client, None
        if client is None:
            return
        try:
            client.logout()
        except Exception:
            shutdown(client)

    def __enter__(self) -> ImapMailbox:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- retries and error translation

    def _run(self, operation: str, action: Callable[[IMAPClient], T]) -> T:
        attempt = 0
        while True:
            try:
                return action(self._open())
            except Exception as exc:
                error = self._translate(exc, operation)
                if error is None:
                    raise
                self._drop()
                if not error.retryable or attempt >= self.retries:
                    raise error from exc
                delay = min(self.backoff_cap, self.backoff_base * 2**attempt)
                log.warning("IMAP %s failed (%s); reconnecting in %.1f s", operation, error, delay)
                self._sleep(delay)
                attempt += 1

    def _translate(self, exc: Exception, operation: str) -> TransportError | None:
        return translate(exc, self.settings, operation, connected=self._client is not None,
                         secret=self._password)

    # -- fetching

    def _criteria(self) -> list[str]:
        criteria = ["NOT", "DELETED"]
        if self.settings.processed_folder is None:
            criteria.append("UNSEEN")
        return criteria

    def fetch_new(
        self, limit: int | None = None, *, max_size: int | None = None
    ) -> list[IncomingMail]:
        """Every unprocessed mail (at most ``limit``), oldest UID first. The
        sizes are fetched first (``RFC822.SIZE``); a mail larger than
        ``max_size`` is fetched header only (``BODY.PEEK[HEADER]``, at most
        ``HEADER_BYTES``) and comes with ``complete=False``."""
        return self._run("fetch", lambda client: self._fetch(client, limit, max_size))

    def _fetch(
        self, client: IMAPClient, limit: int | None, max_size: int | None
    ) -> list[IncomingMail]:
        client.noop()  # let the server announce mail that arrived since the last command
        uids = sorted(client.search(self._criteria()))
        if limit is not None:
            uids = uids[:limit]
        uidvalidity = self._uidvalidity
        assert uidvalidity is not None
        mails: list[IncomingMail] = []
        for start in range(0, len(uids), FETCH_CHUNK):
            chunk = uids[start : start + FETCH_CHUNK]
            meta = client.fetch(chunk, ["RFC822.SIZE", "INTERNALDATE"])
            sizes = {uid: int(item.get(b"RFC822.SIZE", 0)) for uid, item in meta.items()}
            small = [u for u in chunk if u in sizes and (max_size is None or sizes[u] <= max_size)]
            large = [u for u in chunk if u in sizes and u not in small]
            bodies: dict[int, dict[bytes, object]] = {}
            for group in _by_bytes(small, sizes, FETCH_BYTES):
                bodies.update(client.fetch(group, ["BODY.PEEK[]"]))
            heads = client.fetch(large, [HEADER_ITEM]) if large else {}
            for uid in chunk:
                if uid in bodies and b"BODY[]" in bodies[uid]:
                    raw, complete = bytes(bodies[uid][b"BODY[]"]), True  # type: ignore[call-overload]
                elif uid in heads and (part := _header_part(heads[uid])) is not None:
                    raw, complete = header_section(part), False
                else:
                    continue  # expunged by someone else in the meantime
                mails.append(
                    IncomingMail(
                        source=self.source,
                        uidvalidity=uidvalidity,
                        uid=uid,
                        raw=raw,
                        key=self.key_for(uidvalidity, uid),
                        arrived=_utc(meta[uid].get(b"INTERNALDATE")),
                        size=sizes[uid],
                        complete=complete,
                    )
                )
        if mails:
            self._highest_uid = max(self._highest_uid, mails[-1].uid or 0)
        return mails

    # -- marking

    def mark_processed(self, mail: IncomingMail) -> None:
        """Move ``mail`` to the processed folder (or flag it ``\\Seen``)."""
        self.mark_processed_many([mail])

    def mark_processed_many(self, mails: Sequence[IncomingMail]) -> None:
        """Mark several mails with one command."""
        if not mails:
            return
        for mail in mails:
            if mail.source != self.source or mail.uid is None:
                raise ValueError(
                    f"mail {mail.key!r} does not come from {self.source!r}; "
                    "mark it in the source that fetched it"
                )
        uids = [mail.uid for mail in mails if mail.uid is not None]
        validities = {mail.uidvalidity for mail in mails}
        self._run("mark processed", lambda client: self._mark(client, uids, validities))

    def _mark(self, client: IMAPClient, uids: list[int], validities: set[int | None]) -> None:
        if validities != {self._uidvalidity}:
            raise TransportError(
                f"cannot mark mails of {self.source}: they were fetched under UIDVALIDITY "
                f"{sorted(v for v in validities if v is not None)}, the folder now has "
                f"{self._uidvalidity} (it was rebuilt); fetch again, nothing was changed",
                endpoint=self.settings.endpoint,
                retryable=False,
            )
        target = self.settings.processed_folder
        uids_text = uid_set(uids)
        if target is None:
            client.add_flags(uids_text, [SEEN], silent=True)
            return
        self._move(client, uids_text, target)

    def quarantine(self, mail: IncomingMail) -> None:
        """Move ``mail`` to ``quarantine_folder`` (created if missing): a mail
        whose handling failed too often leaves the folder the bot reads."""
        if mail.source != self.source or mail.uid is None:
            raise ValueError(
                f"mail {mail.key!r} does not come from {self.source!r}; "
                "quarantine it in the source that fetched it"
            )
        uid = mail.uid

        def move(client: IMAPClient) -> None:
            self._mark_checked(client, {mail.uidvalidity})
            self._move(client, uid_set([uid]), self.settings.quarantine_folder)

        self._run("quarantine", move)

    def _mark_checked(self, client: IMAPClient, validities: set[int | None]) -> None:
        if validities != {self._uidvalidity}:
            raise TransportError(
                f"cannot move mails of {self.source}: they were fetched under UIDVALIDITY "
                f"{sorted(v for v in validities if v is not None)}, the folder now has "
                f"{self._uidvalidity} (it was rebuilt); fetch again, nothing was changed",
                endpoint=self.settings.endpoint,
                retryable=False,
            )

    def _move(self, client: IMAPClient, uids_text: str, target: str) -> None:
        self._ensure_folder(client, target)
        if client.has_capability("MOVE"):
            client.move(uids_text, target)
            return
        # COPY first: if anything below fails, the mail exists twice, never zero times.
        client.copy(uids_text, target)
        client.add_flags(uids_text, [DELETED], silent=True)
        if client.has_capability("UIDPLUS"):
            client.uid_expunge(uids_text)
        elif not self._warned_no_uidplus:
            self._warned_no_uidplus = True
            log.warning(
                "IMAP server %s has neither MOVE nor UIDPLUS: processed mails stay in %s "
                "flagged \\Deleted (hidden from the bot) until another client expunges them",
                self.settings.endpoint, self.settings.folder,
            )

    def _ensure_folder(self, client: IMAPClient, folder: str) -> None:
        if folder in self._folders_ready:
            return
        if not client.folder_exists(folder):
            try:
                client.create_folder(folder)
                log.info("IMAP created folder %s on %s", folder, self.settings.endpoint)
            except imaplib.IMAP4.error:
                if not client.folder_exists(folder):  # not a lost race: a real refusal
                    raise
        self._folders_ready.add(folder)

    # -- waiting

    def wait_for_mail(self, timeout: float) -> bool:
        """Block up to ``timeout`` s; True once a mail newer than the last
        ``fetch_new`` is in the folder (IDLE if offered, else polling)."""
        deadline = self._clock() + timeout
        if self._run("check", self._has_new):
            return True
        if self.settings.idle and self._run("capability", lambda c: c.has_capability("IDLE")):
            # After a reconnect, first look for mail that came in meanwhile.
            return self._run(
                "idle", lambda client: self._has_new(client) or self._idle(client, deadline)
            )
        while True:
            remaining = deadline - self._clock()
            if remaining <= 0:
                return False
            self._sleep(min(self.settings.poll_seconds, remaining))
            if self._run("check", self._has_new):
                return True

    def _has_new(self, client: IMAPClient) -> bool:
        after = self._highest_uid + 1
        client.noop()
        uids = client.search([*self._criteria(), "UID", f"{after}:*"])
        return any(uid >= after for uid in uids)  # "n:*" always matches the last UID

    def _idle(self, client: IMAPClient, deadline: float) -> bool:
        client.idle()
        while True:
            remaining = deadline - self._clock()
            if remaining <= 0:
                client.idle_done()
                return False
            wait = min(remaining, IDLE_RENEW_SECONDS)
            started = self._clock()
            responses = client.idle_check(timeout=wait)
            if any(_is_bye(r) for r in responses):
                raise imaplib.IMAP4.abort("server said BYE during IDLE")
            if any(_is_new_mail(r) for r in responses):
                client.idle_done()
                return True
            if not responses and self._clock() - started < wait - 0.05:
                # Woken with nothing to read: the server closed the connection.
                raise imaplib.IMAP4.abort("connection closed during IDLE")
            if not responses and wait < remaining:
                client.idle_done()  # renew a long IDLE (RFC 2177)
                client.idle()


def _by_bytes(uids: Sequence[int], sizes: Mapping[int, int], limit: int) -> list[list[int]]:
    """``uids`` in order, grouped so that each group's sizes add up to at most
    ``limit`` (a single larger mail is a group of its own)."""
    groups: list[list[int]] = []
    total = 0
    for uid in uids:
        if not groups or total + sizes[uid] > limit:
            groups.append([])
            total = 0
        groups[-1].append(uid)
        total += sizes[uid]
    return groups


def _header_part(item: Mapping[bytes, object]) -> bytes | None:
    """The bytes of a ``BODY[HEADER]<0>`` answer (servers name partial answers
    with or without the origin)."""
    for key, value in item.items():
        if isinstance(key, bytes) and key.startswith(b"BODY[HEADER]") and value is not None:
            return bytes(value)  # type: ignore[call-overload]
    return None


def _is_new_mail(response: object) -> bool:
    return (
        isinstance(response, tuple)
        and len(response) >= 2
        and response[1] in (b"EXISTS", b"RECENT")
    )


def _is_bye(response: object) -> bool:
    return isinstance(response, tuple) and bool(response) and response[0] == b"BYE"


def _utc(value: object) -> datetime | None:
    """An INTERNALDATE as aware UTC (imapclient gives naive local time)."""
    if not isinstance(value, datetime):
        return None
    return value.astimezone(UTC)
