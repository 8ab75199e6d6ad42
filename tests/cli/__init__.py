"""Tests of bot.cli: every ``turnited`` command through the real command line."""
