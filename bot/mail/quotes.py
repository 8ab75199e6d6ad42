"""Cut a mail text down to what the writer typed in *this* mail.

``strip_quotes`` drops quoted reply text (lines starting with ``>``),
signatures, mobile-client footers, mailing-list footers (Mailman, Google
Groups), the bot's own earlier reply (``BOT_REPLY_MARKER``, quoted or
pasted) and everything after a reply or forward header (RULES.md §9), in the
languages players write: de, en, fr, es, it, nl, da, sv, no, pl, pt, ru, cs,
tr, ja (and fi). Old lineups quoted from an earlier mail must never be read
again. Measured against mail-parser-reply, talon and quotequail in
docs/reading.md (``bench/bench_reading.py --compare-quotes``).

Two kinds of reply header are told apart:

* an *attribution* ("Am 02.04.2012 um 18:26 schrieb Hans:", "On ..., X wrote:",
  "On ..., X wrote" without its colon, Gmail's verbless
  "2017-11-24 16:32 GMT+01:00 X <x@y>:", or any line ending in ``:`` that
  introduces a ``>`` block) that is followed by ``>`` lines only introduces a quote;
  the attribution and the quoted lines are dropped and reading goes on
  (bottom posting and interleaved answers keep working);
* a header followed by unquoted text (Outlook's "-----Ursprüngliche
  Nachricht-----", the "Von:/Gesendet:" block in any of the languages,
  forwards, or an attribution followed by the pasted original) ends the
  fresh text.
"""

from __future__ import annotations

import re

__all__ = [
    "BOT_REPLY_MARKER",
    "is_bot_reply_id",
    "is_bot_reply_marker",
    "is_quote_line",
    "strip_quotes",
]

#: The line every reply of the bot carries (one bilingual line, the same in
#: every language, so it is recognised in any quoted or pasted form). Text
#: from this line on is never read as the writer's own.
BOT_REPLY_MARKER = "-- Turnited-Spielleitung · automatische Antwort · automatic reply --"
_MARKER = re.compile(
    r"turnited-spielleitung\W{1,8}automatische\s+antwort\W{1,8}automatic\s+reply", re.IGNORECASE
)
#: Message-IDs of the bot's own mails (made by ``bot.mail.compose.make_message_id``).
_BOT_ID = re.compile(r"^<turnited\.[a-z]+\.[0-9a-f]{8,64}@[^<>\s]{1,255}>$")

#: How many physical lines a wrapped attribution may span.
_MAX_ATTRIBUTION_LINES = 3
#: Longer lines are never attributions, separators or header fields.
_MAX_MARK_LINE = 400

_SIGNATURE = re.compile(r"^--[ \t]?$")

# "Sent from my iPhone", "Von meinem iPhone gesendet", "Gesendet von meinem Android" ...
_MOBILE_FOOTER = re.compile(
    r"^\s*(?:sent\s+(?:from|with|via)\s+(?:my\s+)?\S.*"
    r"|von\s+meinem\s+\S.*\s+gesendet\.?"
    r"|gesendet\s+(?:von|mit|vom)\s+(?:meinem\s+|der\s+|dem\s+)?\S.*"
    r"|get\s+outlook\s+for\s+\S.*"
    r"|envoy[ée]\s+de\s+mon\s+\S.*|enviado\s+desde\s+mi\s+\S.*|inviato\s+da\s+\S.*"
    r"|verzonden\s+(?:vanaf|met)\s+(?:mijn\s+)?\S.*|sendt\s+fra\s+min\s+\S.*"
    r"|skickat\s+fr[åa]n\s+min\s+\S.*|wys[łl]ane\s+z\s+\S.*|enviado\s+do\s+meu\s+\S.*"
    r"|отправлено\s+с\s+\S.*|odesl[áa]no\s+z\s+\S.*|iphone['’]?\s*umdan\s+g[öo]nderildi"
    r"|iphone\s*から送信|diese\s+nachricht\s+wurde\s+von\s+meinem\s+\S.*\s+gesendet\.?)\s*$",
    re.IGNORECASE,
)

