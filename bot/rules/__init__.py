"""The pure rules core: lineups, corrections, match engine, GM teams, WP, PSZ,
the tournament and its analytics.

Standard library and numpy only; no I/O; every random generator is passed in.
Nothing in here imports from the other layers of ``bot``.
"""

from bot.rules.corrections import CorrectedLineup, Correction, check_legal, correct
from bot.rules.errors import (
    IllegalLineupError,
    InvalidLineupError,
    InvalidResultError,
    RulesError,
)
from bot.rules.lineup import ROWS, Lineup
from bot.rules.match import MatchOdds, chances, odds, play

__all__ = [
    "ROWS",
    "CorrectedLineup",
    "Correction",
    "IllegalLineupError",
    "InvalidLineupError",
    "InvalidResultError",
    "Lineup",
    "MatchOdds",
    "RulesError",
    "chances",
    "check_legal",
    "correct",
    "odds",
    "play",
]
