"""Opening an IMAP connection: connect (implicit TLS with 'ssl'), STARTTLS,
log in with a password or an OAuth2 token, and one line for what failed.

The mailbox (``bot.mail.imap_source``) and the connection check
(``bot.mail.imap_probe``) both open their connections here, so the check
tries exactly what the running bot does.
"""

from __future__ import annotations

import imaplib
import logging
import re
import socket
import ssl

from imapclient import IMAPClient
from imapclient.exceptions import CapabilityError, LoginError

from bot.mail.imap_settings import ImapSettings
from bot.mail.oauth import SaslResponder, choose_mechanism
from bot.mail.tls import client_context, describe_verify_error
from bot.mail.transport import LoginRefusedError, NoLoginMechanismError, TransportError

log = logging.getLogger(__name__)

_BYTES_REPR = re.compile(r"""\bb(?:'([^']*)'|"([^"]*)")""")


def connect(s: ImapSettings, *, timeout: float | None = None) -> IMAPClient:
    """A connection that has read the greeting (and, with 'ssl', finished
    the TLS handshake); not yet secured with STARTTLS, not logged in."""
    context = client_context(s.ca_file, key="mail.imap") if s.security != "none" else None
    return IMAPClient(s.host, port=s.port, ssl=s.security == "ssl", ssl_context=context,
                      timeout=timeout if timeout is not None else s.timeout)


def secure(client: IMAPClient, s: ImapSettings) -> None:
    """STARTTLS when the settings ask for it (``CapabilityError`` when the
    server does not offer it)."""
    if s.security == "starttls":
        client.starttls(client_context(s.ca_file, key="mail.imap"))


def offered_mechanisms(client: IMAPClient) -> list[str]:
    """The SASL mechanisms the server offers now (``AUTH=...``)."""
    return [c.decode("ascii", "replace")[5:] for c in client.capabilities()
            if c.upper().startswith(b"AUTH=")]


def log_in(client: IMAPClient, s: ImapSettings) -> str:
    """Log in as the settings say; returns the method used (``LOGIN``,
    ``XOAUTH2`` or ``OAUTHBEARER``). A refusal is a ``TransportError``
    (not retryable) whose message holds neither password nor token."""
    if s.auth != "oauth2":
        password = s.login_password()
        try:
            client.login(s.username, password)
        except LoginError as exc:
            reply = redact(text_of(exc), password)
            raise LoginRefusedError(
                f"IMAP login as {s.username!r} at {s.endpoint} was rejected ({reply}); check "
                "imap.username and imap.password", endpoint=s.endpoint, user=s.username,
                method="LOGIN", reply=reply) from None
        return "LOGIN"
    offered = offered_mechanisms(client)
    mechanism = choose_mechanism(offered)
    if mechanism is None:
        raise NoLoginMechanismError(
            f"IMAP server {s.endpoint} offers no OAuth2 login (XOAUTH2 or OAUTHBEARER; it "
            f"offers {', '.join(offered) or 'no SASL mechanism'}); set mail.imap.auth to "
            "'password', or check mail.imap.host", endpoint=s.endpoint, wanted="oauth2",
            offered=tuple(offered))
    assert s.token_command is not None  # ImapSettings checks it
    token = s.token_command.fetch("mail.imap.token_command")
    responder = SaslResponder(mechanism, s.username, token)
    try:
        client.sasl_login(mechanism, responder)
    except LoginError as exc:
        said = redact(responder.error or text_of(exc), token)
        raise LoginRefusedError(
            f"IMAP server {s.endpoint} refused the access token for {s.username!r} "
            f"({mechanism}: {said}); the token printed by mail.imap.token_command "
            f"{s.token_command.shown!r} is expired, for another account or lacks the "
            "IMAP scope", endpoint=s.endpoint, user=s.username, method=mechanism,
            reply=said) from None
    return mechanism


def translate(exc: Exception, s: ImapSettings, operation: str, *,
              connected: bool, secret: str | None = None) -> TransportError | None:
    """One ``TransportError`` line for an exception of an IMAP ``operation``
    (None: not a transport problem, let it surface). ``connected`` says
    whether the connection was up before (a time-out then is no hint at
    the wrong security mode). ``secret`` (the password used) never shows."""
    where = s.endpoint
    secret = secret or s.password
    if isinstance(exc, TransportError):
        return exc
    if isinstance(exc, LoginError):
        return TransportError(
            redact(f"IMAP login as {s.username!r} at {where} was rejected "
                   f"({text_of(exc)}); check imap.username and imap.password", secret),
            endpoint=where, retryable=False)
    if isinstance(exc, CapabilityError) and s.security == "starttls":
        return TransportError(
            f"IMAP server at {where} does not offer STARTTLS; use security 'ssl' "
            f"(usually port 993), or 'none' only on a trusted network",
            endpoint=where, retryable=False)
    if isinstance(exc, ssl.SSLCertVerificationError):
        return TransportError(
            describe_verify_error(exc, host=s.host, endpoint=where, key="mail.imap",
                                  ca_file=s.ca_file),
            endpoint=where, retryable=False)
    if isinstance(exc, ssl.SSLError):
        hint = ("is this a plain IMAP port? security 'ssl' needs the IMAPS port (usually 993), "
                "'starttls' or 'none' the plain port (usually 143)")
        return TransportError(f"TLS with {where} failed ({exc.reason or exc}); {hint}",
                              endpoint=where, retryable=False)
    if isinstance(exc, socket.gaierror):
        return TransportError(
            f"cannot resolve IMAP host {s.host!r} ({exc.strerror}); check imap.host",
            endpoint=where)
    if isinstance(exc, (TimeoutError, socket.timeout)):
        hint = ("; if this is an IMAPS port (usually 993) use security 'ssl'"
                if not connected and s.security != "ssl" else "")
        return TransportError(f"IMAP {operation} at {where}: no answer within {s.timeout:g} s"
                              f"{hint}", endpoint=where)
    if isinstance(exc, (imaplib.IMAP4.abort, ConnectionError, EOFError, OSError)):
        return TransportError(
            f"IMAP {operation} at {where}: connection lost or refused ({text_of(exc)})",
            endpoint=where)
    if isinstance(exc, imaplib.IMAP4.error):
        return TransportError(
            redact(f"IMAP {operation} at {where} (folder {s.folder!r}) was refused: "
                   f"{text_of(exc)}", secret),
            endpoint=where, retryable=False)
    return None


def redact(text: str, secret: str | None) -> str:
    return text.replace(secret, "***") if secret else text


def text_of(exc: BaseException) -> str:
    """An exception's own words (an ``OSError``'s strerror, decoded bytes)."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    parts = []
    for arg in exc.args:
        parts.append(arg.decode("utf-8", "replace") if isinstance(arg, bytes) else str(arg))
    # imaplib and imapclient put the server's bytes into their messages as b'...'
    text = _BYTES_REPR.sub(lambda m: m.group(1) if m.group(1) is not None else m.group(2),
                           " ".join(parts))
    return text or type(exc).__name__


def shutdown(client: IMAPClient) -> None:
    """Close the socket without a word to the server (it may be gone)."""
    try:
        client.shutdown()
    except Exception as exc:  # the socket may already be gone
        log.debug("IMAP shutdown: %s", exc)
