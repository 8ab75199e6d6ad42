"""Tests of bot.config: reading, checking and finding the configuration."""
