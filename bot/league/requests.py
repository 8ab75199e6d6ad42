"""Transitional re-export: the requests moved to ``bot.rules.requests``.

Only ``bot.mail.grammar`` still imports this path (its owner is changing it
right now); remove this module once it imports ``bot.rules.requests``.
"""

from bot.rules.requests import (
    AskHelp,
    AskStatus,
    GivePassword,
    LineError,
    ParsedMoves,
    RegisterTeam,
    Request,
    SelectTeam,
    SetLineup,
    SetManagerName,
    SetShortName,
    Withdraw,
)

__all__ = [
    "AskHelp",
    "AskStatus",
    "GivePassword",
    "LineError",
    "ParsedMoves",
    "RegisterTeam",
    "Request",
    "SelectTeam",
    "SetLineup",
    "SetManagerName",
    "SetShortName",
    "Withdraw",
]
