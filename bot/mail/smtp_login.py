"""Opening an SMTP connection: connect and greet (implicit TLS with 'ssl'),
STARTTLS, and log in with a password or an OAuth2 token.

The sender (``bot.mail.smtp_sender``) and the connection check
(``bot.mail.smtp_probe``) both open their connections here, so the check
tries exactly what the running bot does.
"""

from __future__ import annotations

import logging
import smtplib

from bot.mail.oauth import SaslResponder, choose_mechanism
from bot.mail.smtp_settings import SmtpSettings
from bot.mail.tls import client_context
from bot.mail.transport import LoginRefusedError, NoLoginMechanismError, TransportError

log = logging.getLogger(__name__)


def connect(s: SmtpSettings, *, timeout: float | None = None) -> smtplib.SMTP:
    """A connection that was greeted and has said EHLO (with 'ssl' over TLS
    from the start); not yet secured with STARTTLS, not logged in."""
    wait = timeout if timeout is not None else s.timeout
    conn: smtplib.SMTP
    if s.security == "ssl":
        conn = smtplib.SMTP_SSL(s.host, s.port, local_hostname=s.helo, timeout=wait,
                                context=client_context(s.ca_file, key="mail.smtp"))
    else:
        conn = smtplib.SMTP(s.host, s.port, local_hostname=s.helo, timeout=wait)
    try:
        conn.ehlo()
    except BaseException:
        close_quietly(conn)
        raise
    return conn


def secure(conn: smtplib.SMTP, s: SmtpSettings) -> None:
    """STARTTLS and EHLO again when the settings ask for it; a server that
    does not offer STARTTLS is a ``TransportError`` (not retryable)."""
    if s.security != "starttls":
        return
    if not conn.has_extn("starttls"):
        raise TransportError(
            f"SMTP server {s.endpoint} does not offer STARTTLS; use security "
            f"'ssl' (usually port 465), or 'none' only on a trusted network",
            endpoint=s.endpoint, retryable=False)
    conn.starttls(context=client_context(s.ca_file, key="mail.smtp"))
    conn.ehlo()


def offered_mechanisms(conn: smtplib.SMTP) -> list[str]:
    """The SASL mechanisms the server offers now (EHLO's ``AUTH`` line)."""
    return conn.esmtp_features.get("auth", "").upper().split()


def log_in(conn: smtplib.SMTP, s: SmtpSettings, password: str | None) -> str | None:
    """Log in as the settings say (``password`` read by the caller); returns
    the method used, None without ``username``. smtplib's errors pass
    through for the caller to word; a refused token is a ``TransportError``
    (not retryable) that holds no token."""
    if not s.username:
        return None
    if s.auth != "oauth2":
        conn.login(s.username, password or "")
        return "LOGIN"
    if not conn.has_extn("auth"):
        raise smtplib.SMTPNotSupportedError("SMTP AUTH extension not supported by server.")
    offered = offered_mechanisms(conn)
    mechanism = choose_mechanism(offered)
    if mechanism is None:
        raise NoLoginMechanismError(
            f"SMTP server {s.endpoint} offers no OAuth2 login (XOAUTH2 or OAUTHBEARER; it "
            f"offers {', '.join(offered)}); set mail.smtp.auth to 'password', or check "
            "mail.smtp.host", endpoint=s.endpoint, wanted="oauth2", offered=tuple(offered))
    assert s.token_command is not None  # SmtpSettings checks it
    token = s.token_command.fetch("mail.smtp.token_command")
    responder = SaslResponder(mechanism, s.username, token)
    try:
        conn.auth(mechanism, responder, initial_response_ok=True)
    except smtplib.SMTPAuthenticationError as exc:
        reply = exc.smtp_error.decode("utf-8", "replace") if isinstance(
            exc.smtp_error, bytes) else str(exc.smtp_error)
        said = f"{exc.smtp_code} {reply}" + (f"; {responder.error}" if responder.error else "")
        said = said.replace(token, "***")
        raise LoginRefusedError(
            f"SMTP server {s.endpoint} refused the access token for {s.username!r} "
            f"({mechanism}: {said}); the token printed by mail.smtp.token_command "
            f"{s.token_command.shown!r} is expired, for another account or lacks the SMTP "
            "scope", endpoint=s.endpoint, user=s.username, method=mechanism,
            reply=said) from None
    return mechanism


def close_quietly(conn: smtplib.SMTP) -> None:
    try:
        conn.close()
    except OSError as exc:
        log.debug("SMTP close: %s", exc)
