"""Who is the game master (RULES.md §13), decided once per mail by the ingest,
and how his mail is read.

**Identification** (``identify``). A mail is an attempt of the game master's
when it carries a GM password line — ``GM-Passwort: ...`` / ``GM password:
...`` (any case; also ``GM Passwort``, ``GM-Kennwort``; in the body or the
Subject) — or comes from ``gm.address`` with a keyword only the game master
has (``Fehlend``, ``Sperren``, ``Für ...:``; ``Status`` or ``Hilfe`` alone
are a player's words, so a game master who plays a team of his own from his
address writes as a player without the GM password). It is his mail
(``GmMail.verified``) only when all of these hold:

* it comes from ``gm.address`` (the league's spelling, ``normalize_address``);
* one of its (at most ``MAX_CANDIDATES``) GM password lines is the password
  of ``gm.password_env`` (SHA-256 digests compared in constant time);
* with ``mail.trust.authserv_id`` set, that server **passed** the From's
  domain (``bot.mail.auth.sender_verified``: DMARC, or aligned DKIM or SPF).

Anything less (``REFUSALS``) changes nothing: ``refuse`` tells the game
master, at ``gm.address`` only (never the sender), at most
``max_mails_per_hour`` times an hour; the ledger's line ``gm_refused: CODE``
lists the attempt in the round's digest. GM password lines are taken out of
every mail before the grammar reads it, a player's too: never checked as a
player's password, never quoted in a reply.

**Reading** (``read_moves``): the Subject of a game master's mail is not
read (a reply's ``Re: Zurücknehmen: Runde 12`` must not ask again); his
lines are read with his vocabulary (``Audience.GM``). Two commands take the
lines below them (``BLOCKS``): ``Für ADDRESS:`` the lines up to the next such
line (carried out as that manager's mail), ``Rundschreiben`` the rest of the
mail (the announcement). A manager's line outside a ``Für`` block is an
error of its line; a mail with no command gets the game master's help.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import re
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.errors import N_
from bot.league.errors import LeagueError
from bot.league.moves import normalize_address
from bot.league.outcome import Code, MoveOutcome, Notice
from bot.mail.auth import sender_verified
from bot.mail.compose import MailKind
from bot.mail.keywords import normalise
from bot.mail.reading import InboundMail
from bot.mail.vocabulary import KeywordCommand, Vocabulary
from bot.render.gm_mail import render_gm_refused
from bot.rules.requests import LineError, ParsedMoves, Request
from bot.service.commands import Audience, Registry
from bot.service.context import Context
from bot.service.outgoing import queue_mail
from bot.service.settings import IngestSettings
from bot.storage import ledger
from bot.storage.ledger import Outcome
from bot.storage.values import time_to_db

#: A GM password line: ``GM-Passwort: X`` (the value may be empty).
GM_PASSWORD = re.compile(
    r"^\s*gm[\s_-]*+(?P<word>passwort|kennwort|password)\b\s*+[:=–—-]?\s*+(?P<value>.*)$",
    re.IGNORECASE)
#: GM password lines of a mail that are compared; a mail with more is refused.
MAX_CANDIDATES = 3
#: Lines longer than this are not searched for keywords (they are text).
MAX_KEYWORD_LINE = 1000
#: The commands that take the lines below them: True for the rest of the mail,
#: False for the lines up to the next such line (module doc).
BLOCKS = {"gm_for": False, "gm_broadcast": True}
#: The command a mail without any command gets.
HELP = "gm_help"

#: Why a mail is not the game master's (the ledger's code; each sentence is
#: what the digest says of it, and the notice to the game master explains it).
REFUSALS = {
    "gm_off": N_("A GM password line, but no GM password is configured (gm.password_env)."),
    "gm_other_address": N_("A GM password line from another address than gm.address."),
    "gm_password_missing": N_("A game master's command from gm.address without the GM "
                              "password."),
    "gm_password_wrong": N_("Wrong GM password."),
    "gm_too_many_passwords": N_("Too many GM password lines."),
    "gm_unverified": N_("The receiving server did not confirm the sender "
                        "(Authentication-Results)."),
}
#: A manager's line in the game master's own lines (outside ``Für``).
NOT_GM_LINE = N_("a manager's line in the game master's mail; to carry it out as a "
                 "manager's mail, write it below a line 'For ADDRESS:'")
FOR_EXAMPLE = N_("For anna@example.org:")


@dataclass(frozen=True, slots=True)
class GmMail:
    """A mail that is an attempt of the game master's (module doc)."""

    #: It passed every check: read and carried out as the game master's.
    verified: bool
    #: Why not (a key of ``REFUSALS``), None when verified.
    refusal: str | None
    #: The mail's fresh text without its GM password lines (blank lines instead).
    text: str
    #: A right GM password came with a refused mail (the game master should
    #: change it when it came from elsewhere).
    password_right: bool = False
    #: The receiving server's verdict, when it was asked.
    verification: str | None = None
    #: The language of the GM password line's keyword ('de', 'en').
    language: str | None = None


