"""Tests of the configuration and the worker (issue 7)."""
