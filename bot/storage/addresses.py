"""The stored form of a mail address, the key of a manager (``managers.address``).

One mailbox has several spellings: case (handled by lower-casing before this),
an internationalised domain as Unicode or as its ASCII ``xn--`` form
(``bücher.example`` and ``xn--bcher-kva.example`` are one domain), and a
Unicode local part composed or decomposed. ``canonical_address`` gives every
spelling of one mailbox the same key: the domain as Unicode labels after the
UTS #46 mapping, the local part in NFC. So a manager cannot get two more teams
by writing from the other spelling of their own address.
"""

from __future__ import annotations

import unicodedata

import idna


def canonical_domain(domain: str) -> str:
    """``domain`` (lower-cased) in Unicode labels, or as given when it is no
    valid internationalised domain name (the address is then refused
    elsewhere, or stays a plain ASCII domain)."""
    if domain.isascii() and "xn--" not in domain:
        return domain
    try:
        return str(idna.decode(idna.encode(domain, uts46=True)))
    except (idna.IDNAError, UnicodeError):
        return domain


def canonical_address(address: str) -> str:
    """The key of the lower-cased ``local@domain`` ``address``."""
    local, at, domain = address.rpartition("@")
    if not at:
        return address
    if not local.isascii():
        local = unicodedata.normalize("NFC", local)
    return f"{local}@{canonical_domain(domain)}"


__all__ = ["canonical_address", "canonical_domain"]