def identify(parsed: InboundMail, settings: IngestSettings, commands: Registry
             ) -> GmMail | None:
    """The game master's attempt in ``parsed`` (module doc), or None for a
    player's mail."""
    lines = (parsed.fresh_text or "").splitlines()
    candidates: list[str] = []
    language: str | None = None
    for index, line in enumerate(lines):
        found = GM_PASSWORD.match(line) if len(line) <= MAX_KEYWORD_LINE else None
        if found is not None:
            candidates.append(found.group("value").strip().strip("\"'„“”‚‘’«»"))
            language = language or ("en" if found.group("word").lower() == "password" else "de")
            lines[index] = ""
    in_subject = GM_PASSWORD.match((parsed.subject or "")[:MAX_KEYWORD_LINE])
    if in_subject is not None:
        candidates.append(in_subject.group("value").strip())
    text = "\n".join(lines)
    access = settings.gm
    sender = _address(parsed.sender)
    from_gm = access is not None and sender == access.address
    if not candidates and not (from_gm and _has_gm_keyword(text, commands)):
        return None
    if access is None:
        return GmMail(False, "gm_off", text)
    given = [hashlib.sha256(c.encode("utf-8")).digest() for c in candidates[:MAX_CANDIDATES]]
    right = [hmac.compare_digest(digest, access.secret) for digest in given]
    password_right = any(right)
    if not from_gm:
        return GmMail(False, "gm_other_address", text, password_right)
    if not candidates:
        return GmMail(False, "gm_password_missing", text)
    if len(candidates) > MAX_CANDIDATES:
        return GmMail(False, "gm_too_many_passwords", text, password_right)
    if not password_right:
        return GmMail(False, "gm_password_wrong", text)
    if settings.authserv_id:
        verified = sender_verified(parsed.header_values("authentication-results"),
                                   settings.authserv_id, sender or "")
        if not verified.passed:
            return GmMail(False, "gm_unverified", text, True, verified.reason)
        return GmMail(True, None, text, True, verified.reason, language)
    return GmMail(True, None, text, True, None, language)


def _address(sender: str | None) -> str | None:
    try:
        return normalize_address(sender or "")
    except LeagueError:
        return None


def _keyword(line: str, vocab: Vocabulary) -> tuple[KeywordCommand, str] | None:
    """The command of the game master's vocabulary a line starts with, and the rest."""
    if len(line) > MAX_KEYWORD_LINE:
        return None
    match = vocab.keyword.match(normalise(line))
    if match is None:
        return None
    spec = vocab.command(vocab.lookup(match.group("kw"))[0])
    return (spec, match.group("rest").strip()) if spec is not None else None


def _has_gm_keyword(text: str, commands: Registry) -> bool:
    """Does a line start with a keyword that only the game master has?"""
    vocab = commands.vocabulary(Audience.GM)
    player = commands.vocabulary(Audience.PLAYER).spelling
    for line in text.splitlines():
        match = vocab.keyword.match(normalise(line)) if len(line) <= MAX_KEYWORD_LINE else None
        if match is not None and " ".join(match.group("kw").lower().split()) not in player:
            return True
    return False


# -- reading his mail ------------------------------------------------------------


