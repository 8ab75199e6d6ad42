"""The mail grammar (RULES.md §11): free text -> ``ParsedMoves``.

One command per line; keywords are case-insensitive, German or English.
Between a keyword or a team name and its value any of ``:`` ``=`` ``–``
``—`` or ``-`` followed by a space, or plain spaces (``separated``,
``bot.mail.vocabulary.SEPARATOR``; ``lineup_text.split_team_lineup``):
``Aufstellung - 10-8-25-20-20``, ``Westfalia Altona – 10-5-13-40-13``.
The subject is read first (reply and forward prefixes removed; it counts
as line 0 and is never listed as ignored), then every line of the fresh
text (line numbers from 1).

==============================  ====================================
line                            request
==============================  ====================================
``Team: NAME``                  ``SelectTeam`` (``Mannschaft:``, ``Mein Team:``,
                                ``My team:``)
``Aufstellung: L``              ``SetLineup(team=None)`` (``Lineup:``)
``... L für 3 Runden``          ``SetLineupAhead`` (``for 3 rounds``)
``NAME: L``                     ``SetLineup(team=NAME)``
``NAME L`` (L with - or /)      ``SetLineup(team=NAME)``
``L`` alone                     ``SetLineup(team=None)``
``Neues Team: NAME / SHORT``    ``RegisterTeam`` (``New team:``)
``Kurzname: SHORT``             ``SetShortName`` (``Kürzel:``, ``Short name:``)
``Passwort: X``                 ``GivePassword`` (``Kennwort:``, ``Password:``)
``KEYWORD [value]``             the request of a command of the
                                ``vocabulary`` (``Status``, ``Hilfe``,
                                ``Zurückziehen: NAME``, ...;
                                ``bot.mail.vocabulary``)
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
* comments (``bot.mail.comments``): on a command line, text in parentheses
  after the value and anything from ``#`` or ``//`` (at the start or after
  a space) to the end is skipped; a line that is no command with its
  comment removed is read as a whole, as before;
* sign-offs: a closing line and up to three short lines after it that are
  no command are a signature (``bot.mail.signoffs``), never "ignored";
* greetings and prose (``bot.mail.prose``): a short greeting as the first
  line of the text is not read; a line that is no command is a message to a
  person (``ParsedMoves.prose``: forwarded to the game master), a line that
  goes with the commands (not mentioned), or an attempted command (listed
  as ignored, "not understood").

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

Language: ``bot.mail.mail_language`` (keywords first, then common words).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from bot.mail.ahead_text import mark_ahead, split_ahead
from bot.mail.comments import split_comments
from bot.mail.keywords import (
    EXAMPLE_LINEUP,
    EXAMPLES,
    FOR_TEAM,
    GERMAN_PREFIX,
    LABELLED_PAIR,
    LETTER,
    LINEUP_RUN,
    MAX_LINE_CHARS,
    MAX_LINEUP_CHARS,
    MAX_SUBJECT_CHARS,
    MISSING,
    QUOTES,
    normalise,
    strip_subject_prefixes,
)
from bot.mail.lineup_text import (
    Candidate,
    attempt_lineup,
    clean_name,
    labelled_tail,
    lineup_candidate,
    lineup_shape_error,
    quote_start,
    split_team_lineup,
    strip_for,
    suggest_lineup,
    tail_lineup,
)
from bot.mail.mail_language import LanguageGuess
from bot.mail.prose import Kind, is_greeting, judge
from bot.mail.signoffs import MAX_NAME_LINE, MAX_NAME_LINES, is_name_line, is_signoff
from bot.mail.typos import correct_keyword, team_key
from bot.mail.vocabulary import CORE, KeywordCommand, Value, Vocabulary, separated
from bot.rules.lineup import LABELS, Lineup
from bot.rules.requests import (
    COMMENT,
    LINE_SCOPE,
    LONG_TEXT,
    MAIL_SCOPE,
    SIGNATURE,
    TEAM_SCOPE,
    TOO_LONG,
    TYPO,
    GivePassword,
    LineError,
    ParsedMoves,
    ReadNote,
    RegisterTeam,
    Request,
    SelectTeam,
    SetLineup,
    SetShortName,
)

__all__ = [
    "EXAMPLE_LINEUP", "MAX_LINEUP_CHARS", "MAX_LINE_CHARS", "MAX_SUBJECT_CHARS",
    "parse_moves", "strip_subject_prefixes",
]


_Mark = tuple[int, int, int, int, frozenset[str], str | None, int]


@dataclass
class _State:
    requests: list[Request] = field(default_factory=list)
    errors: list[LineError] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    #: Lines that are a message to a person (``bot.mail.prose``).
    prose: list[str] = field(default_factory=list)
    notes: list[ReadNote] = field(default_factory=list)
    lang: LanguageGuess = field(default_factory=LanguageGuess)
    team_keys: frozenset[str] = frozenset()
    vocab: Vocabulary = CORE
    in_subject: bool = False
    #: The team a line without a team name is for (``Team: NAME`` or
    #: ``Neues Team: NAME`` before it), for the errors' ``team``.
    selected: str | None = None

    def mark(self) -> _Mark:
        return (len(self.requests), len(self.errors), len(self.ignored), len(self.notes),
                frozenset(self.lang.keywords), self.selected, len(self.prose))

    def produced(self, mark: _Mark) -> bool:
        """Did the lines read since ``mark`` give a request, an error or a
        message to a person?"""
        return (len(self.requests) > mark[0] or len(self.errors) > mark[1]
                or len(self.prose) > mark[6])

    def undo(self, mark: _Mark) -> None:
        del self.requests[mark[0]:], self.errors[mark[1]:]
        del self.ignored[mark[2]:], self.notes[mark[3]:], self.prose[mark[6]:]
        self.lang.keywords, self.selected = set(mark[4]), mark[5]


def parse_moves(
    subject: str, text: str, *, team_names: Iterable[str] = (), vocabulary: Vocabulary = CORE
) -> ParsedMoves:
    """Read the commands of one mail (``subject`` and its fresh ``text``).

    ``team_names``: the names (and short names) of the sender's teams, if
    known; a word that is one of them is never read as a mistyped keyword.
    ``vocabulary``: the commands beyond the lineup language (``CORE``: none).
    """
    state = _State(team_keys=frozenset(team_key(n) for n in team_names if n), vocab=vocabulary)
    subject = subject or ""
    if GERMAN_PREFIX.match(subject[:100]):
        state.lang.words_de += 2
    head = strip_subject_prefixes(subject[: MAX_SUBJECT_CHARS + 200])
    too_long = len(subject) > MAX_SUBJECT_CHARS + 200 or len(head) > MAX_SUBJECT_CHARS
    stripped_subject = normalise(head[:MAX_SUBJECT_CHARS] if too_long else head)
    if stripped_subject:
        state.in_subject = True
        if too_long:
            _too_long(stripped_subject, 0, len(subject), MAX_SUBJECT_CHARS, state)
        else:
            state.lang.count_words(stripped_subject)
            _read_line(stripped_subject, 0, state)
        state.in_subject = False
    signature: list[str] = []  # the sign-off and the name lines after it
    signature_line = 0
    first = True
    last = ""
    for number, raw in enumerate((text or "").splitlines(), start=1):
        line = normalise(raw)
        if not line:
            continue
        last = line
        if first:
            first = False
            if is_greeting(line):  # "Hallo Spielleitung,": not read, not listed
                state.lang.count_words(line)
                continue
        if len(line) > MAX_LINE_CHARS:
            signature = _close_signature(signature, signature_line, state)
            _too_long(line[:MAX_LINE_CHARS], number, len(line), MAX_LINE_CHARS, state)
            continue
        state.lang.count_words(line)
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
    if state.ignored and state.ignored[-1] == last and is_name_line(last):
        state.ignored.pop()  # "Sam" under the mail: a name, not a command
    return ParsedMoves(
        requests=tuple(state.requests),
        errors=tuple(state.errors),
        ignored=tuple(state.ignored),
        language=state.lang.language,
        language_known=state.lang.known,
        notes=tuple(state.notes),
        prose=tuple(state.prose),
    )


def _close_signature(signature: list[str], number: int, state: _State) -> list[str]:
    if signature:
        state.notes.append(ReadNote(SIGNATURE, number, " / ".join(signature)))
    return []


def _too_long(head: str, number: int, length: int, limit: int, state: _State) -> None:
    """A line (or the Subject) longer than ``limit``: an error if it starts
    like a command (a keyword, a typo of one, a number, a lineup near the
    start, one of the sender's teams), else ordinary text that is skipped."""
    start = head[:MAX_LINEUP_CHARS]
    commandlike = (
        state.vocab.keyword.match(start) is not None
        or correct_keyword(start, state.vocab.command_of, state.team_keys) is not None
        or start[:1].isdigit()
        or LINEUP_RUN.search(start) is not None
        or labelled_tail(start) is not None
        or ((pair := LABELLED_PAIR.match(start)) is not None
            and pair.group(1).lower() in LABELS)
        or any(team_key(start).startswith(key) for key in state.team_keys)
    )
    if commandlike:
        who = "the subject" if number == 0 else "the line"
        state.errors.append(LineError(
            line=quote_start(head), line_number=number,
            reason=f"{who} is too long ({length} characters, at most {limit} are read)",
            example=EXAMPLE_LINEUP, kind=TOO_LONG, part=quote_start(head), limit=limit,
            length=length, scope=MAIL_SCOPE,
        ))
        return
    _ignore(quote_start(head), state)
    state.notes.append(ReadNote(LONG_TEXT, number, quote_start(head), str(limit)))


def _read_line(line: str, number: int, state: _State) -> None:
    """One line with comments and typos (module docstring); falls back to
    reading the line exactly as written."""
    body, comments = split_comments(line)
    correction = None
    if state.vocab.keyword.match(body) is None:
        correction = correct_keyword(body, state.vocab.command_of, state.team_keys)
        if correction is not None and not _command_shaped(correction.line, state.vocab):
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
                                        state.vocab.display(correction.spelling)))
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


