"""Real mail servers for the tests: a private Dovecot (IMAP + LMTP) and an
aiosmtpd SMTP server, both on 127.0.0.1, started and stopped by the tests.

Facts behind the Dovecot set-up (uids, short socket paths, no PIPE for its
output) are in ``/work/shared/mail-servers.md``. Nothing here is skipped when
Dovecot is missing: ``ServerMissingError`` says how to install it.
"""

from __future__ import annotations

import atexit
import base64
import binascii
import contextlib
import json
import os
import pwd
import shutil
import signal
import smtplib
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import MISSING, AuthResult, LoginPassword
from imapclient import IMAPClient

from bot.mail.imap_source import ImapSettings

HOST = "127.0.0.1"
DOVECOT_BINARY = "/usr/sbin/dovecot"
BOT_ADDRESS = "bot@example.org"
DEFAULT_USERS: Mapping[str, str] = {
    BOT_ADDRESS: "bot-secret",
    "anna@example.org": "anna-secret",
    "bernd@example.org": "bernd-secret",
}


class ServerMissingError(RuntimeError):
    """A server binary the tests need is not installed."""


class ServerStartError(RuntimeError):
    """A server did not come up; the message carries the tail of its log."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def _greets(port: int, prefix: bytes) -> bool:
    try:
        with socket.create_connection((HOST, port), timeout=0.5) as sock:
            return sock.recv(256).startswith(prefix)
    except OSError:
        return False


def _wait_until_listening(port: int, prefix: bytes, deadline: float) -> bool:
    while time.monotonic() < deadline:
        if _greets(port, prefix):
            return True
        time.sleep(0.05)
    return False


def _wait_until_closed(port: int, deadline: float) -> None:
    while time.monotonic() < deadline:
        try:
            socket.create_connection((HOST, port), timeout=0.2).close()
        except OSError:
            return
        time.sleep(0.02)


# ---------------------------------------------------------------- Dovecot

#: Every DovecotServer not yet removed: killed at interpreter exit, so a test
#: run or script that dies half-way leaves no Dovecot behind.
_LIVE: set[DovecotServer] = set()


@atexit.register
def _remove_leftovers() -> None:
    for server in list(_LIVE):
        server.remove()


class DovecotServer:
    """A private Dovecot in a short temporary directory.

    ``start()`` may be called again after ``kill()`` or ``stop()``: the
    server comes back on the same ports with the same mail directory, so a
    test can pull the plug in the middle of a poll and check nothing is lost.
    """

    def __init__(
        self,
        users: Mapping[str, str] | None = None,
        *,
        extra_config: str = "",
        name: str = "test",
        oauth2_introspection_url: str | None = None,
    ) -> None:
        if not os.access(DOVECOT_BINARY, os.X_OK):
            raise ServerMissingError(
                f"{DOVECOT_BINARY} not found: the mail tests need a real Dovecot; "
                "install it with scripts/test or "
                "'apt-get install dovecot-imapd dovecot-lmtpd'"
            )
        self.users = dict(users or DEFAULT_USERS)
        self.host = HOST
        self.imap_port = free_port()
        self.lmtp_port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="ml.", dir="/tmp"))
        self._process: subprocess.Popen[bytes] | None = None
        self.oauth2_introspection_url = oauth2_introspection_url
        self._write_files(extra_config, name)
        _LIVE.add(self)

    # -- set-up

    def _ids(self) -> dict[str, str | int]:
        if os.geteuid() == 0:
            try:
                mail = pwd.getpwnam("dovecot")
            except KeyError as exc:
                raise ServerMissingError(
                    "user 'dovecot' missing: install dovecot-core (scripts/test does)"
                ) from exc
            return {
                "internal_user": "root",
                "internal_group": "root",
                "login_user": "dovenull",
                "uid": mail.pw_uid,
                "gid": mail.pw_gid,
            }
        me = pwd.getpwuid(os.getuid())
        group = me.pw_name
        with contextlib.suppress(KeyError, ImportError):
            import grp

            group = grp.getgrgid(os.getgid()).gr_name
        return {
            "internal_user": me.pw_name,
            "internal_group": group,
            "login_user": me.pw_name,
            "uid": os.getuid(),
            "gid": os.getgid(),
        }

    def _write_files(self, extra_config: str, name: str) -> None:
        ids = self._ids()
        d = self.dir
        for sub in ("run", "state", "log", "mail"):
            (d / sub).mkdir()
        d.chmod(0o711)
        if os.geteuid() == 0:
            os.chown(d / "mail", int(ids["uid"]), int(ids["gid"]))
        users = d / "users"
        users.write_text(
            "".join(f"{user}:{{PLAIN}}{password}::::::\n" for user, password in self.users.items())
        )
        users.chmod(0o600)
        mechanisms, oauth2_passdb, password_only, anvil = "plain login", "", "", ""
        if self.oauth2_introspection_url:
            # XOAUTH2 / OAUTHBEARER checked against the test's RFC 7662
            # endpoint; passwords stay for the test's own connections.
            (d / "dovecot-oauth2.conf.ext").write_text(
                "introspection_mode = post\n"
                f"introspection_url = {self.oauth2_introspection_url}\n"
                "force_introspection = yes\nusername_attribute = email\n"
                "active_attribute = active\nactive_value = true\ntimeout_msecs = 5000\n")
            mechanisms += " xoauth2 oauthbearer"
            oauth2_passdb = (f"passdb {{\n  driver = oauth2\n  mechanisms = xoauth2 oauthbearer\n"
                             f"  args = {d}/dovecot-oauth2.conf.ext\n}}\n")
            password_only = "  mechanisms = plain login\n"
            # else one refused token slows the next good login by seconds
            anvil = "  unix_listener anvil-auth-penalty {\n    mode = 0\n  }\n"
        self.config_path = d / "dovecot.conf"
        self.config_path.write_text(
            f"""\
