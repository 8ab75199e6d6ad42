"""The spelling of one plain mail address (RFC 5322, RFC 6531 for Unicode):
``check_address`` for what a player, the game master or the configuration
gives, ``ascii_domain`` for the DNS's form of a domain, ``envelope_address``
for the SMTP envelope. Kept apart from the composer of mails
(``bot.mail.compose``), so that reading the configuration does not load it."""

from __future__ import annotations

import re
import unicodedata

import idna

from bot.errors import TurnitedError


class ComposeError(TurnitedError, ValueError):
    """A mail that cannot be composed safely."""


class InvalidAddressError(ComposeError):
    """Not exactly one plain mail address."""

    def __init__(self, role: str, value: object, reason: str) -> None:
        self.role = role
        self.value = value
        super().__init__(
            f"{role} address {value!r} is not usable: {reason}; expected exactly one plain "
            f"address such as 'hans.meier@example.org'"
        )


#: Control characters and line separators, refused in an address and in a header.
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
#: RFC 6531 atext: the ASCII atext and any non-ASCII character (controls and
#: spaces are refused before).
_ATOM = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~\-\u0080-\U0010ffff]+"
_LOCAL = re.compile(rf"^{_ATOM}(?:\.{_ATOM})*$")
_ASCII_DOMAIN = re.compile(
    r"^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+(?:[A-Za-z]{2,63}|xn--[A-Za-z0-9-]{1,59})$"
)
_UNICODE_SPACE = re.compile(r"[\s\u00a0\u1680\u2000-\u200f\u202f\u205f\u3000\ufeff]")


def check_address(value: object, role: str = "recipient") -> str:
    """Return ``value`` stripped (NFC) if it is exactly one plain address
    (``local@domain.tld``; Unicode local parts and domains included: the
    domain must be IDNA-encodable); raise ``InvalidAddressError`` otherwise."""
    if not isinstance(value, str):
        raise InvalidAddressError(role, value, "not text")
    stripped = unicodedata.normalize("NFC", value.strip())
    if CONTROL.search(stripped):
        raise InvalidAddressError(role, value, "it contains a line break or control character")
    if any(sep in stripped for sep in ",;<>") or _UNICODE_SPACE.search(stripped):
        raise InvalidAddressError(
            role, value, "it contains a list separator, angle bracket or space (one address only)"
        )
    if len(stripped.encode("utf-8")) > 254:
        raise InvalidAddressError(role, value, "longer than 254 bytes")
    local, at, domain = stripped.rpartition("@")
    if not at or not _LOCAL.match(local) or len(local.encode("utf-8")) > 64:
        raise InvalidAddressError(role, value, "not of the form local-part@domain")
    ascii_domain(domain, role=role, value=value)
    return stripped


def ascii_domain(domain: str, *, role: str = "recipient", value: object = None) -> str:
    """``domain`` as the DNS and every server know it: Unicode labels
    IDNA-encoded (UTS #46 mapping, ``bücher.example`` -> ``xn--bcher-kva.example``);
    ``InvalidAddressError`` if it is no domain name."""
    try:
        encoded = domain if domain.isascii() else idna.encode(domain, uts46=True).decode("ascii")
    except (idna.IDNAError, UnicodeError) as exc:
        raise InvalidAddressError(
            role, value if value is not None else domain, f"the domain is not usable ({exc})"
        ) from None
    if not _ASCII_DOMAIN.match(encoded):
        raise InvalidAddressError(
            role, value if value is not None else domain, "not of the form local-part@domain"
        )
    return encoded


def envelope_address(address: str, *, smtputf8: bool) -> str:
    """``address`` for the SMTP envelope: as it is when the server speaks
    SMTPUTF8, else with the domain IDNA-encoded; ``InvalidAddressError`` when
    the local part is not ASCII and the server does not offer SMTPUTF8."""
    if not address:
        return address  # the null sender <>
    local, _, domain = address.rpartition("@")
    if smtputf8:
        return address
    if not local.isascii():
        raise InvalidAddressError(
            "recipient", address,
            "its local part is not ASCII and the mail server does not offer SMTPUTF8",
        )
    return f"{local}@{ascii_domain(domain)}"