# "-----Original Message-----", "-----Ursprüngliche Nachricht-----", "-----Message d'origine-----",
# "---------- Forwarded message ---------", "-------- Пересылаемое сообщение --------" ...
_SEPARATOR_WORDS = (
    r"original(?:[- ]?nachricht|\s+message|e\s+message)|urspr(?:ü|ue|u)ngliche\s+nachricht"
    r"|forwarded\s+message|weitergeleitete\s+nachricht|nachricht\s+weitergeleitet"
    r"|message\s+d['’]origine|message\s+original|message\s+transf[ée]r[ée]"
    r"|mensaje\s+original|mensaje\s+reenviado|messaggio\s+originale|messaggio\s+inoltrato"
    r"|oorspronkelijk\s+bericht|origineel\s+bericht|doorgestuurd\s+bericht"
    r"|oprindelig\s+meddelelse|videresendt\s+(?:besked|meddelelse|melding)"
    r"|ursprungligt\s+meddelande|vidarebefordrat\s+meddelande|opprinnelig\s+melding"
    r"|oryginalna\s+wiadomo|przekazana\s+wiadomo|wiadomo[śs][ćc]\s+(?:oryginalna|przekazana)"
    r"|mensagem\s+original|mensagem\s+encaminhada"
    r"|исходное\s+сообщение|пересылаемое\s+сообщение|пересланное\s+сообщение"
    r"|původní\s+zpráva|puvodni\s+zprava|přeposlaná\s+zpráva|preposlana\s+zprava"
    r"|orijinal\s+mesaj|iletilen\s+ileti|ileti[lm]en\s+mesaj"
    r"|alkuperäinen\s+viesti|元のメッセージ|転送されたメッセージ|オリジナルメッセージ"
)
_SEPARATOR = re.compile(rf"^\s*[-_=*]{{2,}}\s*(?:{_SEPARATOR_WORDS})", re.IGNORECASE)

_FORWARD_INTRO = re.compile(
    r"^\s*(?:begin\s+forwarded\s+message|anfang\s+der\s+weitergeleiteten\s+nachricht"
    r"|weitergeleitete\s+nachricht|forwarded\s+message|d[ée]but\s+du\s+message\s+r[ée]exp[ée]di[ée]"
    r"|inicio\s+del\s+mensaje\s+reenviado|inizio\s+messaggio\s+inoltrato"
    r"|begin\s+doorgestuurd\s+bericht|start\s+på\s+videresendt\s+(?:besked|meddelelse|melding)"
    r"|vidarebefordrat\s+brev|początek\s+przekazanej\s+wiadomości|início\s+da\s+mensagem\s+reencaminhada"
    r"|начало\s+переадресованного\s+сообщения|začátek\s+přeposlané\s+zprávy"
    r"|iletilen\s+ileti|転送されたメッセージ)\s*[:：]\s*$",
    re.IGNORECASE,
)

