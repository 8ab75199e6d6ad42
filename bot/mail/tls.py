"""TLS for the mail transports: the context (the system's trusted CAs, or
the game master's own ``ca_file`` for a self-signed or private CA) and one
line that names the real cause of a certificate error.

OpenSSL reports every failed verification as ``CERTIFICATE_VERIFY_FAILED``;
its ``verify_code`` tells apart what a game master must fix: a certificate
for another host name (fix ``host``), an issuer nobody trusts (give
``ca_file``), or an expired certificate (renew it on the server).
"""

from __future__ import annotations

import ssl
from pathlib import Path

from bot.mail.transport import TransportError

# OpenSSL's X509_V_ERR_* codes (x509_vfy.h).
_EXPIRED = {10: "it has expired", 9: "it is not valid yet"}
_UNTRUSTED = {
    18: "it is self-signed",
    19: "its chain ends in a self-signed CA nobody here trusts",
    20: "its issuer is not among the trusted CAs",
    21: "its issuer is not among the trusted CAs",
    2: "its issuer is not among the trusted CAs",
}
#: X509_V_ERR_HOSTNAME_MISMATCH and X509_V_ERR_IP_ADDRESS_MISMATCH.
_HOST_MISMATCH = {62, 64}


def client_context(ca_file: Path | None, *, key: str = "mail") -> ssl.SSLContext:
    """A verifying client context; with ``ca_file`` it trusts exactly the
    CA certificates in that PEM file (and not the system's). A file that
    cannot be read as PEM certificates is a ``TransportError`` naming
    ``key.ca_file`` (not retryable: a person must fix it)."""
    if ca_file is None:
        return ssl.create_default_context()
    try:
        return ssl.create_default_context(cafile=str(ca_file))
    except (OSError, ssl.SSLError) as exc:
        reason = getattr(exc, "strerror", None) or getattr(exc, "reason", None) or str(exc)
        raise TransportError(
            f"{key}.ca_file {str(ca_file)!r} cannot be used ({reason}); it must be a "
            "readable PEM file of CA certificates ('-----BEGIN CERTIFICATE-----')",
            retryable=False,
        ) from exc


def describe_verify_error(exc: ssl.SSLCertVerificationError, *, host: str, endpoint: str,
                          key: str, ca_file: Path | None) -> str:
    """One line: which certificate failed, the real cause, and the fix."""
    code = exc.verify_code
    if code in _HOST_MISMATCH:
        return (f"TLS certificate of {endpoint} is not for the host name {host!r} "
                f"({exc.verify_message}); set {key}.host to the name on the certificate")
    if code in _EXPIRED:
        return (f"TLS certificate of {endpoint} is not trusted: {_EXPIRED[code]} "
                f"({exc.verify_message}); the server needs a current certificate")
    if code in _UNTRUSTED:
        trusted = f"the CAs in {key}.ca_file ({ca_file})" if ca_file else "the system's CAs"
        fix = (f"check that {key}.ca_file holds the CA that issued it" if ca_file else
               f"set {key}.ca_file to the PEM file of the CA (or of the self-signed "
               "certificate)")
        return (f"TLS certificate of {endpoint} has an untrusted issuer: {_UNTRUSTED[code]}, "
                f"not trusted by {trusted} ({exc.verify_message}); {fix}")
    return (f"TLS certificate of {endpoint} is not trusted ({exc.verify_message}); "
            f"check {key}.host and {key}.ca_file")


def verify_problem(exc: ssl.SSLCertVerificationError) -> str:
    """What a failed verification means for the game master: ``host`` (a
    certificate for another name), ``expired`` (or not valid yet),
    ``untrusted`` (an issuer nobody here trusts) or ``other``."""
    code = exc.verify_code
    if code in _HOST_MISMATCH:
        return "host"
    if code in _EXPIRED:
        return "expired"
    if code in _UNTRUSTED:
        return "untrusted"
    return "other"
