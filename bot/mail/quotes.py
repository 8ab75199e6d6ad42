"""Cut a mail text down to what the writer typed in *this* mail.

``strip_quotes`` drops quoted reply text (lines starting with ``>``),
signatures, mobile-client footers and everything after a reply or forward
header, in German and English (RULES.md §9). Old lineups quoted from an
earlier mail must never be read again.

Two kinds of reply header are told apart:

* an *attribution* ("Am 02.04.2012 um 18:26 schrieb Hans:", "On ..., X wrote:",
  or any line ending in ``:`` that introduces a ``>`` block, e.g. Russian
  "... написал:") that is followed by ``>`` lines only introduces a quote;
  the attribution and the quoted lines are dropped and reading goes on
  (bottom posting and interleaved answers keep working);
* a header followed by unquoted text (Outlook's "-----Ursprüngliche
  Nachricht-----", the "Von:/Gesendet:" block, forwards, or an attribution
  followed by the pasted original) ends the fresh text.
"""

from __future__ import annotations

import re

__all__ = ["is_quote_line", "strip_quotes"]

#: How many physical lines a wrapped attribution may span.
_MAX_ATTRIBUTION_LINES = 3

_SIGNATURE = re.compile(r"^--[ \t]?$")

# "Sent from my iPhone", "Von meinem iPhone gesendet", "Gesendet von meinem Android" ...
_MOBILE_FOOTER = re.compile(
    r"^\s*(?:sent\s+(?:from|with|via)\s+(?:my\s+)?\S.*"
    r"|von\s+meinem\s+\S.*\s+gesendet\.?"
    r"|gesendet\s+(?:von|mit|vom)\s+(?:meinem\s+|der\s+|dem\s+)?\S.*"
    r"|get\s+outlook\s+for\s+\S.*"
    r"|diese\s+nachricht\s+wurde\s+von\s+meinem\s+\S.*\s+gesendet\.?)\s*$",
    re.IGNORECASE,
)

# "-----Original Message-----", "-----Ursprüngliche Nachricht-----",
# "---------- Forwarded message ---------", "-------- Weitergeleitete Nachricht --------",
# "-------- Original-Nachricht --------", "----- Original Message -----".
_SEPARATOR = re.compile(
    r"^\s*[-_=*]{2,}\s*(?:original(?:[- ]?nachricht|\s+message)|urspr(?:ü|ue|u)ngliche\s+nachricht"
    r"|forwarded\s+message|weitergeleitete\s+nachricht|message\s+d'origine|mensaje\s+original"
    r"|messaggio\s+originale|message\s+transf[ée]r[ée]|nachricht\s+weitergeleitet)\b.*$",
    re.IGNORECASE,
)

_FORWARD_INTRO = re.compile(
    r"^\s*(?:begin\s+forwarded\s+message|anfang\s+der\s+weitergeleiteten\s+nachricht"
    r"|weitergeleitete\s+nachricht|forwarded\s+message)\s*:\s*$",
    re.IGNORECASE,
)

# Outlook's header block of the quoted original: "Von: ..." followed by
# "Gesendet: ...", "An: ...", "Betreff: ..." (or the English/French names).
_BLOCK_FROM = re.compile(r"^\s*\*?(?:from|von|de|da|van)\*?\s*:", re.IGNORECASE)
_BLOCK_FIELD = re.compile(
    r"^\s*\*?(?:sent|date|gesendet|datum|envoy[ée]|enviado|to|an|cc|subject|betreff|objet"
    r"|asunto|oggetto|inviato)\*?\s*:",
    re.IGNORECASE,
)
_UNDERSCORES = re.compile(r"^\s*_{10,}\s*$")

# Strong attributions: German "Am <date> ... schrieb <name>:" and "<name> schrieb am <date>:",
# English "On <date>, <name> wrote:", and the same verb in a few other languages.
_ATTRIBUTION_VERB = re.compile(
    r"\b(?:schrieb|wrote|writes|a\s+écrit|escribió|ha\s+scritto|schreef|skrev|kirjoitti"
    r"|napisał|написал|написала|написал\(а\))\b",
    re.IGNORECASE,
)
_ATTRIBUTION_START = re.compile(r"^\s*(?:am|on|le|el|il|op|den|w\s+dniu)\s+\S", re.IGNORECASE)
_HAS_DIGIT_OR_AT = re.compile(r"[\d@]")
# A date at the start of a line (not a lineup such as 10-10-15-15-20 or 10/10/15/15/20).
_DATE_START = re.compile(
    r"^\s*(?:\d{1,2}\.\s?\d{1,2}\.\s?\d{2,4}(?![.\d])|\d{4}-\d{2}-\d{2}(?![-\d])"
    r"|\d{1,2}/\d{1,2}/\d{2,4}(?![/\d]))"
)