# Outlook's header block of the quoted original: "Von: ..." followed by
# "Gesendet: ...", "An: ...", "Betreff: ..." in the client's language.
_BLOCK_FROM = re.compile(
    r"^\s*\*{0,2}(?:from|von|de|da|van|fra|fr[åa]n|od|от|kimden|lähettäjä|差出人|送信者)"
    r"\*{0,2}\s*[:：]",
    re.IGNORECASE,
)
_BLOCK_FIELD = re.compile(
    r"^\s*\*{0,2}(?:sent|date|to|cc|bcc|subject|gesendet|datum|an|betreff|envoy[ée]|[àa]|objet"
    r"|enviado|enviada|para|asunto|fecha|inviato|oggetto|data|verzonden|aan|onderwerp"
    r"|sendt|til|emne|dato|kopi|skickat|till|ämne|kopia|wysłano|wys[łl]ano|do|dw|temat"
    r"|assunto|отправлено|дата|кому|копия|тема|odesláno|odeslano|komu|kopie|předmět|predmet"
    r"|gönderildi|gönderilme|tarih|kime|bilgi|konu|lähetetty|vastaanottaja|aihe"
    r"|送信日時|日付|宛先|件名)\*{0,2}\s*[:：]",
    re.IGNORECASE,
)
_UNDERSCORES = re.compile(r"^\s*_{10,}\s*$")
# Mailing-list footers (Mailman, Google Groups, ...): the rest of the mail is the list's.
_LIST_FOOTER = re.compile(
    r"^\s*(?:you\s+received\s+this\s+message\s+because\s+you\s+are\s+subscribed"
    r"|to\s+unsubscribe\s+from\s+this\s+group"
    r"|sie\s+erhalten\s+diese\s+nachricht,\s+weil\s+sie"
    r"|sie\s+haben\s+diese\s+nachricht\s+erhalten,\s+weil\s+sie"
    r"|vous\s+recevez\s+ce\s+message\s+car\s+vous\s+(?:êtes|etes)\s+abonn)",
    re.IGNORECASE,
)
_LIST_LINE = re.compile(r"mailing\s+list|mailingliste|listinfo|/mailman/|lists?\.", re.IGNORECASE)

# Attribution verbs: "Am <date> schrieb <name>:", "On <date>, <name> wrote:", "<name> a écrit :",
# and the same in the other languages players write.
_ATTRIBUTION_VERB = re.compile(
    r"\b(?:schrieb|hat\s+geschrieben|wrote|writes|a\s+écrit|écrit|escribió|ha\s+escrito"
    r"|ha\s+scritto|scrisse|schreef|heeft\s+geschreven|skrev|skreiv|har\s+skrevet|kirjoitti"
    r"|napisał\(a\)|napisała|napisał|napisal|escreveu|написал\(а\)|написала|написал|пишет"
    r"|napsal\(a\)|napsala|napsal|yazdı|írta|pisze)(?!\w)"
    r"|(?:は|が)書きました|のメッセージ",
    re.IGNORECASE,
)
# Attribution verbs that may end an attribution without its colon ("On ..., X wrote").
_VERB_AT_END = re.compile(
    r"(?:schrieb|wrote|a\s+écrit|escribió|ha\s+scritto|schreef|skrev|napisał(?:\(a\))?"
    r"|escreveu|написал(?:\(а\)|а)?|napsal(?:\(a\))?|yazdı|書きました)\s*$",
    re.IGNORECASE,
)
#: The attribution verb that ends a colonless attribution is within this many last characters.
_VERB_TAIL = 24
_ATTRIBUTION_START = re.compile(
    r"^\s*(?:am|on|le|el|il|op|den|d\.|w\s+dniu|em|dne|в|på|p[åa]|tarihinde)\s+\S",
    re.IGNORECASE,
)
_HAS_DIGIT_OR_AT = re.compile(r"[\d@]")
# A date at the start of a line (not a lineup such as 10-10-15-15-20 or 10/10/15/15/20).
_DATE_START = re.compile(
    r"^\s*(?:\d{1,2}\.\s?\d{1,2}\.\s?\d{2,4}(?![.\d])|\d{4}-\d{2}-\d{2}(?![-\d])"
    r"|\d{1,2}/\d{1,2}/\d{2,4}(?![/\d])|\d{4}年\d{1,2}月\d{1,2}日|\d{4}/\d{1,2}/\d{1,2}(?![/\d]))"
)
# Gmail's date-led attribution without a verb: "2017-11-24 16:32 GMT+01:00 X <x@y>:"
# (or "2017年11月24日(金) 16:32 X <x@y>:"): a date, a time, an address, a colon.
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d{2}(?!\d)")
_TIME = re.compile(r"\b\d{1,2}[:.]\d{2}\b")
_ADDRESS_END = re.compile(r"<?[^\s<>@]{1,64}@[^\s<>@]{1,255}>?\s*[:：]$")


