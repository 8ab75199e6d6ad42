"""Tests of bot.worker: the scheduler, its lock, logs and notices."""
