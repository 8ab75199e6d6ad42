"""The IMAP half of ``turnited check --connect``: connect (and TLS), log in
the way the bot will, the folder it reads, the processed and quarantine
folders (created when missing, as the bot would at their first use), and
IDLE. Every step is a ``bot.mail.probe.Step``; the first step that fails
ends the check of this server, except that the folders are each looked at.

The connection is opened by ``bot.mail.imap_login``, as the running bot
opens it; every socket operation waits at most ``timeout`` seconds.
"""

from __future__ import annotations

import imaplib

from imapclient import IMAPClient
from imapclient.exceptions import CapabilityError

from bot.mail.imap_login import connect, log_in, secure, shutdown, text_of
from bot.mail.imap_settings import ImapSettings
from bot.mail.probe import Recorder, Step, connect_problem, login_problem, tls_version

#: Folders named in a "does not exist" line, at most.
FOLDERS_SHOWN = 12


def probe_imap(s: ImapSettings, *, timeout: float) -> list[Step]:
    """The steps of checking the IMAP settings ``s`` against the server."""
    r = Recorder("imap", host=s.host, port=s.port, security=s.security)
    try:
        client = connect(s, timeout=timeout)
    except Exception as exc:
        if isinstance(exc, imaplib.IMAP4.error):  # it answered, but not as IMAP
            r.problem("connect", ("not_imap", {"greeting": text_of(exc)[:120]}))
        else:
            r.problem("connect", connect_problem(exc, security=s.security, timeout=timeout,
                                                 ca_file=s.ca_file))
        return r.steps
    try:
        r.ok("connect", "connected")
        if _tls(client, s, r, timeout) and _login(client, s, r):
            _folders(client, s, r)
            _idle(client, s, r)
    except (OSError, imaplib.IMAP4.error) as exc:  # the server went away half-way
        r.problem("connect", connect_problem(exc, security=s.security, timeout=timeout,
                                             ca_file=s.ca_file)
                  if isinstance(exc, OSError) else ("server_error", {"detail": text_of(exc)}))
    finally:
        try:
            client.logout()
        except Exception:
            shutdown(client)
    return r.steps


def _tls(client: IMAPClient, s: ImapSettings, r: Recorder, timeout: float) -> bool:
    if s.security == "none":
        r.note("tls", "plain")
        return True
    if s.security == "ssl":
        r.ok("tls", "tls_ok", version=tls_version(client.socket()))
        return True
    try:
        secure(client, s)
    except CapabilityError:
        r.problem("tls", ("no_starttls", {"tls_port": 993}))
        return False
    except Exception as exc:
        r.problem("tls", connect_problem(exc, security=s.security, timeout=timeout,
                                         ca_file=s.ca_file))
        return False
    r.ok("tls", "starttls_ok", version=tls_version(client.socket()))
    return True


def _login(client: IMAPClient, s: ImapSettings, r: Recorder) -> bool:
    try:
        method = log_in(client, s)
    except Exception as exc:
        problem = login_problem(exc, source=_password_source(s))
        if problem is None:
            if not isinstance(exc, imaplib.IMAP4.error):
                raise
            problem = ("server_error", {"detail": text_of(exc)})
        r.problem("login", problem)
        return False
    r.ok("login", "logged_in", user=s.username, method=method)
    return True


def _password_source(s: ImapSettings) -> str:
    return f"${s.password_env}" if s.password_env else "mail.imap.password"


def _folders(client: IMAPClient, s: ImapSettings, r: Recorder) -> None:
    if client.folder_exists(s.folder):
        info = client.select_folder(s.folder, readonly=True)
        r.ok("folder", "folder_ok", folder=s.folder, count=int(info.get(b"EXISTS", 0)))
    else:
        names = [name for _flags, _delimiter, name in client.list_folders()]
        shown = ", ".join(names[:FOLDERS_SHOWN]) + (", ..." if len(names) > FOLDERS_SHOWN else "")
        r.problem("folder", ("folder_missing", {"folder": s.folder, "existing": shown or "-"}))
    for setting, folder in (("processed_folder", s.processed_folder),
                            ("quarantine_folder", s.quarantine_folder)):
        if folder is None:
            r.ok("folder", "folder_none", setting=setting)
            continue
        if client.folder_exists(folder):
            r.ok("folder", "folder_exists", folder=folder, setting=setting)
            continue
        try:
            client.create_folder(folder)
        except imaplib.IMAP4.error as exc:
            r.problem("folder", ("folder_create_failed",
                                 {"folder": folder, "setting": setting, "detail": text_of(exc)}))
        else:
            r.ok("folder", "folder_created", folder=folder, setting=setting)


def _idle(client: IMAPClient, s: ImapSettings, r: Recorder) -> None:
    seconds = f"{s.poll_seconds:g}"
    if not s.idle:
        r.note("idle", "idle_off", seconds=seconds)
    elif client.has_capability("IDLE"):
        r.ok("idle", "idle_ok")
    else:
        r.note("idle", "idle_missing", seconds=seconds)
