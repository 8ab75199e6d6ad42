"""``Ergebnisse`` / ``Ergebnisse Runde 12`` / ``Results [round 12]``: a round's
newsletter again, the manager's personal copy (RULES.md §8, §12). No password.

Without a round: the last evaluated one. Only the plural is a keyword
(``Ergebnis: 3:1`` in a mail is a sentence about a game). The copy is the
newsletter as the manager got it, with his personal block
(``bot.service.publish.render_round`` for the stored round,
``bot.render.personal`` for the block); the mail's language decides the
copy's as it decides the reply's.

**Decisions.** The copy is the reply itself (its plain text; the HTML version
is in the archive): the mail gets exactly one reply (RULES.md §9), and a mail
that changes nothing because of an error elsewhere cannot have sent a copy
its reply does not mention. It goes to the registered address only (the
sender's, never a Reply-To). A stranger has no personal copy: he is told so
politely and nothing is mailed (the bot does not mail newsletters to any
address a From names). A round that does not exist or is not evaluated
yet: a notice naming the last evaluated round.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.errors import N_
from bot.league.news import stored_news
from bot.mail.vocabulary import KeywordCommand, Value
from bot.render.personal import splice
from bot.rules.requests import Request
from bot.service.commands.base import Access, Command, Session
from bot.service.publish import personal_part, render_round
from bot.storage import rounds as round_rows

RESULTS = "results"
RESULTS_NONE_YET = "results_none_yet"
RESULTS_NOT_EVALUATED = "results_not_evaluated"
RESULTS_STRANGER = "results_stranger"

#: ``Runde 12``, ``der Runde 12``, ``round 12``, ``for round #12``, ``12``.
_ROUND = re.compile(
    r"^(?:(?:der|von|vom|aus|of|for|from)\s+)?(?:(?:spiel)?runde|round|rd\.?)?\s*"
    r"(?:nr\.?|no\.?|#)?\s*(?P<n>\d{1,5})\.?$",
    re.IGNORECASE,
)
UNREADABLE_ROUND = N_('which round? Write e.g. "Results round 12"')


@dataclass(frozen=True, slots=True)
class AskResults(Request):
    """The newsletter of ``round`` again (None: the last evaluated round)."""

    round: int | None = None


def read_results(line: str, value: str) -> AskResults:
    """``Runde 12`` -> round 12; no value, or words only (``bitte``, ``der
    letzten Runde``): the last round; a number in another form is an error."""
    value = value.strip(" ?!.:")
    match = _ROUND.match(value)
    if match is not None:
        return AskResults(line, int(match.group("n")))
    if any(c.isdigit() for c in value):
        raise ValueError(UNREADABLE_ROUND)
    return AskResults(line)


def ask_results(s: Session, request: AskResults) -> None:
    if s.manager is None:
        s.note(RESULTS_STRANGER, address=s.address)
        return
    manager = s.manager
    s.reply_to, s.reply_to_name = manager.address, manager.display_name
    last = round_rows.last_evaluated(s.conn)
    if last is None:
        s.note(RESULTS_NONE_YET)
        return
    number = request.round if request.round is not None else last.number
    wanted = round_rows.round_by_number(s.conn, number)
    if wanted is None or wanted.is_open:
        s.note(RESULTS_NOT_EVALUATED, round=number, last=last.number,
               exists=wanted is not None)
        return
    news = stored_news(s.conn, s.settings, number)
    language = _reply_language(s)
    common = render_round(s.ctx, number, language, news=news)
    part = personal_part(s.ctx, news, manager.id, language)  # as the newsletter had it
    s.note(RESULTS, round=number, season=news.season, round_in_season=news.round_in_season,
           text=splice(common, part).text)


def _reply_language(s: Session) -> str:
    """The language the reply will be in: the mail's when it showed one, else
    the manager's (as ``bot.service.commands.runner`` decides it)."""
    known = s.manager.language if s.manager is not None else None
    return s.moves.language if s.moves.language_known or not known else known


COMMANDS = (
    Command(
        AskResults, ask_results, Access.ANYONE,
        codes={RESULTS: N_("Asked for a round's results again."),
               RESULTS_NONE_YET: N_("Asked for results before any round was evaluated."),
               RESULTS_NOT_EVALUATED: N_("Asked for the results of a round not evaluated."),
               RESULTS_STRANGER: N_("Asked for results, but is no manager.")},
        keyword=KeywordCommand(
            "results",
            {"de": ("ergebnisse",), "en": ("results",)},
            Value.OPTIONAL, read_results, example=N_("Results round 12"),
        ),
    ),
)
