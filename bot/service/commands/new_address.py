"""``Neue Adresse: neu@example.org`` / ``New address: ...`` (RULES.md §12): a
manager moves to another mail address.

Two mails: this one (with the password, from the registered address) makes
a request that waits 7 days, and a confirmation code is mailed to the new
address (``bot.league.confirmations``); the move happens when a mail **from
the new address** carries ``Bestätigen: CODE`` / ``Confirm: CODE``
(``confirm``). Then the manager's row is known by the new address: his
teams, WP, PSZ, password and language move with it, every other request of
his that waited is void, and the old address is told where the teams went.

Refused, changing nothing: a value that is no single mail address (an error
of its line), the manager's own address, and an address that has a manager
already or is the game's own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from email.utils import getaddresses

from bot.errors import N_
from bot.league import confirmations
from bot.league.addresses import normalize_address
from bot.league.confirmations import Confirmation
from bot.league.errors import LeagueError
from bot.league.outcome import Code, Notice
from bot.mail.address_check import ComposeError, check_address
from bot.mail.compose import MailKind
from bot.mail.vocabulary import KeywordCommand, Value
from bot.render.account_mail import Title, render_account_mail
from bot.rules.requests import Request
from bot.service.commands.base import Access, Command, Session
from bot.service.outgoing import queue_mail
from bot.storage import confirmations as confirmation_rows
from bot.storage import managers as manager_rows

#: The purpose of a waiting move (``confirmations``).
MOVE = "move"

ADDRESS_CODE_SENT = "address_code_sent"
ADDRESS_CODE = "address_code"
ADDRESS_SAME = "address_same"
ADDRESS_TAKEN = "address_taken"
ADDRESS_MOVED = "address_moved"
ADDRESS_MOVED_AWAY = "address_moved_away"

#: Why a value is no address (the reply shows it in the reader's language).
NOT_AN_ADDRESS = N_("not a single mail address such as neu@example.org")
#: What mail programs make of an address in HTML mail: ``a@b.c <mailto:a@b.c>``.
_MAILTO = re.compile(r"\s*[<(\[]\s*mailto:[^>)\]]*[>)\]]\s*$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class NewAddress(Request):
    """Move the manager to ``address`` (in the league's spelling)."""

    address: str


def parse_address(value: str) -> str:
    """The one address in ``value`` in the league's spelling (``normalize_address``);
    ``ValueError`` when it is no single plain address."""
    text = _MAILTO.sub("", value.strip().lstrip("-–—:= ")).strip().rstrip(".")
    found = getaddresses([text])
    address = found[0][1] if len(found) == 1 else ""
    try:
        return normalize_address(check_address(address or text, "new"))
    except (ComposeError, LeagueError):
        raise ValueError(NOT_AN_ADDRESS) from None


def request_move(s: Session, request: NewAddress) -> None:
    manager = s.manager
    if manager is None:  # nobody to move
        s.note(Code.NOT_REGISTERED, address=s.address)
        return
    new = request.address
    if new == manager.address:
        s.fail(ADDRESS_SAME, address=new, line=request.line)
        return
    game = {normalize_address(a) for a in (s.ctx.settings.game_address,
                                           s.ctx.settings.sender.address)}
    if new in game or manager_rows.manager_by_address(s.conn, new) is not None:
        s.fail(ADDRESS_TAKEN, address=new, line=request.line)
        return
    issued = confirmations.issue(s.conn, purpose=MOVE, confirm_from=new,
                                 manager_id=manager.id, now=s.now)
    code = Notice(ADDRESS_CODE, {"code": confirmations.shown(issued.code),
                                 "until": issued.expires_at})
    _mail(s, "confirm_address", code, to=new, name=manager.display_name,
          language=_language(s), key=f"confirm/{issued.id}")
    s.reply_to, s.reply_to_name = manager.address, manager.display_name
    s.note(ADDRESS_CODE_SENT, address=new, until=issued.expires_at)


def carry_out_move(s: Session, confirmed: Confirmation) -> None:
    """The move a code from the new address confirmed (``confirm``)."""
    assert confirmed.manager_id is not None
    manager = manager_rows.manager_by_id(s.conn, confirmed.manager_id)
    new = confirmed.confirm_from
    if manager_rows.manager_by_address(s.conn, new) is not None:  # registered meanwhile
        s.fail(ADDRESS_TAKEN, address=new, line="")
        return
    old = manager.address
    manager_rows.set_address(s.conn, manager.id, new)
    confirmation_rows.replace_all_pending(s.conn, manager.id, s.now)
    _mail(s, "address_moved", Notice(ADDRESS_MOVED_AWAY, {"address": new}), to=old,
          name=manager.display_name, language=manager.language or _language(s),
          key=f"moved/{confirmed.id}")
    s.manager = manager_rows.manager_by_id(s.conn, manager.id)
    s.note(ADDRESS_MOVED, old=old, address=new)


def _language(s: Session) -> str:
    """The language of this mail's reply (``runner``), for the mails it causes."""
    if s.language is not None:
        return s.language
    known = s.manager.language if s.manager is not None else None
    if s.manager is not None and s.manager.language_chosen and known:
        return known
    return s.moves.language if s.moves.language_known or not known else known


def _mail(s: Session, title: Title, notice: Notice, *, to: str, name: str | None,
          language: str, key: str) -> None:
    """A mail of one notice to ``to``, queued with the reply (in the same
    transaction: a refused mail queues nothing)."""
    settings = s.ctx.settings
    rendered = render_account_mail(
        title, [notice], language=language, now=s.now, timezone=settings.timezone,
        game_name=settings.game_name, game_address=settings.game_address, name=name,
        env=s.ctx.environments,
    )
    queue_mail(s.conn, sender=settings.sender, kind=MailKind.REPLY, to=to, to_name=name,
               rendered=rendered, key=key, now=s.ctx.clock(), inbound_id=s.inbound_id)


COMMANDS = (
    Command(
        NewAddress, request_move, Access.MANAGER,
        codes={
            ADDRESS_CODE_SENT: N_("Asked to move to a new address; code mailed there."),
            ADDRESS_CODE: N_("A code to confirm a new address."),
            ADDRESS_SAME: N_("New address is the old one."),
            ADDRESS_TAKEN: N_("New address belongs to another manager."),
            ADDRESS_MOVED: N_("Moved to a new address."),
            ADDRESS_MOVED_AWAY: N_("Told that the teams moved to a new address."),
        },
        keyword=KeywordCommand(
            "new_address",
            {"de": ("neue adresse", "neue mailadresse", "neue e-mail-adresse",
                    "neue emailadresse"),
             "en": ("new address", "new mail address", "new e-mail address",
                    "new email address")},
            Value.REQUIRED, lambda line, value: NewAddress(line, parse_address(value)),
            example=N_("New address: new@example.org"),
            missing=N_("no address after the keyword"),
        ),
    ),
)