def _command_shaped(line: str, vocab: Vocabulary) -> bool:
    """A corrected line must look like a command (module docstring)."""
    match = vocab.keyword.match(line)
    if match is None:
        return False
    command = vocab.lookup(match.group("kw"))[0]
    rest = match.group("rest").strip()
    spec = vocab.command(command)
    if spec is not None and spec.value is not Value.REQUIRED:
        return not rest.strip("?!. ")
    if command == "team" and lineup_candidate(rest) is not None:
        return False  # "Tean: 10-10-15-15-20" is a lineup for the team "Tean"
    if separated(match):
        return True
    return command == "lineup" and lineup_candidate(rest, guard=False) is not None


# -- one line -------------------------------------------------------------------


def _parse_line(line: str, number: int, state: _State) -> None:
    ahead = split_ahead(line)  # "... für 3 Runden": lineups ahead (bot.mail.ahead_text)
    if ahead is not None:
        mark = state.mark()
        _parse_line(ahead.body, number, state)
        if mark_ahead(state.requests, state.errors, mark[:2], ahead, line):
            state.lang.keywords.add(ahead.language)
            return
        state.undo(mark)
    keyword = state.vocab.keyword.match(line)
    if keyword is not None and separated(keyword):
        _keyword(keyword, line, number, state, explicit=True)
        return
    whole = lineup_candidate(line)
    if isinstance(whole, Lineup):
        state.requests.append(SetLineup(line=line, team=None, lineup=whole))
        state.lang.note_row_words(line)
        return
    if keyword is not None and state.vocab.lookup(keyword.group("kw"))[0] == "lineup":
        value = lineup_candidate(keyword.group("rest"), guard=False)
        if isinstance(value, Lineup):  # "Lineup T: 10, A: 10, ..." (colon optional)
            _keyword(keyword, line, number, state, explicit=False)
            return
    split = split_team_lineup(line)
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
    tail = tail_lineup(line) or labelled_tail(line)
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
    command, language = state.vocab.lookup(match.group("kw"))
    if language is not None:
        state.lang.keywords.add(language)
    rest = match.group("rest").strip()
    spec = state.vocab.command(command)
    if spec is not None:
        _on_command(spec, line, number, rest, state, explicit=explicit)
    elif command == "lineup":
        _on_lineup(line, number, rest, state, explicit=explicit)
    elif command == "team" and not explicit and (
            " " in match.group("kw").strip() or rest.endswith(("?", "!", "."))):
        # "Mein Team hat keine Chance." / "Team ist super!": a sentence, not a command
        _ignore_unless_lineup_shaped(line, line, number, state)
    elif not clean_name(rest):
        if explicit:
            _error(line, number, MISSING[command], EXAMPLES[command], state, scope=LINE_SCOPE)
        else:
            _ignore(line, state)
    else:
        _HANDLERS[command](line, number, rest, state)