def is_quote_line(line: str) -> bool:
    """A line of quoted text: starts with ``>`` (after optional blanks)."""
    return line.lstrip().startswith(">")


def is_bot_reply_marker(line: str) -> bool:
    """``line`` is the bot's reply marker (``BOT_REPLY_MARKER``), quoted or not."""
    return len(line) <= _MAX_MARK_LINE and bool(_MARKER.search(line))


def is_bot_reply_id(message_id: str | None) -> bool:
    """``message_id`` is one the bot made for its own mails (``<turnited.KIND.HEX@domain>``)."""
    return message_id is not None and bool(_BOT_ID.match(message_id.strip()))


def strip_quotes(text: str) -> str:
    """The fresh part of ``text``: without quotes, signatures, and quoted originals.

    Leading and trailing blank lines are removed; inner line structure is kept
    (line numbers of the grammar refer to this text). Linear in the size of
    ``text``: every line is looked at a bounded number of times, and no
    pattern is tried on a line longer than 400 characters.
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
        if len(line) > _MAX_MARK_LINE:
            out.append(line.rstrip())
            i += 1
            continue
        if is_bot_reply_marker(line):
            _drop_intro(out)
            break
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
    end = len(out)
    while end and not out[end - 1].strip():
        end -= 1
    begin = 0
    while begin < end and not out[begin].strip():
        begin += 1
    return "\n".join(out[begin:end])


def _drop_intro(out: list[str]) -> None:
    """Remove what introduces a pasted bot reply from the end of ``out``: blank
    lines, header fields ("Von: ...", "Betreff: ...") and one attribution."""
    while out:
        last = out[-1].strip()
        if not last or (
            len(last) <= _MAX_MARK_LINE
            and (_BLOCK_FROM.match(last) or _BLOCK_FIELD.match(last) or _UNDERSCORES.match(last))
        ):
            out.pop()
            continue
        if len(last) <= _MAX_MARK_LINE and last.endswith((":", "：")) and (
            _ATTRIBUTION_VERB.search(last) or _HAS_DIGIT_OR_AT.search(last)
        ):
            out.pop()
        break
    while out and not out[-1].strip():
        out.pop()


def _ends_fresh_text(lines: list[str], i: int) -> bool:
    line = lines[i]
    stripped = line.strip()
    if not stripped:
        return False
    if stripped == "--" or _SIGNATURE.match(line.rstrip("\r\n")):
        return True
    has_colon = ":" in stripped or "：" in stripped
    if stripped[0] in "-_=*":
        if _SEPARATOR.match(stripped):
            return True
        if _UNDERSCORES.match(stripped):
            following = _next_nonblank(lines, i + 1, limit=3)
            if following is None:
                return False
            nxt = lines[following]
            return bool(_BLOCK_FROM.match(nxt)) or (
                len(nxt) <= _MAX_MARK_LINE and bool(_LIST_LINE.search(nxt))
            )
    if has_colon and _FORWARD_INTRO.match(stripped):
        return True
    if _MOBILE_FOOTER.match(stripped) or _LIST_FOOTER.match(stripped):
        return True
    if has_colon and (_BLOCK_FROM.match(stripped) or _BLOCK_FIELD.match(stripped)):
        return _is_header_block(lines, i)
    return False


def _is_header_block(lines: list[str], i: int) -> bool:
    """``lines[i]`` starts a block of at least three header fields, one of
    them the sender ("Von:", "De :", "От:", ...), e.g. Outlook's
    "Von/Gesendet/An/Betreff" or GMX's "Gesendet/Von/An/Betreff"."""
    fields = 1
    has_from = bool(_BLOCK_FROM.match(lines[i]))
    for line in lines[i + 1 : i + 8]:
        if len(line) > _MAX_MARK_LINE:
            break
        if _BLOCK_FROM.match(line):
            has_from = True
            fields += 1
        elif _BLOCK_FIELD.match(line):
            fields += 1
        elif line.strip() and not line.startswith((" ", "\t")):
            break
    return has_from and fields >= 3


