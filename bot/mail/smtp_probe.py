"""The SMTP half of ``turnited check --connect``: connect (and TLS), log in
the way the bot will, and whether the server takes the bot's address as
sender: ``MAIL FROM`` and then ``RSET``, so nothing is ever sent. Every step
is a ``bot.mail.probe.Step``; the first step that fails ends the check.

The connection is opened by ``bot.mail.smtp_login``, as the sender opens
it; every socket operation waits at most ``timeout`` seconds.
"""

from __future__ import annotations

import smtplib

from bot.mail.address_check import InvalidAddressError, envelope_address
from bot.mail.probe import Recorder, Step, connect_problem, login_problem, tls_version
from bot.mail.smtp_login import close_quietly, connect, log_in, offered_mechanisms, secure
from bot.mail.smtp_settings import SmtpSettings
from bot.mail.transport import TransportConfigError, TransportError


def probe_smtp(s: SmtpSettings, *, mail_from: str, timeout: float) -> list[Step]:
    """The steps of checking the SMTP settings ``s`` against the server,
    with ``mail_from`` as the envelope sender."""
    r = Recorder("smtp", host=s.host, port=s.port, security=s.security)
    try:
        conn = connect(s, timeout=timeout)
    except smtplib.SMTPConnectError as exc:
        greeting = _reply(exc.smtp_error)[:120]
        r.problem("connect", ("not_smtp", {"greeting": greeting}) if exc.smtp_code < 200 else
                  ("smtp_refuses_client", {"reply": f"{exc.smtp_code} {greeting}"}))
        return r.steps
    except smtplib.SMTPServerDisconnected as exc:
        r.problem("connect", _disconnected(exc, s, timeout))
        return r.steps
    except Exception as exc:
        r.problem("connect", connect_problem(exc, security=s.security, timeout=timeout,
                                             ca_file=s.ca_file))
        return r.steps
    try:
        r.ok("connect", "connected")
        if _tls(conn, s, r, timeout) and _login(conn, s, r):
            _sender(conn, mail_from, r)
    except smtplib.SMTPServerDisconnected as exc:
        r.problem("connect", _disconnected(exc, s, timeout))
    except OSError as exc:
        r.problem("connect", connect_problem(exc, security=s.security, timeout=timeout,
                                             ca_file=s.ca_file))
    finally:
        try:
            conn.quit()
        except (OSError, smtplib.SMTPException):
            close_quietly(conn)
    return r.steps


def _tls(conn: smtplib.SMTP, s: SmtpSettings, r: Recorder, timeout: float) -> bool:
    if s.security == "none":
        r.note("tls", "plain")
        return True
    if s.security == "ssl":
        r.ok("tls", "tls_ok", version=tls_version(conn.sock))
        return True
    try:
        secure(conn, s)
    except TransportError:
        r.problem("tls", ("no_starttls", {"tls_port": 465}))
        return False
    except (OSError, smtplib.SMTPException) as exc:
        r.problem("tls", connect_problem(exc, security=s.security, timeout=timeout,
                                         ca_file=s.ca_file))
        return False
    r.ok("tls", "starttls_ok", version=tls_version(conn.sock))
    return True


def _login(conn: smtplib.SMTP, s: SmtpSettings, r: Recorder) -> bool:
    if not s.username:
        r.ok("login", "no_login")
        return True
    source = f"${s.password_env}" if s.password_env else "mail.smtp.password"
    try:
        password = s.login_password() if s.auth == "password" else None
        method = log_in(conn, s, password)
    except TransportConfigError as exc:
        r.problem("login", ("password_unset", {"env": str(exc.value)}))
        return False
    except smtplib.SMTPAuthenticationError as exc:
        reply = f"{exc.smtp_code} {_reply(exc.smtp_error)}"
        r.problem("login", ("login_refused", {"user": s.username, "method": "LOGIN",
                                              "reply": reply, "source": source}))
        return False
    except smtplib.SMTPNotSupportedError:
        r.problem("login", ("no_auth", {}))
        return False
    except TransportError as exc:
        problem = login_problem(exc, source=source)
        if problem is None:
            raise
        r.problem("login", problem)
        return False
    except smtplib.SMTPServerDisconnected:
        raise
    except smtplib.SMTPException:  # "No suitable authentication method found."
        r.problem("login", ("no_auth_method",
                            {"offered": ", ".join(offered_mechanisms(conn)) or "-"}))
        return False
    r.ok("login", "logged_in", user=s.username, method=method)
    return True


def _sender(conn: smtplib.SMTP, mail_from: str, r: Recorder) -> None:
    try:
        address = envelope_address(mail_from, smtputf8=conn.has_extn("smtputf8"))
    except InvalidAddressError as exc:
        r.problem("sender", ("sender_refused", {"address": mail_from, "reply": str(exc)}))
        return
    code, reply = conn.mail(address)
    try:
        if code == 250:
            r.ok("sender", "sender_ok", address=mail_from)
        else:
            r.problem("sender", ("sender_refused",
                                 {"address": mail_from, "reply": f"{code} {_reply(reply)}"}))
    finally:
        conn.rset()


def _disconnected(exc: smtplib.SMTPServerDisconnected, s: SmtpSettings,
                  timeout: float) -> tuple[str, dict[str, object]]:
    """smtplib reports a time-out while reading as a lost connection."""
    cause = exc.__cause__ or exc.__context__
    if isinstance(cause, OSError):
        return connect_problem(cause, security=s.security, timeout=timeout, ca_file=s.ca_file)
    return "lost", {"detail": str(exc)}


def _reply(reply: bytes | str) -> str:
    return reply.decode("utf-8", "replace") if isinstance(reply, bytes) else str(reply)
