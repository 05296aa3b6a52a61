"""Logging set-up: readable text by default, one JSON object per line on request.

Records are formatted and written by a listener thread, not by the code that logs: the access
log writes a line per request, and a write to a slow or blocked stderr would otherwise stall
the event loop that serves every request of the process.
"""

from __future__ import annotations

import atexit
import json
import logging
import logging.handlers
import queue
import sys
from datetime import UTC, datetime

from .settings import Settings

_STANDARD_ATTRIBUTES = set(logging.makeLogRecord({}).__dict__) | {"message", "asctime", "color_message"}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        entry.update({k: v for k, v in record.__dict__.items() if k not in _STANDARD_ATTRIBUTES})
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


class _LocalQueueHandler(logging.handlers.QueueHandler):
    """Hands records to the listener as they are: the message merged with its arguments now
    (they may change later), the exception kept for the formatter (the stock handler would
    flatten it into the message text, and the JSON lines would lose their ``exception`` field)."""

    def prepare(self, record: logging.LogRecord) -> logging.LogRecord:
        record.msg = record.getMessage()
        record.args = None
        return record


_listener: logging.handlers.QueueListener | None = None


def configure_logging(settings: Settings) -> None:
    global _listener
    handler = logging.StreamHandler(sys.stderr)
    if settings.log_format == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)-7s %(name)s: %(message)s"))
    if _listener is not None:
        _listener.stop()
    records: queue.SimpleQueue[logging.LogRecord] = queue.SimpleQueue()
    _listener = logging.handlers.QueueListener(records, handler, respect_handler_level=True)
    _listener.start()
    root = logging.getLogger()
    root.handlers[:] = [_LocalQueueHandler(records)]
    root.setLevel(settings.log_level.upper())
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logging.getLogger(name).handlers[:] = []
        logging.getLogger(name).propagate = True


@atexit.register
def _flush_on_exit() -> None:
    """Write out what is still queued when the process ends normally."""
    if _listener is not None:
        _listener.stop()