def read_moves(text: str, commands: Registry) -> ParsedMoves:
    """The game master's mail ``text`` (without its GM password lines) as
    requests (module doc). Pure; run by the ingest under its time budget."""
    from bot.mail.grammar import parse_moves  # the registry loads this module: lazily

    vocab = commands.vocabulary(Audience.GM)
    lines = text.splitlines()
    main = list(lines)
    blocks: list[tuple[int, KeywordCommand, str]] = []  # line index, command, value
    for index, line in enumerate(lines):
        hit = _keyword(line, vocab)
        if hit is None or hit[0].name not in BLOCKS:
            continue
        blocks.append((index, hit[0], hit[1]))
        if BLOCKS[hit[0].name]:
            break
    extra: list[Request] = []
    errors: list[LineError] = []
    for number, (index, spec, value) in enumerate(blocks):
        end = blocks[number + 1][0] if number + 1 < len(blocks) else len(lines)
        body = lines[index + 1:end]
        main[index:end] = [""] * (end - index)
        line = normalise(lines[index])
        try:
            extra.append(spec.build(line, value + "\n" + "\n".join(body)))
        except ValueError as problem:
            errors.append(LineError(line=line, line_number=index + 1, reason=str(problem),
                                    example=spec.example))
    read = parse_moves("", "\n".join(main), vocabulary=vocab)
    own: list[Request] = []
    for request in read.requests:
        if commands.command_for(request).audience is Audience.GM:
            own.append(request)
        else:
            errors.append(LineError(line=request.line, line_number=_line_number(main, request),
                                    reason=NOT_GM_LINE, example=FOR_EXAMPLE))
    requests = own + extra
    errors = list(read.errors) + errors
    if not requests and not errors:
        help_command = vocab.command(HELP)
        assert help_command is not None
        requests.append(help_command.build("", ""))
    return dataclasses.replace(read, requests=tuple(requests), errors=tuple(errors))


def _line_number(lines: list[str], request: Request) -> int:
    """The number of the line ``request`` was read from (0: not found)."""
    for number, line in enumerate(lines, start=1):
        if normalise(line) == request.line:
            return number
    return 0


def reply_outcome(outcome: MoveOutcome, moves: ParsedMoves, language: str,
                  name: str | None) -> MoveOutcome:
    """The reply to the game master's mail: in the language of his keywords,
    else of his GM password line, else the game's (``language``), greeting him
    by ``gm.name`` unless his mail names him; no note that it came after a
    deadline (his commands do not count for a round); his help, not the
    players', after a line he could not write."""
    notices = [n for n in outcome.notices if n.code != Code.LATE]
    if outcome.line_errors and not any(n.code == HELP for n in notices):
        notices.append(Notice(HELP))
    return dataclasses.replace(
        outcome, notices=notices, line_errors=(), late=False,
        language=outcome.language if moves.language_known else language,
        sender_name=outcome.sender_name or name)


# -- refusing an attempt -----------------------------------------------------------


def refuse(conn: sqlite3.Connection, ctx: Context, settings: IngestSettings,
           parsed: InboundMail, gm: GmMail, inbound_id: int, now: datetime) -> str:
    """Tell the game master of a refused attempt (at most ``max_mails_per_hour``
    such notices an hour; the digest counts every one); the ledger's line."""
    assert gm.refusal is not None
    hour = ledger.received_between(conn, time_to_db(now - timedelta(hours=1)),
                                   time_to_db(now))
    told = sum(1 for line in hour if line.code == Outcome.GM_REFUSED)
    if told < settings.max_mails_per_hour:
        s = ctx.settings
        rendered = render_gm_refused(
            gm.refusal, sender=parsed.sender or "?", subject=parsed.subject,
            password_right=gm.password_right, verification=gm.verification,
            language=s.language, name=s.gm_name, game_name=s.game_name, now=now,
            timezone=s.timezone, env=ctx.environments)
        queue_mail(conn, sender=s.sender, kind=MailKind.NOTICE, to=s.gm_address,
                   to_name=s.gm_name, rendered=rendered, key=f"gm-refused/{inbound_id}",
                   now=now, inbound_id=inbound_id)
    return f"{Outcome.GM_REFUSED}: {gm.refusal}"


__all__ = [
    "BLOCKS",
    "REFUSALS",
    "GmMail",
    "identify",
    "read_moves",
    "refuse",
    "reply_outcome",
]
