"""A player's message to the game master, forwarded once (RULES.md §11).

When the grammar finds in a mail a message to a person (``ParsedMoves.prose``:
a question, sentences; ``bot.mail.prose``), the ingest forwards the mail to
the game master's address (``gm.address``) with the player as Reply-To and
his text quoted (``bot.render.forward``). The forward is queued through the
outbox in the ingest's transaction, keyed by the raw mail's hash, so a
mail is forwarded once however often it is read. Nothing is forwarded when
the game has no game master address (one under ``.invalid``, the example
configuration's) or when the game master wrote the mail himself.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime

from bot.league.addresses import normalize_address
from bot.league.errors import BadAddress
from bot.mail.compose import MailKind
from bot.mail.reading import InboundMail
from bot.render.forward import render_forward
from bot.service.context import Context
from bot.service.outgoing import queue_mail


def gm_reachable(ctx: Context, sender: str) -> bool:
    """The game has a game master's address to forward to, and ``sender`` is not it."""
    try:
        gm = normalize_address(ctx.settings.gm_address)
        return not gm.endswith(".invalid") and normalize_address(sender) != gm
    except BadAddress:
        return False


def forward_to_gm(
    conn: sqlite3.Connection, ctx: Context, parsed: InboundMail, *, key: str, now: datetime,
    inbound_id: int | None = None,
) -> None:
    """Queue the forward of ``parsed`` (a human's mail with a message) to the
    game master; ``key`` names the mail (its hash), so it is queued once."""
    assert parsed.sender is not None
    s = ctx.settings
    rendered = render_forward(
        sender=normalize_address(parsed.sender), sender_name=parsed.sender_name or None,
        subject=parsed.subject, text=parsed.fresh_text, received=now, timezone=s.timezone,
        language=s.language, game_name=s.game_name, env=ctx.environments,
    )
    queue_mail(conn, sender=s.sender, kind=MailKind.NOTICE, to=s.gm_address, to_name=s.gm_name,
               rendered=rendered, key=f"forward/{key}", now=now, inbound_id=inbound_id,
               reply_to=normalize_address(parsed.sender))
