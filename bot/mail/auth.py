"""Optional sender trust: the receiving server's ``Authentication-Results`` (RFC 8601).

When the bot's own mail server checks SPF, DKIM and DMARC and records the
verdicts in an ``Authentication-Results`` header, ``sender_trust`` reads
them (with the maintained ``authres`` parser) and says whether the mail's
From is forged:

* only a header whose authserv-id is the configured one counts (the topmost
  such header: the receiving server adds its own on top); headers with other
  ids, or added by the sender, are ignored;
* a DMARC verdict decides when there is one: ``fail`` is forged, anything
  else is not;
* without a DMARC verdict the mail is forged when SPF ``fail``\\s and no DKIM
  signature passed (SPF ``softfail``/``neutral`` alone is not enough);
* no header with the configured id, or one that cannot be parsed: unknown
  (not forged) — the sender trust is a filter on top, never a reason to
  drop a mail nobody checked.

A game master's mail (RULES.md §13) must do more than not fail:
``sender_verified`` says whether the configured server **passed** the From's
domain — DMARC ``pass``, or without a DMARC verdict (or ``none``) a DKIM
``pass`` whose ``header.d`` is that domain (or a parent of it) or an SPF
``pass`` whose ``smtp.mailfrom`` is at that domain. No header of the
configured server, or one that cannot be read, is no pass.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import authres

__all__ = ["SenderTrust", "Verification", "sender_trust", "sender_verified"]


@dataclass(frozen=True, slots=True)
class SenderTrust:
    """The verdict on one mail's sender: ``forged`` and why (for the ledger)."""

    forged: bool
    reason: str
    checked: bool = True


UNCHECKED = SenderTrust(False, "no Authentication-Results of the configured server", False)


def sender_trust(values: Iterable[str], authserv_id: str | None) -> SenderTrust:
    """The verdict from a mail's ``Authentication-Results`` header values (in
    header order, topmost first) for the server named ``authserv_id``; without
    an ``authserv_id`` nothing is checked."""
    if not authserv_id:
        return SenderTrust(False, "sender trust is off", False)
    wanted = authserv_id.strip().lower()
    for value in values:
        head = value.strip().split(";", 1)[0].split()
        if not head or head[0].lower() != wanted:
            continue  # another server's (or a forged) header
        try:
            header = authres.AuthenticationResultsHeader.parse_value(value)
        except authres.AuthResError as exc:
            return SenderTrust(False, f"Authentication-Results of {wanted} unreadable ({exc})",
                               False)
        return _verdict(wanted, {(r.method or "").lower(): (r.result or "").lower()
                                 for r in reversed(header.results)}, header.results)
    return UNCHECKED


def _verdict(server: str, first: dict[str, str], results: list[object]) -> SenderTrust:
    dkim = {str(getattr(r, "result", "")).lower() for r in results
            if str(getattr(r, "method", "")).lower() == "dkim"}
    dmarc = first.get("dmarc")
    if dmarc and dmarc != "none":
        if dmarc == "fail":
            return SenderTrust(True, f"{server}: dmarc=fail")
        return SenderTrust(False, f"{server}: dmarc={dmarc}")
    spf = first.get("spf")
    if spf == "fail" and "pass" not in dkim:
        what = "/".join(sorted(dkim)) or "absent"
        return SenderTrust(True, f"{server}: spf=fail, dkim={what}")
    return SenderTrust(False, f"{server}: spf={spf or 'absent'}, dkim="
                       f"{'/'.join(sorted(dkim)) or 'absent'}")


@dataclass(frozen=True, slots=True)
class Verification:
    """Whether the configured server passed the From's domain, and why (for
    the ledger and the game master's notice)."""

    passed: bool
    reason: str


def sender_verified(values: Iterable[str], authserv_id: str, from_address: str) -> Verification:
    """Did the server named ``authserv_id`` pass ``from_address``'s domain
    (module doc)? ``values``: the mail's ``Authentication-Results`` header
    values, topmost first."""
    wanted = authserv_id.strip().lower()
    domain = from_address.rpartition("@")[2].strip().lower().rstrip(".")
    for value in values:
        head = value.strip().split(";", 1)[0].split()
        if not head or head[0].lower() != wanted:
            continue
        try:
            header = authres.AuthenticationResultsHeader.parse_value(value)
        except authres.AuthResError as exc:
            return Verification(False, f"Authentication-Results of {wanted} unreadable ({exc})")
        return _passed(wanted, domain, header.results)
    return Verification(False, f"no Authentication-Results of {wanted}")


def _passed(server: str, domain: str, results: list[object]) -> Verification:
    def of(method: str) -> list[tuple[str, dict[str, str]]]:
        return [(str(getattr(r, "result", "")).lower(),
                 {f"{p.type}.{p.name}".lower(): str(p.value).lower()
                  for p in getattr(r, "properties", ())})
                for r in results if str(getattr(r, "method", "")).lower() == method]

    dmarc = [result for result, _ in of("dmarc")]
    if dmarc and dmarc[0] not in ("none", ""):
        return Verification(dmarc[0] == "pass", f"{server}: dmarc={dmarc[0]}")
    for result, props in of("dkim"):
        if result == "pass" and _aligned(props.get("header.d", ""), domain):
            return Verification(True, f"{server}: dkim=pass header.d={props['header.d']}")
    for result, props in of("spf"):
        mailfrom = props.get("smtp.mailfrom", "").rpartition("@")[2]
        if result == "pass" and mailfrom and mailfrom == domain:
            return Verification(True, f"{server}: spf=pass smtp.mailfrom={mailfrom}")
    seen = ", ".join(f"{m}={r}" for m in ("dmarc", "dkim", "spf") for r, _ in of(m)) or "none"
    return Verification(False, f"{server}: no pass for {domain} ({seen})")


def _aligned(signer: str, domain: str) -> bool:
    """A DKIM signature of ``signer`` speaks for ``domain`` (the same, or a
    parent domain with a dot of its own: never a top-level domain)."""
    signer = signer.strip().rstrip(".")
    return "." in signer and (domain == signer or domain.endswith("." + signer))
