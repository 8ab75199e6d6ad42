"""Structured worker logs that never contain a password."""

from __future__ import annotations

import io
import json
import logging

import pytest

from bot.worker.logs import configure_logging, log_event

SECRET = "hunter2-geheim"


@pytest.fixture
def capture():
    stream = io.StringIO()
    handlers: list[logging.Handler] = []

    def install(fmt: str = "text", secrets: tuple[str, ...] = (SECRET,)) -> io.StringIO:
        handlers.append(configure_logging(level="INFO", fmt=fmt, secrets=secrets, stream=stream))
        return stream

    yield install
    root = logging.getLogger()
    for handler in handlers:
        root.removeHandler(handler)


def test_key_value_lines_carry_event_and_fields(capture):
    stream = capture()
    log_event(logging.getLogger("bot.worker.test"), "deadline_planned", round=3,
              local="2026-12-06 20:00 Europe/Berlin")
    line = stream.getvalue().strip()
    assert "level=info" in line
    assert "logger=bot.worker.test" in line
    assert "event=deadline_planned" in line
    assert "round=3" in line
    assert 'local="2026-12-06 20:00 Europe/Berlin"' in line
    assert line.startswith("ts=")


def test_json_lines_are_json(capture):
    stream = capture("json")
    log_event(logging.getLogger("bot.worker.test"), "rounds_evaluated", rounds="4")
    record = json.loads(stream.getvalue())
    assert record["event"] == "rounds_evaluated"
    assert record["rounds"] == "4"
    assert record["level"] == "info"


def test_secrets_are_masked_everywhere(capture):
    stream = capture()
    log = logging.getLogger("bot.worker.test")
    log.warning("login failed for bot with %s", SECRET)
    log_event(log, "connect", detail=f"AUTH PLAIN {SECRET}", password="other-secret")
    try:
        raise ConnectionError(f"server said no to {SECRET}")
    except ConnectionError:
        log.exception("poll failed")
    text = stream.getvalue()
    assert SECRET not in text
    assert "other-secret" not in text  # a field named password
    assert text.count("***") >= 4
    assert "Traceback" in text  # the traceback is kept, only the secret is masked


def test_unknown_format_is_refused():
    with pytest.raises(ValueError, match="'text', 'json'"):
        configure_logging(fmt="xml")


def test_configure_twice_keeps_one_handler(capture):
    stream = capture()
    capture()
    logging.getLogger("bot.worker.test").info("once")
    assert stream.getvalue().count("event=once") == 1
