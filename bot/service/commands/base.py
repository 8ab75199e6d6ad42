"""What a command is: its request type, who may run it, how it is read, its handler.

A ``Command`` declares everything about one kind of request in one place:

* ``request`` — the request type (a ``bot.rules.requests.Request``);
* ``handler`` — the function that carries it out on the mail's ``Session``
  (changes the state, notes what the reply says, or refuses with an error);
* ``access`` — who may run it (``Access``), checked by the runner alone;
* ``registers`` — whether a stranger's such request makes him a manager
  first (a lineup does, a question does not);
* ``keyword`` — how the grammar reads it from a line
  (``bot.mail.vocabulary.KeywordCommand``); None for the requests of the
  lineup language, which the grammar reads by their shape;
* ``codes`` — the notice codes its handler writes beyond the league's
  (``bot.league.outcome.Code``), each with the sentence the game master's
  digest says of it (a catalog message, marked ``N_``); each code has its
  template, ``templates/mail/notice/<code>.txt.j2``;
* ``audience`` — whose mail it belongs to: a player's or the game master's;
* ``alone`` — a mail with this request carries out nothing else (a lost
  password: the mail is about that, whatever else it holds).

The registry (``bot.service.commands.registry``) collects them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from bot.league.session import MailSession
from bot.mail.vocabulary import KeywordCommand
from bot.rules.requests import Request

if TYPE_CHECKING:
    from bot.service.context import Context

R = TypeVar("R", bound=Request)


class Access(StrEnum):
    """Who may run a command (RULES.md §9, §12, §13)."""

    #: Anyone, without a password: a stranger too (help, a lost password).
    ANYONE = "anyone"
    #: A manager, with his password when he has one; a stranger's first mail
    #: registers him (for the commands that ``register``).
    MANAGER = "manager"
    #: The game master, in a mail that passed the game master's checks.
    GM = "gm"


class Audience(StrEnum):
    """Whose mail a command is read from: the same word may mean one thing in
    a player's mail and another in the game master's (``Status``)."""

    PLAYER = "player"
    GM = "gm"


@dataclass
class Session(MailSession):
    """One mail's requests being carried out (``MailSession``), with what the
    commands beyond the lineup language need: the use cases' ``Context``
    (settings, render cache, clock), and where the reply goes."""

    context: Context | None = None
    #: Another address for the reply than the mail's sender, and its name
    #: (the registered address of a manager, never a Reply-To).
    reply_to: str | None = None
    reply_to_name: str | None = None
    #: The ledger's code (``bot.storage.ledger.Outcome``) and line for this
    #: mail instead of the usual accepted/rejected summary.
    ledger: tuple[str, str] | None = None
    #: The language the manager chose in this mail (``Sprache: Englisch``): the
    #: reply's, and stored instead of the language the mail is written in.
    language: str | None = None
    #: The mail passed the game master's checks (RULES.md §13): only then do
    #: the game master's commands run.
    gm: bool = False

    @property
    def ctx(self) -> Context:
        """The use cases' context (every command run by the ingest has one)."""
        if self.context is None:
            raise RuntimeError("this command needs the service context")
        return self.context


Handler = Callable[[Session, Any], None]


@dataclass(frozen=True)
class Command(Generic[R]):
    """One kind of request and everything about it (module doc)."""

    request: type[R]
    handler: Callable[[Session, R], None]
    access: Access
    registers: bool = False
    keyword: KeywordCommand | None = None
    codes: Mapping[str, str] = field(default_factory=dict)
    audience: Audience = Audience.PLAYER
    alone: bool = False

    def __post_init__(self) -> None:
        if self.registers and self.access is not Access.MANAGER:
            raise ValueError(f"{self.request.__name__}: only a manager's command registers")
        if self.alone and self.access is not Access.ANYONE:
            raise ValueError(f"{self.request.__name__}: a command that stands alone is "
                             "open to anyone (nothing else of its mail is checked)")