protocols = imap lmtp
listen = {HOST}
base_dir = {d}/run
state_dir = {d}/state
instance_name = maillab-{name}-{d.name}
log_path = {d}/log/dovecot.log

default_internal_user = {ids["internal_user"]}
default_internal_group = {ids["internal_group"]}
default_login_user = {ids["login_user"]}
mail_uid = {ids["uid"]}
mail_gid = {ids["gid"]}
first_valid_uid = {ids["uid"]}
first_valid_gid = {ids["gid"]}

ssl = no
disable_plaintext_auth = no
auth_mechanisms = {mechanisms}
auth_failure_delay = 0

mail_location = maildir:~/Maildir
mail_fsync = never
mailbox_idle_check_interval = 1 secs

{oauth2_passdb}passdb {{
  driver = passwd-file
{password_only}  args = scheme=PLAIN {d}/users
}}
userdb {{
  driver = passwd-file
  args = {d}/users
  default_fields = home={d}/mail/%u
}}
protocol imap {{
  mail_max_userip_connections = 100
}}
service anvil {{
  chroot =
{anvil}}}
service imap-login {{
  chroot =
  inet_listener imap {{
    address = {HOST}
    port = {self.imap_port}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
service lmtp {{
  inet_listener lmtp {{
    address = {HOST}
    port = {self.lmtp_port}
  }}
}}
{extra_config}
"""
        )

    # -- life cycle

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self, timeout: float = 10.0) -> None:
        """Start (or restart) Dovecot and wait until IMAP and LMTP greet."""
        if self.running:
            return
        stderr = (self.dir / "log" / "stderr.log").open("ab")
        try:
            self._process = subprocess.Popen(
                [DOVECOT_BINARY, "-F", "-c", str(self.config_path)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
                start_new_session=True,
            )
        finally:
            stderr.close()
        deadline = time.monotonic() + timeout
        ok = _wait_until_listening(self.imap_port, b"* OK", deadline) and _wait_until_listening(
            self.lmtp_port, b"220 ", deadline
        )
        if not ok:
            log = self.log_tail()
            self.kill()
            raise ServerStartError(
                f"Dovecot did not greet on {HOST}:{self.imap_port} within {timeout} s; "
                f"log:\n{log}"
            )

    def kill(self) -> None:
        """Pull the plug: SIGKILL the whole process group, no clean-up."""
        process, self._process = self._process, None
        if process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        _wait_until_closed(self.imap_port, time.monotonic() + 2)

    def stop(self, timeout: float = 5.0) -> None:
        """Shut down cleanly (SIGTERM), killing it if it takes too long."""
        process = self._process
        if process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout)
        self.kill()

    def remove(self) -> None:
        """Kill the server and delete its directory."""
        self.kill()
        shutil.rmtree(self.dir, ignore_errors=True)
        _LIVE.discard(self)

    def __enter__(self) -> DovecotServer:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.remove()

    def log_tail(self, lines: int = 30) -> str:
        text = ""
        for name in ("dovecot.log", "stderr.log"):
            path = self.dir / "log" / name
            if path.exists():
                text += path.read_text(errors="replace")
        return "\n".join(text.splitlines()[-lines:])

    # -- helpers for tests

    def password(self, user: str) -> str:
        return self.users[user]

    def imap_settings(self, **overrides: object) -> ImapSettings:
        """The bot's ``ImapSettings`` for this server (plain IMAP on loopback)."""
        values: dict[str, object] = {
            "host": self.host,
            "port": self.imap_port,
            "security": "none",
            "username": BOT_ADDRESS,
            "password": self.password(BOT_ADDRESS),
        }
        values.update(overrides)
        return ImapSettings(**values)  # type: ignore[arg-type]

    def client(self, user: str = BOT_ADDRESS) -> IMAPClient:
        """A logged-in plain-text IMAP client (close it with ``logout()``)."""
        client = IMAPClient(self.host, port=self.imap_port, ssl=False, timeout=10)
        client.login(user, self.users[user])
        return client

    def empty(self, *folders: str, user: str = BOT_ADDRESS) -> None:
        """Delete every message in ``folders`` (those that exist) of ``user``."""
        client = self.client(user)
        try:
            for folder in folders:
                if not client.folder_exists(folder):
                    continue
                client.select_folder(folder)
                uids = client.search("ALL")
                if uids:
                    client.delete_messages(uids)
                    client.expunge()
        finally:
            client.logout()

    def append(
        self,
        raw: bytes,
        folder: str = "INBOX",
        user: str = BOT_ADDRESS,
        flags: Iterable[bytes] = (),
    ) -> int | None:
        """APPEND one message over a real IMAP connection; returns its UID."""
        return self.append_many([raw], folder=folder, user=user, flags=flags)[0]

    def append_many(
        self,
        raws: Iterable[bytes],
        folder: str = "INBOX",
        user: str = BOT_ADDRESS,
        flags: Iterable[bytes] = (),
    ) -> list[int | None]:
        flags = tuple(flags)
        uids: list[int | None] = []
        client = self.client(user)
        try:
            if not client.folder_exists(folder):
                client.create_folder(folder)
            for raw in raws:
                reply = client.append(folder, raw, flags=flags)
                uids.append(_appenduid(reply))
        finally:
            client.logout()
        return uids

    def list_folder(self, folder: str = "INBOX", user: str = BOT_ADDRESS) -> list[bytes]:
        """Every message in ``folder`` in UID order (empty if it does not exist)."""
        return [raw for _uid, raw in self.messages(folder, user)]

    def messages(self, folder: str = "INBOX", user: str = BOT_ADDRESS) -> list[tuple[int, bytes]]:
        """(UID, bytes) of every message in ``folder``, read without setting \\Seen."""
        client = self.client(user)
        try:
            if not client.folder_exists(folder):
                return []
            client.select_folder(folder, readonly=True)
            uids = client.search("ALL")
            if not uids:
                return []
            data = client.fetch(uids, ["BODY.PEEK[]"])
            return [(uid, data[uid][b"BODY[]"]) for uid in sorted(data)]
        finally:
            client.logout()

    def flags(self, folder: str = "INBOX", user: str = BOT_ADDRESS) -> dict[int, tuple[bytes, ...]]:
        client = self.client(user)
        try:
            client.select_folder(folder, readonly=True)
            uids = client.search("ALL")
            if not uids:
                return {}
            return {uid: tuple(flags) for uid, flags in client.get_flags(uids).items()}
        finally:
            client.logout()

    def folders(self, user: str = BOT_ADDRESS) -> list[str]:
        client = self.client(user)
        try:
            return [name for _flags, _delim, name in client.list_folders()]
        finally:
            client.logout()

    def deliver_lmtp(self, raw: bytes, mail_from: str, rcpt: str) -> None:
        """Hand a message to Dovecot's LMTP, as an MTA would."""
        with smtplib.LMTP(self.host, self.lmtp_port, timeout=10) as lmtp:
            lmtp.sendmail(mail_from, [rcpt], raw)


def _appenduid(reply: bytes) -> int | None:
    # "[APPENDUID <uidvalidity> <uid>] Append completed."
    text = reply.decode("ascii", "replace") if isinstance(reply, bytes) else str(reply)
    if "APPENDUID" in text:
        parts = text.split("APPENDUID", 1)[1].split("]", 1)[0].split()
        if len(parts) == 2 and parts[1].isdigit():
            return int(parts[1])
    return None


# ---------------------------------------------------------------- SMTP


@dataclass(frozen=True)
class ReceivedMessage:
    mail_from: str
    rcpt_tos: tuple[str, ...]
    content: bytes
    peer: tuple[str, int] = ("", 0)  # the client's address: same peer = same connection
    login: str | None = None


class _RecordingHandler:
    def __init__(self, server: SmtpServer) -> None:
        self.server = server

    async def handle_MAIL(self, server, session, envelope, address, mail_options):
        if address.lower() in self.server.refused_senders:
            return "553 5.7.1 Sender address rejected: not owned by the authenticated user"
        envelope.mail_from = address
        envelope.mail_options.extend(mail_options)
        return "250 OK"

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        reply = self.server._failure_for(address)
        if reply is not None:
            return reply
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        reply = self.server._failure_for(None)
        if reply is not None:
            return reply
        content = envelope.original_content or envelope.content
        if isinstance(content, str):
            content = content.encode("utf-8")
        message = ReceivedMessage(
            mail_from=envelope.mail_from,
            rcpt_tos=tuple(envelope.rcpt_tos),
            content=content,
            peer=tuple(session.peer[:2]),
            login=_text(session.auth_data),
        )
        if self.server.forward_to is not None:
            for rcpt in message.rcpt_tos:
                self.server.forward_to.deliver_lmtp(content, message.mail_from, rcpt)
        self.server._record(message)
        if self.server._crash_due():
            # The message is stored, but the client never hears the 250: the
            # connection drops and the server goes down, like a crash.
            server.transport.close()
            self.server._crash_in_background()
        return "250 Message accepted for delivery"


def _text(value: object) -> str | None:
    if value is None:
        return None
    return value.decode() if isinstance(value, bytes) else str(value)


class _OAuthHandler(_RecordingHandler):
    """Takes ``AUTH XOAUTH2`` and ``AUTH OAUTHBEARER`` as real providers do:
    a refused token gets a base64 JSON error challenge, then ``535`` after
    the client's empty line."""

    async def auth_XOAUTH2(self, server, args):
        return await self._bearer(server, args, "XOAUTH2")

    async def auth_OAUTHBEARER(self, server, args):
        return await self._bearer(server, args, "OAUTHBEARER")

    async def _bearer(self, server, args, mechanism):
        if len(args) > 1:
            try:
                blob = base64.b64decode(args[1], validate=True)
            except binascii.Error:
                return AuthResult(success=False, handled=False, message="501 5.5.2 not base64")
        else:
            blob = await server.challenge_auth("")
            if blob is MISSING:
                return AuthResult(success=False, handled=True)
        fields = dict(part.split("=", 1) for part in blob.decode().split("\x01") if "=" in part)
        user = fields.get("user")
        if mechanism == "OAUTHBEARER":
            user = blob.decode().split("\x01", 1)[0].partition("a=")[2].rstrip(",")
        token = fields.get("auth", "").removeprefix("Bearer ")
        self.server.auth_attempts.append((mechanism, user))
        lookup = self.server.oauth
        if lookup is not None and user and lookup(token) == user:
            return AuthResult(success=True, handled=False, auth_data=user)
        error = json.dumps({"status": "401", "schemes": "bearer", "scope": "https://mail"})
        await server.challenge_auth(error)  # the client answers with an empty line
        return AuthResult(success=False, handled=False,
                          message="535 5.7.8 Username and Password not accepted")


class _Authenticator:
    def __init__(self, users: Mapping[str, str]) -> None:
        self.users = users

    def __call__(self, server, session, envelope, mechanism, auth_data) -> AuthResult:
        if not isinstance(auth_data, LoginPassword):
            return AuthResult(success=False, handled=False)
        login, password = auth_data.login.decode(), auth_data.password.decode()
        ok = self.users.get(login) == password
        return AuthResult(success=ok, handled=False, auth_data=login if ok else None)


FAILURE_REPLIES = {
    "temporary": "451 4.3.0 Temporary failure, try again later",
    "permanent": "550 5.1.1 Mailbox unavailable",
}


class SmtpServer:
    """An aiosmtpd server on 127.0.0.1 that records every message.

    ``fail(kind, recipient)`` makes RCPT TO for that recipient, or (without a
    recipient) every DATA, answer 451 ("temporary") or 550 ("permanent").
    With ``forward_to`` every accepted message is also handed to Dovecot's
    LMTP, so replies can be read over IMAP. With ``users`` (login ->
    password) AUTH PLAIN/LOGIN is offered (without TLS). With ``oauth``
    (access token -> the user it is for, or None) AUTH XOAUTH2 and
    OAUTHBEARER are offered; ``auth_attempts`` lists (mechanism, user) of
    every OAuth2 login tried. A sender in ``refused_senders`` is refused at
    MAIL FROM. With ``smtputf8`` the server offers SMTPUTF8 (RFC 6531).
    """

    def __init__(
        self,
        *,
        port: int | None = None,
        forward_to: DovecotServer | None = None,
        users: Mapping[str, str] | None = None,
        smtputf8: bool = False,
        oauth: Callable[[str], str | None] | None = None,
    ):
        self.host = HOST
        self.smtputf8 = smtputf8
        self.port = port or free_port()
        self.forward_to = forward_to
        self.users = dict(users) if users else None
        self.oauth = oauth
        self.auth_attempts: list[tuple[str, str | None]] = []
        #: Senders refused at MAIL FROM (553), lower case.
        self.refused_senders: set[str] = set()
        self.received: list[ReceivedMessage] = []
        self._lock = threading.Lock()
        self._failures: dict[str | None, str] = {}
        self._controller: Controller | None = None
        self._crash_after: int | None = None
        self._crash_thread: threading.Thread | None = None

    def start(self) -> None:
        if self._crash_thread is not None:
            self._crash_thread.join()
            self._crash_thread = None
        if self._controller is not None:
            return
        auth: dict[str, object] = {}
        if self.users is not None or self.oauth is not None:
            auth = {
                "authenticator": _Authenticator(self.users or {}),
                "auth_required": False,  # True would warn: AUTH without TLS
                "auth_require_tls": False,
            }
        handler = _OAuthHandler(self) if self.oauth is not None else _RecordingHandler(self)
        controller = Controller(
            handler, hostname=self.host, port=self.port, ready_timeout=10,
            enable_SMTPUTF8=self.smtputf8, **auth,
        )
        controller.start()
        self._controller = controller

    def stop(self) -> None:
        controller, self._controller = self._controller, None
        if controller is not None:
            controller.stop()

    @property
    def running(self) -> bool:
        return self._controller is not None

    def __enter__(self) -> SmtpServer:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def fail(self, kind: str, recipient: str | None = None) -> None:
        """Fail ``recipient`` (or every DATA) with a 451 or 550 reply."""
        if kind not in FAILURE_REPLIES:
            raise ValueError(f"failure kind {kind!r}: expected one of {sorted(FAILURE_REPLIES)}")
        with self._lock:
            self._failures[recipient.lower() if recipient else None] = FAILURE_REPLIES[kind]

    def heal(self, recipient: str | None = None) -> None:
        with self._lock:
            if recipient is None:
                self._failures.clear()
            else:
                self._failures.pop(recipient.lower(), None)

    def crash_after(self, count: int | None) -> None:
        """After the ``count``-th accepted message from now, drop the
        connection before the 250 reply and stop the server (None: never)."""
        with self._lock:
            self._crash_after = None if count is None else len(self.received) + count

    def wait_stopped(self) -> None:
        """Wait until a crash triggered by ``crash_after`` has stopped the server."""
        if self._crash_thread is not None:
            self._crash_thread.join()
            self._crash_thread = None

    def _crash_due(self) -> bool:
        with self._lock:
            if self._crash_after is not None and len(self.received) >= self._crash_after:
                self._crash_after = None
                return True
            return False

    def _crash_in_background(self) -> None:
        # Controller.stop() joins the loop thread, so it must run elsewhere.
        self._crash_thread = threading.Thread(target=self.stop, daemon=True)
        self._crash_thread.start()

    def _failure_for(self, recipient: str | None) -> str | None:
        with self._lock:
            return self._failures.get(recipient.lower() if recipient else None)

    def _record(self, message: ReceivedMessage) -> None:
        with self._lock:
            self.received.append(message)

    def messages(self) -> list[ReceivedMessage]:
        with self._lock:
            return list(self.received)


# ---------------------------------------------------------------- fixtures


@pytest.fixture
def dovecot() -> Iterator[DovecotServer]:
    """A fresh, running Dovecot; fails (never skips) when it is not installed."""
    from tests.support.dovecot import running_dovecot  # (it builds on this module)

    with running_dovecot() as server:
        yield server


@pytest.fixture
def smtp_server() -> Iterator[SmtpServer]:
    """A running recording SMTP server on a free loopback port."""
    server = SmtpServer()
    server.start()
    try:
        yield server
    finally:
        server.wait_stopped()
        server.stop()
