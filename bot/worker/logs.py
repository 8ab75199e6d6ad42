"""Structured logging for the worker: one line per event, ``key=value`` or
JSON, never a password.

Code logs with ``log_event(logger, "deadline_fired", round=3)``; plain
``logger.info("text")`` calls work too. Every formatted line passes through
the redaction of the configured secrets (the IMAP/SMTP passwords) and of
fields whose names look secret (``password``, ``token``, ...), so a secret
cannot leak through a message, a field or a traceback.
"""

from __future__ import annotations

import json
import logging
import logging.handlers
import sys
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from bot.config import is_secret_key

#: Attribute of a LogRecord that carries the structured fields.
FIELDS_ATTR = "turnited_fields"
MASK = "***"


def log_event(
    logger: logging.Logger, event: str, *, level: int = logging.INFO, **fields: Any
) -> None:
    """Log ``event`` (a short snake_case name) with structured fields."""
    logger.log(level, event, extra={FIELDS_ATTR: fields})


class _StructuredFormatter(logging.Formatter):
    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        # Longest first, so a secret containing another is masked whole.
        self.secrets = sorted({s for s in secrets if s}, key=len, reverse=True)

    def redact(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, MASK)
        return text

    def fields(self, record: logging.LogRecord) -> dict[str, Any]:
        data: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "event": record.getMessage(),
        }
        for key, value in (getattr(record, FIELDS_ATTR, None) or {}).items():
            data[key] = MASK if is_secret_key(key) and value is not None else value
        if record.exc_info:
            data["exc"] = self.formatException(record.exc_info)
        return data

    def format(self, record: logging.LogRecord) -> str:
        return self.redact(self.render(self.fields(record)))

    def render(self, data: dict[str, Any]) -> str:
        raise NotImplementedError


def _kv_value(value: Any) -> str:
    text = value if isinstance(value, str) else str(value)
    if text and not any(ch in text for ch in ' ="\\\n\t'):
        return text
    return json.dumps(text, ensure_ascii=False)


class KeyValueFormatter(_StructuredFormatter):
    """``ts=... level=info logger=bot.worker event=deadline_fired round=3``"""

    def render(self, data: dict[str, Any]) -> str:
        return " ".join(f"{key}={_kv_value(value)}" for key, value in data.items())


class JsonFormatter(_StructuredFormatter):
    """One JSON object per line."""

    def render(self, data: dict[str, Any]) -> str:
        return json.dumps(data, ensure_ascii=False, default=str)


_HANDLER_NAME = "turnited-structured"


def configure_logging(
    *,
    level: int | str = logging.INFO,
    fmt: str = "text",
    secrets: Iterable[str] = (),
    stream: TextIO | None = None,
    file: Path | str | None = None,
) -> logging.Handler:
    """Install one structured handler on the root logger (replacing one
    installed earlier by this function). ``fmt`` is ``text`` or ``json``.

    With ``file`` the lines are appended to that file through a
    ``WatchedFileHandler``: when logrotate moves the file away, the next line
    opens a new one (no copytruncate, no signal needed). ``OSError`` if the
    file cannot be opened for appending."""
    formatters = {"text": KeyValueFormatter, "json": JsonFormatter}
    if fmt not in formatters:
        raise ValueError(f"log format {fmt!r} is not known; allowed: 'text', 'json'")
    handler: logging.Handler
    if file is not None:
        handler = logging.handlers.WatchedFileHandler(Path(file), encoding="utf-8")
    else:
        handler = logging.StreamHandler(stream or sys.stderr)
    handler.set_name(_HANDLER_NAME)
    handler.setFormatter(formatters[fmt](secrets))
    root = logging.getLogger()
    for old in [h for h in root.handlers if h.get_name() == _HANDLER_NAME]:
        root.removeHandler(old)
        old.close()
    root.addHandler(handler)
    root.setLevel(level)
    # APScheduler logs every job run at INFO; keep its warnings and errors.
    logging.getLogger("apscheduler").setLevel(logging.WARNING)
    return handler
