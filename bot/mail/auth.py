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
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import authres

__all__ = ["SenderTrust", "sender_trust"]


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
