"""``Regeln`` / ``Rules``: the reply carries the rules a player can read
(RULES.md §12: open to anyone, no password). The document is the package's
``bot/data/rules/<language>.md`` (``bot.render.rules_doc``), in the mail's
language; nothing is changed and a stranger is not registered."""

from __future__ import annotations

from dataclasses import dataclass

from bot.errors import N_
from bot.mail.vocabulary import KeywordCommand, Value
from bot.rules.requests import Request
from bot.service.commands.base import Access, Command, Session

#: The notice of a reply that carries the rules (``templates/mail/notice/rules.txt.j2``).
RULES = "rules"


@dataclass(frozen=True, slots=True)
class AskRules(Request):
    pass


def ask_rules(s: Session, request: AskRules) -> None:
    s.note(RULES)


COMMANDS = (
    Command(
        AskRules, ask_rules, Access.ANYONE, codes={RULES: N_("Asked for the rules.")},
        keyword=KeywordCommand("rules", {"de": ("regeln", "spielregeln"),
                                         "en": ("rules", "game rules")},
                               Value.OPTIONAL, lambda line, value: AskRules(line)),
    ),
)
