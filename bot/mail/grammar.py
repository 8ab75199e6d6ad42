"""The mail grammar (RULES.md §11): free text -> ``ParsedMoves``.

One command per line; keywords are case-insensitive, German or English, the
colon after a keyword is optional. The subject is read first (reply and
forward prefixes removed; it counts as line 0 and is never listed as
ignored), then every line of the fresh text (line numbers from 1).

==============================  ====================================
line                            request
==============================  ====================================
``Team: NAME``                  ``SelectTeam`` (also ``Mannschaft:``)
``Aufstellung: L``              ``SetLineup(team=None)`` (``Lineup:``)
``NAME: L``                     ``SetLineup(team=NAME)``
``NAME L`` (L with - or /)      ``SetLineup(team=NAME)``
``L`` alone                     ``SetLineup(team=None)``
``Neues Team: NAME / SHORT``    ``RegisterTeam`` (``New team:``)
``Kurzname: SHORT``             ``SetShortName`` (``Kürzel:``, ``Short name:``)
``Passwort: X``                 ``GivePassword`` (``Kennwort:``, ``Password:``)
``Manager: NAME``               ``SetManagerName``
``Zurückziehen: NAME``          ``Withdraw`` (``Withdraw:``)
``Status``                      ``AskStatus``
``Hilfe``                       ``AskHelp`` (``Help``)
==============================  ====================================

A line that looks like a lineup but is not a valid one (four or six
numbers, decimals, garbage after ``Aufstellung:``, text glued to a lineup as
in ``10-10-15-15-20x`` or ``T10 A10 V15 M15 S20 X5``) becomes a ``LineError``
with the reason of ``InvalidLineupError`` and the example
``10-10-15-15-20``; so does a keyword with a colon but no value
(``Team:``). Everything else is ignored. Decisions beyond the table:

* without a colon a keyword line must make sense as a command: "Neue
  Mannschaft" or "Aufstellung für nächste Woche" (no value, no lineup) are
  ordinary text and ignored, not errors (subjects are often like that);

* ``Aufstellung für NAME: L`` / ``Lineup for NAME: L`` name the team;
  a sentence with the word elsewhere ("Hier meine Aufstellung: L") does not;
* ``Team: NAME: L`` is a lineup for NAME; ``Team Rot: L`` (no colon after
  the keyword) is a lineup for the team called "Team Rot";
* ``Neues Team: NAME / SHORT: L`` registers and sets the lineup;
* a bare line of numbers is a lineup candidate only if it has at least three
  numbers, none with four or more digits (years, postcodes, phone numbers)
  and does not start with ``+``; times such as ``20:00`` and dates such as
  ``12.05.2024`` are never lineups.

Reading a line as it was meant (RULES.md §9, §11), each recorded as a
``ReadNote`` so the reply can name it:

* typos: a mistyped keyword at the start of a line is read as the keyword
  (``bot.mail.typos``; never the name of one of the sender's teams, given as
  ``team_names``). **Decision**: only where the line then has a command's
  shape - a colon (or ``=``) after the word, a lineup after a lineup
  keyword, nothing after ``Status``/``Hilfe`` - so "Hilft das?" stays text;
* comments: on a command line, text in parentheses after the value and
  anything from ``#`` or ``//`` (at the start or after a space) to the end
  is skipped; a line that is no command with its comment removed is read
  as a whole, as before;
* sign-offs: a closing line and up to three short lines after it that are
  no command are a signature (``bot.mail.signoffs``), never "ignored".

Bounded work (issue 11): every pattern is linear (no nested or adjacent
quantifiers that can backtrack; possessive ones where a scan could
restart), a colon split tries at most ``MAX_COLONS`` colons, a lineup is
parsed from at most ``MAX_LINEUP_CHARS`` characters, and a line (the
Subject) longer than ``MAX_LINE_CHARS`` (``MAX_SUBJECT_CHARS``) is not read:
if it starts like a command it is a ``LineError`` of kind ``TOO_LONG``
(its beginning quoted, the limit named), otherwise it is ordinary text
(listed as ignored, its beginning only, and noted as ``LONG_TEXT``). The
rest of the mail is read as usual.

Errors quote the exact part that could not be read (``LineError.part``)
and, where the player's five numbers are recognisable, suggest them in the
right form (``LineError.suggestion``, e.g. ``10-10-15-15-20`` for
``10.10.15.15.20x``).

Language: ``en`` if English-only keywords (Lineup, New team, Password,
Withdraw, Help, Short name, English row names) were used and no German-only
ones; ``de`` if German ones were; otherwise a guess from common words
(hello/thanks/regards vs hallo/danke/gruß, "AW:"/"WG:" prefixes), ``de``
when undecided.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from bot.mail.signoffs import MAX_NAME_LINE, MAX_NAME_LINES, is_signoff
from bot.mail.typos import correct_keyword, team_key
from bot.rules.errors import InvalidLineupError
from bot.rules.lineup import LABELS, Lineup
from bot.rules.requests import (
    COMMENT,
    LONG_TEXT,
    SIGNATURE,
    TOO_LONG,
    TYPO,
    AskHelp,
    AskStatus,
    GivePassword,
    LineError,
    ParsedMoves,
    ReadNote,
    RegisterTeam,
    Request,
    SelectTeam,
    SetLineup,
    SetManagerName,
    SetShortName,
    Withdraw,
)

__all__ = [
    "EXAMPLE_LINEUP", "MAX_LINEUP_CHARS", "MAX_LINE_CHARS", "MAX_SUBJECT_CHARS",
    "keyword_display", "parse_moves", "strip_subject_prefixes",
]

EXAMPLE_LINEUP = "10-10-15-15-20"
#: Longest body line that is read (a command line is far shorter).
MAX_LINE_CHARS = 1000
#: Longest Subject that is read (after reply/forward prefixes).
MAX_SUBJECT_CHARS = 1000
#: Longest text handed to ``Lineup.parse`` (the longest written-out lineup
#: has about 65 characters).
MAX_LINEUP_CHARS = 200
#: At most this many colons are tried when a line is split into NAME: LINEUP.
MAX_COLONS = 12
#: A too-long line is quoted with this many characters and an ellipsis.
QUOTED_CHARS = 60

# (command, language or None for both, spellings); longer spellings first.
_KEYWORDS: tuple[tuple[str, str | None, tuple[str, ...]], ...] = (
    ("register", "de", ("neues team", "neue mannschaft")),
    ("register", "en", ("new team",)),
    ("short", "de", ("kurzname", "kürzel", "kuerzel")),
    ("short", "en", ("short name", "shortname", "short-name")),
    ("password", "de", ("passwort", "kennwort")),
    ("password", "en", ("password",)),
    ("manager", None, ("manager",)),
    ("withdraw", "de", ("zurückziehen", "zurueckziehen")),
    ("withdraw", "en", ("withdraw",)),
    ("lineup", "de", ("aufstellung",)),
    ("lineup", "en", ("lineup", "line-up", "line up")),
    ("team", "de", ("mannschaft",)),
    ("team", None, ("team",)),
    ("status", None, ("status",)),
    ("help", "de", ("hilfe",)),
    ("help", "en", ("help",)),
)
_SPELLING: dict[str, tuple[str, str | None]] = {
    spelling: (command, language)
    for command, language, spellings in _KEYWORDS
    for spelling in spellings
}
#: Each spelling -> its command (for typo correction).
_COMMAND_OF: dict[str, str] = {spelling: command for spelling, (command, _) in _SPELLING.items()}
_KEYWORD = re.compile(
    r"^(?P<kw>"
    + "|".join(
        re.escape(s).replace(r"\ ", r"\s+")
        for s in sorted(_SPELLING, key=len, reverse=True)
    )
    + r")(?![\w-])(?P<sep>\s*[:=]\s*|\s+|(?=[?!.]*$))(?P<rest>.*)$",
    re.IGNORECASE,
)
_EXAMPLES = {
    "team": "Team: Rote Teufel",
    "register": "Neues Team: FC Wanderer Altona / Wanderer",
    "short": "Kurzname: Wanderer",
    "password": "Passwort: k7f-x2q",
    "manager": "Manager: Hans Meier",
    "withdraw": "Zurückziehen: Rote Teufel",
}
_MISSING = {
    "team": "no team name after the keyword",
    "register": "no name for the new team after the keyword",
    "short": "no short name after the keyword",
    "password": "no password after the keyword",
    "manager": "no manager name after the keyword",
    "withdraw": "no team name after the keyword",
}

_SUBJECT_PREFIX = re.compile(
    r"^\s*+(?:(?:re|aw|wg|fwd|fw|antw|antwort|sv|vs|tr|wtr|rif|enc)\s*+(?:\[\d+\]|\(\d+\))?+"
    r"\s*+:\s*+)+",
    re.IGNORECASE,
)
_GERMAN_PREFIX = re.compile(r"^\s*(?:aw|wg|antw|antwort)\s*:", re.IGNORECASE)
_BULLET = re.compile(r"^[-*•·–]\s+(?=\S)")  # not "1." - think of "1. FC Köln"
_SPACES = re.compile(r"[\s\u00a0\u2000-\u200b\u202f\u205f\u3000]+")
_LETTER = re.compile(r"[^\W\d_]")
_WORD = re.compile(r"[^\W\d_]+")
_NUMBER = re.compile(r"\d+")
_DOTTED = re.compile(r"\d\.\d+\.\d")
_LINEUP_CHARS = re.compile(r"^[\w\s\-/,;:=.+]*$")
#: The lineup at the end of ``NAME 10-10-15-15-20`` (searched, leftmost start
#: after a space: the name is what comes before it; lines have single spaces).
_TAIL_LINEUP = re.compile(
    r"(?<=\s)(?P<lineup>[+-]?\d++(?:[.,]\d++)?+(?:\s?[-/]\s?[+-]?\d++(?:[.,]\d++)?+){3,5})"
    r"\s?\.?$"
)
#: Four or more numbers of at most three digits joined by ``-`` or ``/``
#: (``10-10-15-15-20``; not a phone number's ``0171-...`` or a date).
_LINEUP_RUN = re.compile(
    r"(?<![\w.,+/-])(?!0\d)\d{1,3}(?:\s*[-/]\s*\d{1,3}){3,}(?!\d|\s*[-/]\s*\d)"
)
_LABELLED_PAIR = re.compile(r"(?<![^\W\d_])([^\W\d_]+)\s*[=:]?\s*\d+")
_LINEUP_WORD = re.compile(r"\b(?:aufstellung|line-?\s?up)\b", re.IGNORECASE)
_LINEUP_LEFT = re.compile(
    r"^(?:aufstellung|line-?\s?up)\b\s*(?:(?:für|fuer|for|von|of)\b\s*)?(?P<team>.*)$",
    re.IGNORECASE,
)
_FOR_TEAM = re.compile(r"^(?:für|fuer|for)\s++(?P<team>[^:]++):\s*+(?P<lineup>.+)$", re.IGNORECASE)
#: A comment to the end of the line: ``#`` or ``//`` at the start or after a space.
_LINE_COMMENT = re.compile(r"(?:^|(?<=\s))(?:#|//)")
_NUMBER_RUN = re.compile(r"\d+")
_GLUED = re.compile(r"\d[^\W\d_]|[^\W\d_]\d")
_UNLABELLED = re.compile(r"[\d\s\-/,;:.]+")
_TEAM_LEFT = re.compile(r"^(?:team|mannschaft)\s*:\s*(?P<team>.+)$", re.IGNORECASE)
_QUOTES = "\"'„“”‚‘’»«"

_EN_ROW_WORDS = frozenset(
    {"goalkeeper", "keeper", "goalie", "sweeper", "defence", "defense", "midfield",
     "attack", "forward", "forwards", "striker"}
)
_DE_ROW_WORDS = frozenset(
    {"torwart", "torhüter", "torhueter", "ausputzer", "libero", "verteidigung", "abwehr",
     "mittelfeld", "sturm", "angriff"}
)
_EN_WORDS = frozenset(
    {"hello", "hi", "dear", "thanks", "thank", "regards", "cheers", "best", "please", "my",
     "the", "and", "is", "for", "with", "here", "this", "yours", "sincerely", "kind"}
)
_DE_WORDS = frozenset(
    {"hallo", "liebe", "lieber", "danke", "dank", "gruß", "grüße", "gruss", "gruesse",
     "grüßen", "viele", "mfg", "lg", "vg", "bitte", "mein", "meine", "und", "ist", "für",
     "mit", "hier", "die", "der", "das", "ich", "anbei", "moin", "servus", "schöne", "beste"}
)

_Candidate = Lineup | InvalidLineupError


@dataclass
class _State:
    requests: list[Request] = field(default_factory=list)
    errors: list[LineError] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    notes: list[ReadNote] = field(default_factory=list)
    keyword_languages: set[str] = field(default_factory=set)
    team_keys: frozenset[str] = frozenset()
    in_subject: bool = False
    words_de: int = 0
    words_en: int = 0

    def mark(self) -> tuple[int, int, int, int, frozenset[str]]:
        return (len(self.requests), len(self.errors), len(self.ignored), len(self.notes),
                frozenset(self.keyword_languages))

    def produced(self, mark: tuple[int, int, int, int, frozenset[str]]) -> bool:
        """Did the lines read since ``mark`` give a request or an error?"""
        return len(self.requests) > mark[0] or len(self.errors) > mark[1]

    def undo(self, mark: tuple[int, int, int, int, frozenset[str]]) -> None:
        del self.requests[mark[0]:], self.errors[mark[1]:]
        del self.ignored[mark[2]:], self.notes[mark[3]:]
        self.keyword_languages = set(mark[4])


def parse_moves(subject: str, text: str, *, team_names: Iterable[str] = ()) -> ParsedMoves:
    """Read the commands of one mail (``subject`` and its fresh ``text``).

    ``team_names``: the names (and short names) of the sender's teams, if
    known; a word that is one of them is never read as a mistyped keyword.
    """
    state = _State(team_keys=frozenset(team_key(n) for n in team_names if n))
    subject = subject or ""
    if _GERMAN_PREFIX.match(subject[:100]):
        state.words_de += 2
    head = strip_subject_prefixes(subject[: MAX_SUBJECT_CHARS + 200])
    too_long = len(subject) > MAX_SUBJECT_CHARS + 200 or len(head) > MAX_SUBJECT_CHARS
    stripped_subject = _normalise(head[:MAX_SUBJECT_CHARS] if too_long else head)
    if stripped_subject:
        state.in_subject = True
        if too_long:
            _too_long(stripped_subject, 0, len(subject), MAX_SUBJECT_CHARS, state)
        else:
            _count_words(stripped_subject, state)
            _read_line(stripped_subject, 0, state)
        state.in_subject = False
    signature: list[str] = []  # the sign-off and the name lines after it
    signature_line = 0
    for number, raw in enumerate((text or "").splitlines(), start=1):
        line = _normalise(raw)
        if not line:
            continue
        if len(line) > MAX_LINE_CHARS:
            signature = _close_signature(signature, signature_line, state)
            _too_long(line[:MAX_LINE_CHARS], number, len(line), MAX_LINE_CHARS, state)
            continue
        _count_words(line, state)
        if is_signoff(line):
            signature = _close_signature(signature, signature_line, state)
            signature, signature_line = [line], number
            continue
        if signature and len(signature) <= MAX_NAME_LINES and len(line) <= MAX_NAME_LINE:
            mark = state.mark()
            _read_line(line, number, state)
            if not state.produced(mark):
                state.undo(mark)
                signature.append(line)  # the name below the sign-off
                continue
            signature = _close_signature(signature, signature_line, state)
            continue
        signature = _close_signature(signature, signature_line, state)
        _read_line(line, number, state)
    _close_signature(signature, signature_line, state)
    return ParsedMoves(
        requests=tuple(state.requests),
        errors=tuple(state.errors),
        ignored=tuple(state.ignored),
        language=_language(state),
        language_known=bool(state.keyword_languages) or state.words_en != state.words_de,
        notes=tuple(state.notes),
    )


def strip_subject_prefixes(subject: str) -> str:
    """``"AW: Re: Fwd: Aufstellung"`` -> ``"Aufstellung"``."""
    return _SUBJECT_PREFIX.sub("", subject or "").strip()


def keyword_display(spelling: str) -> str:
    """How a keyword is shown in a reply: ``aufstellung`` -> ``Aufstellung``,
    ``neues team`` -> ``Neues Team``, ``short name`` -> ``Short name``."""
    _, language = _SPELLING[spelling]
    words = spelling.split(" ")
    if language == "de":
        return " ".join(w[:1].upper() + w[1:] for w in words)
    return spelling[:1].upper() + spelling[1:]


def _close_signature(signature: list[str], number: int, state: _State) -> list[str]:
    if signature:
        state.notes.append(ReadNote(SIGNATURE, number, " / ".join(signature)))
    return []


def _quote(line: str) -> str:
    return line[:QUOTED_CHARS].rstrip() + "…"


def _too_long(head: str, number: int, length: int, limit: int, state: _State) -> None:
    """A line (or the Subject) longer than ``limit``: an error if it starts
    like a command (a keyword, a typo of one, a number, a lineup near the
    start, one of the sender's teams), else ordinary text that is skipped."""
    start = head[:MAX_LINEUP_CHARS]
    commandlike = (
        _KEYWORD.match(start) is not None
        or correct_keyword(start, _COMMAND_OF, state.team_keys) is not None
        or start[:1].isdigit()
        or _LINEUP_RUN.search(start) is not None
        or _labelled_tail(start) is not None
        or ((pair := _LABELLED_PAIR.match(start)) is not None
            and pair.group(1).lower() in LABELS)
        or any(team_key(start).startswith(key) for key in state.team_keys)
    )
    if commandlike:
        who = "the subject" if number == 0 else "the line"
        state.errors.append(LineError(
            line=_quote(head), line_number=number,
            reason=f"{who} is too long ({length} characters, at most {limit} are read)",
            example=EXAMPLE_LINEUP, kind=TOO_LONG, part=_quote(head), limit=limit,
            length=length,
        ))
        return
    _ignore(_quote(head), state)
    state.notes.append(ReadNote(LONG_TEXT, number, _quote(head), str(limit)))


def _read_line(line: str, number: int, state: _State) -> None:
    """One line with comments and typos (module docstring); falls back to
    reading the line exactly as written."""
    body, comments = _split_comments(line)
    correction = None
    if _KEYWORD.match(body) is None:
        correction = correct_keyword(body, _COMMAND_OF, state.team_keys)
        if correction is not None and not _command_shaped(correction.line):
            correction = None
    attempts: list[tuple[str, list[str]]] = []
    if correction is not None or comments:
        attempts.append((correction.line if correction else body, comments))
    if correction is not None and comments:  # the typo alone, the "comment" kept as text
        attempts.append((correction.line + line[len(body):], []))
    for text, skipped in attempts:
        mark = state.mark()
        _parse_line(text, number, state)
        if not state.produced(mark):
            state.undo(mark)
            continue
        for index, request in enumerate(state.requests[mark[0]:], start=mark[0]):
            state.requests[index] = _with_line(request, line)
        for index, error in enumerate(state.errors[mark[1]:], start=mark[1]):
            state.errors[index] = _error_with_line(error, line)
        if correction is not None:
            state.notes.append(ReadNote(TYPO, number, correction.written,
                                        keyword_display(correction.spelling)))
        state.notes.extend(ReadNote(COMMENT, number, c) for c in skipped)
        return
    _parse_line(line, number, state)


def _with_line(request: Request, line: str) -> Request:
    """``request`` quoting the line as the player wrote it."""
    fields = {name: getattr(request, name) for name in request.__dataclass_fields__}
    fields["line"] = line
    return type(request)(**fields)


def _error_with_line(error: LineError, line: str) -> LineError:
    fields = {name: getattr(error, name) for name in error.__dataclass_fields__}
    fields["line"] = line
    return LineError(**fields)


def _split_comments(line: str) -> tuple[str, list[str]]:
    """``line`` without its comments, and the comments as written: from
    ``#`` or ``//`` to the end, then trailing ``(...)`` groups."""
    comments: list[str] = []
    body = line
    marker = _LINE_COMMENT.search(body)
    if marker is not None and marker.start() > 0:
        comments.append(body[marker.start():].strip())
        body = body[: marker.start()].rstrip()
    parens: list[str] = []
    for _ in range(3):
        if not body.endswith(")"):
            break
        opening = body.rfind("(")
        if opening <= 0 or body[opening - 1] != " " or ")" in body[opening:-1]:
            break
        parens.insert(0, body[opening:])
        body = body[:opening].rstrip()
    if not body or (not _LETTER.search(body) and not _NUMBER.search(body)):
        return line, []
    if body.endswith((":", "=")):
        return line, []  # "Manager: (Hans)": no value before it, so it is the value
    return body, parens + comments


def _command_shaped(line: str) -> bool:
    """A corrected line must look like a command (module docstring)."""
    match = _KEYWORD.match(line)
    if match is None:
        return False
    command = _SPELLING[" ".join(match.group("kw").lower().split())][0]
    rest = match.group("rest").strip()
    if command in {"status", "help"}:
        return not rest.strip("?!. ")
    if command == "team" and _candidate(rest) is not None:
        return False  # "Tean: 10-10-15-15-20" is a lineup for the team "Tean"
    if re.search(r"[:=]", match.group("sep")):
        return True
    return command == "lineup" and _candidate(rest, guard=False) is not None


# -- one line -------------------------------------------------------------------


def _normalise(line: str) -> str:
    line = _SPACES.sub(" ", unicodedata.normalize("NFC", line)).strip()
    return _BULLET.sub("", line).strip()


def _parse_line(line: str, number: int, state: _State) -> None:
    keyword = _KEYWORD.match(line)
    if keyword is not None and re.search(r"[:=]", keyword.group("sep")):
        _keyword(keyword, line, number, state, explicit=True)
        return
    whole = _candidate(line)
    if isinstance(whole, Lineup):
        state.requests.append(SetLineup(line=line, team=None, lineup=whole))
        _note_row_words(line, state)
        return
    if keyword is not None and _is_lineup_keyword(keyword):
        value = _candidate(keyword.group("rest"), guard=False)
        if isinstance(value, Lineup):  # "Lineup T: 10, A: 10, ..." (colon optional)
            _keyword(keyword, line, number, state, explicit=False)
            return
    split = _split_team_lineup(line)
    if split is not None:
        team, candidate = split
        _lineup_or_error(line, number, team, candidate, state)
        return
    if keyword is not None:
        _keyword(keyword, line, number, state, explicit=False)
        return
    if whole is not None:
        _error(line, number, whole.reason, EXAMPLE_LINEUP, state, part=whole.text)
        return
    tail = _tail_lineup(line) or _labelled_tail(line)
    if tail is not None:
        team, candidate = tail
        _lineup_or_error(line, number, team, candidate, state)
        return
    _ignore_unless_lineup_shaped(line, line, number, state)


def _keyword(
    match: re.Match[str], line: str, number: int, state: _State, *, explicit: bool
) -> None:
    """Run the handler of a keyword line. ``explicit``: a colon followed the
    keyword, so a missing or unreadable value is an error; without the colon
    such a line is taken as ordinary text ("Neue Mannschaft", "Aufstellung
    für nächste Woche") and ignored."""
    spelling = " ".join(match.group("kw").lower().split())
    command, language = _SPELLING[spelling]
    if language is not None:
        state.keyword_languages.add(language)
    rest = match.group("rest").strip()
    if command == "lineup":
        _on_lineup(line, number, rest, state, explicit=explicit)
    elif command in {"status", "help"}:
        state.requests.append(AskStatus(line=line) if command == "status" else AskHelp(line=line))
    elif not _name(rest):
        if explicit:
            _error(line, number, _MISSING[command], _EXAMPLES[command], state)
        else:
            _ignore(line, state)
    else:
        _HANDLERS[command](line, number, rest, state)


def _on_team(line: str, number: int, rest: str, state: _State) -> None:
    split = _split_team_lineup(rest) or _tail_lineup(rest) or _labelled_tail(rest)
    if split is not None and split[0] is not None:
        _lineup_or_error(line, number, split[0], split[1], state)
        return
    state.requests.append(SelectTeam(line=line, team=_name(rest)))


def _on_lineup(line: str, number: int, rest: str, state: _State, *, explicit: bool) -> None:
    if not rest.strip(" :"):
        _ignore(line, state)  # a heading: "Aufstellung:" above the lineup line
        return
    named = _FOR_TEAM.match(rest)
    if named is not None and _LETTER.search(named.group("team")):  # "Aufstellung für NAME: L"
        team = _name(named.group("team"))
        _lineup_or_error(line, number, team, _attempt(named.group("lineup")), state)
        return
    direct = _attempt(rest) if explicit else _candidate(rest, guard=False)
    if isinstance(direct, Lineup):
        state.requests.append(SetLineup(line=line, team=None, lineup=direct))
        _note_row_words(rest, state)
        return
    without_for = _strip_for(rest)
    split = (_split_team_lineup(without_for) or _tail_lineup(without_for)
             or _labelled_tail(without_for))
    if split is not None:  # "Aufstellung Rote Teufel: L"
        _lineup_or_error(line, number, split[0], split[1], state)
    elif direct is None:  # no colon and nothing like a lineup follows: plain text
        _ignore_unless_lineup_shaped(line, rest, number, state)
    else:
        _error(line, number, direct.reason, EXAMPLE_LINEUP, state, part=direct.text)


def _on_register(line: str, number: int, rest: str, state: _State) -> None:
    lineup: _Candidate | None = None
    split = _split_team_lineup(rest)
    if split is not None and split[0] is not None:
        rest, lineup = split[0], split[1]
    name, _, short = rest.partition("/")
    name, short = _name(name), _name(short)
    if not name:
        _error(line, number, _MISSING["register"], _EXAMPLES["register"], state)
        return
    state.requests.append(RegisterTeam(line=line, name=name, short_name=short or None))
    if lineup is not None:
        _lineup_or_error(line, number, name, lineup, state)


def _on_short(line: str, number: int, rest: str, state: _State) -> None:
    state.requests.append(SetShortName(line=line, short_name=_name(rest)))


def _on_password(line: str, number: int, rest: str, state: _State) -> None:
    state.requests.append(GivePassword(line=line, password=rest.strip().strip(_QUOTES)))


def _on_manager(line: str, number: int, rest: str, state: _State) -> None:
    state.requests.append(SetManagerName(line=line, name=_name(rest)))


def _on_withdraw(line: str, number: int, rest: str, state: _State) -> None:
    state.requests.append(Withdraw(line=line, team=_name(rest)))


#: Handlers of the keywords that take a value (called with a non-empty value).
_HANDLERS: dict[str, Callable[[str, int, str, _State], None]] = {
    "team": _on_team,
    "register": _on_register,
    "short": _on_short,
    "password": _on_password,
    "manager": _on_manager,
    "withdraw": _on_withdraw,
}


# -- pieces -----------------------------------------------------------------------


def _ignore(line: str, state: _State) -> None:
    """Ignored lines are listed in the reply; the subject never is."""
    if not state.in_subject:
        state.ignored.append(line)


def _ignore_unless_lineup_shaped(line: str, text: str, number: int, state: _State) -> None:
    """Ignore ``line`` unless ``text`` looks like a lineup (RULES.md §11: a
    line that looks like a lineup but is not a valid one is an error)."""
    reason = _lineup_shape_error(text)
    if reason is None:
        _ignore(line, state)
    else:
        _error(line, number, reason, EXAMPLE_LINEUP, state, part=text)


def _lineup_shape_error(text: str) -> str | None:
    """Why ``text`` is no valid lineup although it looks like one (four or more
    numbers joined by ``-`` or ``/``, or four or more labelled rows such as
    ``T10 A10 V15 M15``), or None when it does not look like a lineup."""
    run = _LINEUP_RUN.search(text)
    if run is not None:
        attempt = _attempt(run.group(0))
        if isinstance(attempt, InvalidLineupError):
            return attempt.reason
        junk = text[run.end():].strip() or text[: run.start()].strip()
        return f"cannot read {junk!r} next to the lineup {run.group(0)}" if junk else None
    pairs = [m for m in _LABELLED_PAIR.finditer(text) if m.group(1).lower() in LABELS]
    if len({LABELS[m.group(1).lower()] for m in pairs}) < 4:
        return None
    attempt = _attempt(text[pairs[0].start():])
    if isinstance(attempt, InvalidLineupError):
        return attempt.reason
    junk = text[: pairs[0].start()].strip()
    return f"cannot read {junk!r} before the lineup" if junk else None


def _is_lineup_keyword(match: re.Match[str]) -> bool:
    return _SPELLING[" ".join(match.group("kw").lower().split())][0] == "lineup"


def _error(
    line: str, number: int, reason: str, example: str, state: _State, *, part: str | None = None
) -> None:
    state.errors.append(LineError(
        line=line, line_number=number, reason=reason, example=example, part=part,
        suggestion=_suggestion(part, reason) if part else None,
    ))


def _suggestion(part: str, reason: str) -> str | None:
    """The player's five numbers in the right form, when ``part`` holds
    exactly five of at most three digits, unlabelled and none negative."""
    if "negative" in reason or any(w.lower() in LABELS for w in _WORD.findall(part)):
        return None
    numbers = _NUMBER_RUN.findall(part)
    if len(numbers) != 5 or any(len(n) > 3 for n in numbers) or _GLUED.search(part):
        return None  # "2x" or "x5": which number was meant is not recognisable
    suggestion = "-".join(str(int(n)) for n in numbers)
    return suggestion if suggestion != part.strip() else None


def _lineup_or_error(
    line: str, number: int, team: str | None, candidate: _Candidate, state: _State
) -> None:
    if isinstance(candidate, Lineup):
        state.requests.append(SetLineup(line=line, team=team, lineup=candidate))
        _note_row_words(line, state)
    else:
        _error(line, number, candidate.reason, EXAMPLE_LINEUP, state, part=candidate.text)


def _name(text: str) -> str:
    return " ".join(text.split()).strip(_QUOTES).strip()


def _strip_for(rest: str) -> str:
    return re.sub(r"^(?:für|fuer|for|von|of)\s+", "", rest, flags=re.IGNORECASE)


def _attempt(text: str) -> _Candidate:
    """``text`` is meant as a lineup: the lineup, or why it is not one."""
    if len(text) > MAX_LINEUP_CHARS:
        if _UNLABELLED.fullmatch(text):
            count = len(_NUMBER_RUN.findall(text))
            return InvalidLineupError(text, f"{count} numbers instead of five")
        return InvalidLineupError(
            text, f"cannot read {_quote(text)!r}: too long for a lineup "
            f"({len(text)} characters, at most {MAX_LINEUP_CHARS})")
    try:
        return Lineup.parse(text)
    except InvalidLineupError as error:
        return error


def _candidate(text: str, *, guard: bool = True) -> _Candidate | None:
    """The lineup in ``text``, an ``InvalidLineupError`` if it looks like a
    lineup but is not one, None if it is no lineup attempt at all
    (``guard``: see ``_looks_like_lineup``)."""
    return _attempt(text) if _looks_like_lineup(text, guard=guard) else None


def _looks_like_lineup(text: str, *, guard: bool = True) -> bool:
    """Only row labels, numbers and separators, at least three numbers; with
    ``guard`` also none with four or more digits (years, postcodes, phone
    numbers) and no leading ``+``."""
    stripped = text.strip().rstrip(".").strip()
    if not stripped or not _LINEUP_CHARS.match(stripped):
        return False
    if guard and stripped.startswith("+"):
        return False
    if _DOTTED.search(stripped):
        return False  # a date, an IP address or a status code such as 5.1.1
    if any(word.lower() not in LABELS for word in _WORD.findall(stripped)):
        return False
    numbers = _NUMBER.findall(stripped)
    return len(numbers) >= 3 and (not guard or all(len(n) < 4 for n in numbers))


def _split_team_lineup(text: str) -> tuple[str | None, _Candidate] | None:
    """``"NAME: L"`` split at the first colon after which a lineup candidate
    follows; the name must not itself be part of a labelled lineup."""
    tried = 0
    for position in _colons(text):
        tried += 1
        if tried > MAX_COLONS:
            break
        left, right = text[:position].strip(), text[position + 1 :].strip()
        if not left or not right or not _LETTER.search(left):
            continue
        if _looks_like_lineup(left + " 0 0 0"):
            continue  # "T: 10 A: 10 ..." - the colon belongs to the lineup
        candidate = _candidate(right)
        if candidate is not None:
            return _team_from_left(left), candidate
    return None


def _colons(text: str) -> Iterable[int]:
    position = text.find(":")
    while position >= 0:
        yield position
        position = text.find(":", position + 1)


def _tail_lineup(text: str) -> tuple[str | None, _Candidate] | None:
    """``"NAME 10-10-15-15-20"``: a name followed by four to six numbers
    separated by ``-`` or ``/`` (five: a lineup; otherwise an error)."""
    match = _TAIL_LINEUP.search(text)
    if match is None:
        return None
    name = text[: match.start()].strip().rstrip(" :")
    if not _LETTER.search(name):
        return None
    if _looks_like_lineup(name + " 0 0 0"):
        return None
    if any(len(n) >= 4 for n in _NUMBER.findall(match.group("lineup"))):
        return None  # a phone number such as "Tel. 0171-123-45-67"
    return _team_from_left(name), _attempt(match.group("lineup"))


def _labelled_tail(text: str) -> tuple[str | None, _Candidate] | None:
    """``"NAME T10 A10 V15 M15 S20"``: a name followed by a labelled lineup
    (four or more rows labelled, in any order)."""
    pairs = [m for m in _LABELLED_PAIR.finditer(text) if m.group(1).lower() in LABELS]
    if len({LABELS[m.group(1).lower()] for m in pairs}) < 4:
        return None
    name = text[: pairs[0].start()].strip().rstrip(":").strip()
    if not _LETTER.search(name) or _looks_like_lineup(name + " 0 0 0"):
        return None
    return _team_from_left(name), _attempt(text[pairs[0].start():])


def _team_from_left(left: str) -> str | None:
    left = _name(left)
    match = _LINEUP_LEFT.match(left)
    if match:
        return _name(match.group("team")) or None
    if _LINEUP_WORD.search(left):
        return None  # "Hier meine Aufstellung: ..." - no team named
    match = _TEAM_LEFT.match(left)
    if match:
        return _name(match.group("team")) or None
    return left or None


# -- language -------------------------------------------------------------------------


def _count_words(line: str, state: _State) -> None:
    for word in _WORD.findall(line.lower()):
        if word in _DE_WORDS:
            state.words_de += 1
        elif word in _EN_WORDS:
            state.words_en += 1


def _note_row_words(text: str, state: _State) -> None:
    for word in _WORD.findall(text.lower()):
        if word in _EN_ROW_WORDS:
            state.keyword_languages.add("en")
        elif word in _DE_ROW_WORDS:
            state.keyword_languages.add("de")


def _language(state: _State) -> str:
    if "de" in state.keyword_languages:
        return "de"
    if "en" in state.keyword_languages:
        return "en"
    return "en" if state.words_en > state.words_de else "de"
