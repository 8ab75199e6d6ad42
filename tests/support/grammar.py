"""The grammar as the ingest runs it: with the vocabulary of every command
(``bot.service.commands``), so a test reads ``Status`` or ``Zurückziehen``
as a player's mail would be read."""

from __future__ import annotations

from collections.abc import Iterable

from bot.mail import grammar
from bot.mail.vocabulary import Vocabulary
from bot.rules.requests import ParsedMoves
from bot.service.commands import registry


def vocabulary() -> Vocabulary:
    """The keywords of a player's mail."""
    return registry().vocabulary()


def parse_moves(subject: str, text: str, *, team_names: Iterable[str] = (),
                vocabulary: Vocabulary | None = None) -> ParsedMoves:
    """``bot.mail.grammar.parse_moves`` with every command's keywords."""
    return grammar.parse_moves(subject, text, team_names=team_names,
                               vocabulary=vocabulary or registry().vocabulary())