def is_quote_line(line: str) -> bool:
    """A line of quoted text: starts with ``>`` (after optional blanks)."""
    return line.lstrip().startswith(">")


def strip_quotes(text: str) -> str:
    """The fresh part of ``text``: without quotes, signatures, and quoted originals.

    Leading and trailing blank lines are removed; inner line structure is kept
    (line numbers of the grammar refer to this text).
    """
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        if is_quote_line(line):
            i += 1
            continue
        if _ends_fresh_text(lines, i):
            break
        span = _attribution_span(lines, i)
        if span:
            following = _next_nonblank(lines, i + span)
            if following is not None and is_quote_line(lines[following]):
                # Attribution of a quote: drop it, the quote lines are dropped one by one.
                i += span
                continue
            if following is None or _is_strong_attribution(lines, i, span):
                break
        out.append(line.rstrip())
        i += 1
    while out and not out[-1].strip():
        out.pop()
    while out and not out[0].strip():
        out.pop(0)
    return "\n".join(out)


def _ends_fresh_text(lines: list[str], i: int) -> bool:
    line = lines[i]
    stripped = line.strip()
    if _SIGNATURE.match(line.rstrip("\r\n")) or stripped == "--":
        return True
    if not stripped:
        return False
    if _SEPARATOR.match(stripped) or _FORWARD_INTRO.match(stripped):
        return True
    if _MOBILE_FOOTER.match(stripped):
        return True
    if _UNDERSCORES.match(stripped):
        following = _next_nonblank(lines, i + 1)
        return following is not None and bool(_BLOCK_FROM.match(lines[following]))
    return bool(_BLOCK_FROM.match(stripped)) and _is_header_block(lines, i)


def _is_header_block(lines: list[str], i: int) -> bool:
    """``lines[i]`` is "Von: ..." and at least two more header fields follow closely."""
    fields = 0
    for line in lines[i + 1 : i + 8]:
        if _BLOCK_FIELD.match(line):
            fields += 1
        elif line.strip() and not line.startswith((" ", "\t")):
            break
    return fields >= 2


def _attribution_span(lines: list[str], i: int) -> int:
    """Number of lines (1..3) of an attribution starting at ``lines[i]``, else 0.

    An attribution ends with ``:``. It is recognised when it reads like
    "Am ... schrieb ...:" / "On ... wrote:" (possibly wrapped over several
    lines), or when it is any line ending in ``:`` directly followed by a
    ``>`` block. A wrapped attribution must start like one (Am/On/..., a
    date, or an address) and no later line of it may start one itself, so a
    fresh line just above an attribution is never swallowed.
    """
    first = lines[i].strip()
    if not first or len(first) > 400:
        return 0
    for span in range(1, _MAX_ATTRIBUTION_LINES + 1):
        if i + span > len(lines):
            break
        chunk = [part.strip() for part in lines[i : i + span]]
        if span > 1 and (
            not chunk[-1] or not _starts_wrapped(first) or _ATTRIBUTION_START.match(chunk[-1])
        ):
            break
        joined = " ".join(chunk)
        if not joined.endswith(":"):
            continue
        if _ATTRIBUTION_VERB.search(joined) and _HAS_DIGIT_OR_AT.search(joined):
            return span
        following = _next_nonblank(lines, i + span)
        if following is not None and is_quote_line(lines[following]):
            return span
    return 0


def _starts_wrapped(first: str) -> bool:
    return bool(_ATTRIBUTION_START.match(first) or _DATE_START.match(first) or "@" in first)


def _is_strong_attribution(lines: list[str], i: int, span: int) -> bool:
    """An attribution that certainly is one: it ends the fresh text even when
    the original follows unquoted."""
    joined = " ".join(part.strip() for part in lines[i : i + span])
    return bool(
        _ATTRIBUTION_VERB.search(joined)
        and _HAS_DIGIT_OR_AT.search(joined)
        and (_ATTRIBUTION_START.match(joined) or _DATE_START.match(joined) or "@" in joined)
    )


def _next_nonblank(lines: list[str], start: int) -> int | None:
    for j in range(start, len(lines)):
        if lines[j].strip():
            return j
    return None