def _on_team(line: str, number: int, rest: str, state: _State) -> None:
    split = split_team_lineup(rest) or tail_lineup(rest) or labelled_tail(rest)
    if split is not None and split[0] is not None:
        _lineup_or_error(line, number, split[0], split[1], state)
        return
    state.requests.append(SelectTeam(line=line, team=clean_name(rest)))
    state.selected = clean_name(rest)


def _on_lineup(line: str, number: int, rest: str, state: _State, *, explicit: bool) -> None:
    if not rest.strip(" :"):
        _ignore(line, state)  # a heading: "Aufstellung:" above the lineup line
        return
    named = FOR_TEAM.match(rest)
    if named is not None and LETTER.search(named.group("team")):  # "Aufstellung für NAME: L"
        team = clean_name(named.group("team"))
        _lineup_or_error(line, number, team, attempt_lineup(named.group("lineup")), state)
        return
    direct = attempt_lineup(rest) if explicit else lineup_candidate(rest, guard=False)
    if isinstance(direct, Lineup):
        state.requests.append(SetLineup(line=line, team=None, lineup=direct))
        state.lang.note_row_words(rest)
        return
    without_for = strip_for(rest)
    split = (split_team_lineup(without_for) or tail_lineup(without_for)
             or labelled_tail(without_for))
    if split is not None:  # "Aufstellung Rote Teufel: L"
        _lineup_or_error(line, number, split[0], split[1], state)
    elif direct is None:  # no colon and nothing like a lineup follows: plain text
        _ignore_unless_lineup_shaped(line, rest, number, state)
    else:
        _error(line, number, direct.reason, EXAMPLE_LINEUP, state, part=direct.text)


