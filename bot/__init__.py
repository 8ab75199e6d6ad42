"""Turnited: the game master bot for a German play-by-email football tournament."""

__version__ = "0.1.0"