def _ends_attribution(joined: str) -> bool:
    """Ends like an attribution: with a colon, or with its verb ("On ..., X wrote")."""
    if joined.endswith((":", "：")):
        return True
    return bool(_VERB_AT_END.search(joined[-_VERB_TAIL:])) and _starts_wrapped(joined) and bool(
        _HAS_DIGIT_OR_AT.search(joined)
    )


def _attribution_span(lines: list[str], i: int) -> int:
    """Number of lines (1..3) of an attribution starting at ``lines[i]``, else 0.

    An attribution ends with ``:`` (or with its verb). It is recognised when
    it reads like "Am ... schrieb ...:" / "On ... wrote:" in any of the
    languages above (possibly wrapped over several lines), when it is a
    date-led Gmail line ("2017-11-24 16:32 GMT+01:00 X <x@y>:"), or when it
    is any line ending in ``:`` directly followed by a ``>`` block. A wrapped
    attribution must start like one (Am/On/..., a date, or an address) and no
    later line of it may start one itself, so a fresh line just above an
    attribution is never swallowed.
    """
    first = lines[i].strip()
    if not first or len(first) > _MAX_MARK_LINE:
        return 0
    single = i + 1 >= len(lines) or not lines[i + 1].strip()
    if single and not _ends_like_attribution(first):
        return 0  # one line only: it must end like an attribution
    wraps: bool | None = None  # may the attribution go on over more lines? (asked lazily)
    for span in range(1, _MAX_ATTRIBUTION_LINES + 1):
        if i + span > len(lines):
            break
        if span > 1:
            last = lines[i + span - 1].strip()
            if not last or len(last) > _MAX_MARK_LINE:
                break
            if wraps is None:
                wraps = _starts_wrapped(first)
            if not wraps or _ATTRIBUTION_START.match(last):
                break
        joined = " ".join(part.strip() for part in lines[i : i + span])
        if not _ends_attribution(joined):
            continue
        if _ATTRIBUTION_VERB.search(joined) and _HAS_DIGIT_OR_AT.search(joined):
            return span
        if _is_date_led(joined):
            return span
        if not joined.endswith((":", "：")):
            continue
        following = _next_nonblank(lines, i + span, limit=3)
        if following is not None and is_quote_line(lines[following]):
            return span
    return 0


def _ends_like_attribution(line: str) -> bool:
    return line.endswith((":", "：")) or bool(_VERB_AT_END.search(line[-_VERB_TAIL:]))


def _is_date_led(joined: str) -> bool:
    """A verbless attribution: a date (or a year), a time, and an address before the colon."""
    return bool(
        _ADDRESS_END.search(joined)
        and _TIME.search(joined)
        and (_DATE_START.match(joined) or _YEAR.search(joined))
    )


def _starts_wrapped(first: str) -> bool:
    if "@" in first or _ATTRIBUTION_START.match(first):
        return True
    if not _HAS_DIGIT_OR_AT.search(first):
        return False
    return bool(
        _DATE_START.match(first) or (_YEAR.search(first) and _ATTRIBUTION_VERB.search(first))
    )


def _is_strong_attribution(lines: list[str], i: int, span: int) -> bool:
    """An attribution that certainly is one: it ends the fresh text even when
    the original follows unquoted."""
    joined = " ".join(part.strip() for part in lines[i : i + span])
    if _is_date_led(joined):
        return True
    return bool(
        _ATTRIBUTION_VERB.search(joined)
        and _HAS_DIGIT_OR_AT.search(joined)
        and (_ATTRIBUTION_START.match(joined) or _DATE_START.match(joined) or "@" in joined)
    )


def _next_nonblank(lines: list[str], start: int, limit: int | None = None) -> int | None:
    """The index of the first non-blank line from ``start`` (within ``limit`` lines)."""
    stop = len(lines) if limit is None else min(len(lines), start + limit)
    for j in range(start, stop):
        if lines[j].strip():
            return j
    return None