def _on_register(line: str, number: int, rest: str, state: _State) -> None:
    lineup: Candidate | None = None
    split = split_team_lineup(rest)
    if split is not None and split[0] is not None:
        rest, lineup = split[0], split[1]
    name, _, short = rest.partition("/")
    name, short = clean_name(name), clean_name(short)
    if not name:
        _error(line, number, MISSING["register"], EXAMPLES["register"], state,
               scope=LINE_SCOPE)
        return
    state.requests.append(RegisterTeam(line=line, name=name, short_name=short or None))
    state.selected = name
    if lineup is not None:
        _lineup_or_error(line, number, name, lineup, state)


def _on_short(line: str, number: int, rest: str, state: _State) -> None:
    state.requests.append(SetShortName(line=line, short_name=clean_name(rest)))


def _on_password(line: str, number: int, rest: str, state: _State) -> None:
    state.requests.append(GivePassword(line=line, password=rest.strip().strip(QUOTES)))


#: Handlers of the core keywords that take a value (called with a non-empty value).
_HANDLERS: dict[str, Callable[[str, int, str, _State], None]] = {
    "team": _on_team,
    "register": _on_register,
    "short": _on_short,
    "password": _on_password,
}


def _on_command(
    spec: KeywordCommand, line: str, number: int, rest: str, state: _State, *, explicit: bool
) -> None:
    """A command of the vocabulary (``bot.mail.vocabulary.Value`` says what may
    follow its keyword); a value it cannot read is an error of the line."""
    if spec.value is Value.NONE and rest.strip("?!. "):
        _ignore_unless_lineup_shaped(line, line, number, state)  # text that starts alike
        return
    value = clean_name(rest) if spec.value is Value.REQUIRED else rest.strip()
    if spec.value is Value.REQUIRED and not value:
        if explicit:
            _error(line, number, spec.missing, spec.example, state, scope=LINE_SCOPE)
        else:
            _ignore(line, state)
        return
    try:
        state.requests.append(spec.build(line, value))
    except ValueError as problem:
        if not explicit:  # "Sprache ist egal": text that starts like a command (module doc)
            _ignore_unless_lineup_shaped(line, line, number, state)
            return
        _error(line, number, str(problem), spec.example or EXAMPLE_LINEUP, state, part=value,
               scope=LINE_SCOPE)


# -- pieces -----------------------------------------------------------------------


def _ignore(line: str, state: _State) -> None:
    """A line that is no command: a message to a person is kept for the game
    master, an attempted command is listed in the reply as not understood,
    anything else goes unmentioned (``bot.mail.prose``); the subject is never
    listed."""
    kind = judge(line, subject=state.in_subject)
    if kind is Kind.MESSAGE:
        state.prose.append(line)
    elif kind is Kind.ATTEMPT and not state.in_subject:
        state.ignored.append(line)


def _ignore_unless_lineup_shaped(line: str, text: str, number: int, state: _State) -> None:
    """Ignore ``line`` unless ``text`` looks like a lineup (RULES.md §11: a
    line that looks like a lineup but is not a valid one is an error)."""
    reason = lineup_shape_error(text)
    if reason is None:
        _ignore(line, state)
    else:
        _error(line, number, reason, EXAMPLE_LINEUP, state, part=text)


def _error(
    line: str, number: int, reason: str, example: str, state: _State, *,
    part: str | None = None, scope: str = TEAM_SCOPE, team: str | None = None,
) -> None:
    """An error of ``line``; a lineup's (``TEAM_SCOPE``) belongs to ``team``,
    or without one to the team selected before the line (``LineError``)."""
    state.errors.append(LineError(
        line=line, line_number=number, reason=reason, example=example, part=part,
        suggestion=suggest_lineup(part, reason) if part else None, scope=scope,
        team=(team or state.selected) if scope == TEAM_SCOPE else None,
    ))


def _lineup_or_error(
    line: str, number: int, team: str | None, candidate: Candidate, state: _State
) -> None:
    if isinstance(candidate, Lineup):
        state.requests.append(SetLineup(line=line, team=team, lineup=candidate))
        state.lang.note_row_words(line)
    else:
        _error(line, number, candidate.reason, EXAMPLE_LINEUP, state, part=candidate.text,
               team=team)
