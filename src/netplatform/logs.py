"""Logging set-up: readable text by default, one JSON object per line on request.

Records are formatted and written by a writer thread, not by the code that logs: the access
log writes a line per request, and a write to a slow or blocked stderr would otherwise stall
the event loop that serves every request of the process.

The writer works in batches: woken by a record, it lets ``FLUSH_INTERVAL_S`` pass, then
formats everything queued meanwhile and writes it with one ``write`` and one ``flush``. Under
load that is one wake-up of the thread (which competes with the event loop for the interpreter
lock) and one system call per batch instead of one per request; at rest a line is out within
the interval. :func:`stop_logging` writes out everything queued before it returns; it runs at
the end of ``serve`` and when the process exits normally.

A record whose arguments cannot change (:class:`FrozenArgsRecord`, the access log's) travels
with its arguments unmerged, so the message is formatted on the writer thread, not on the
request path.
"""

from __future__ import annotations

import atexit
import json
import logging
import logging.handlers
import queue
import sys
import threading
from datetime import UTC, datetime
from typing import TextIO

from .settings import Settings

FLUSH_INTERVAL_S = 0.02
"""How long the writer gathers records after the first of a batch: a line is out within it."""

MAX_BATCH = 4096
"""Records formatted and written at once at most (bounds the memory of one write)."""

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


class FrozenArgsRecord(logging.LogRecord):
    """A record whose ``args`` are immutable values (str, int, float): safe to format later."""


class _LocalQueueHandler(logging.handlers.QueueHandler):
    """Hands records to the writer as they are: the message merged with its arguments now
    (they may change later) unless they cannot change, the exception kept for the formatter
    (the stock handler would flatten it into the message text, and the JSON lines would lose
    their ``exception`` field)."""

    def prepare(self, record: logging.LogRecord) -> logging.LogRecord:
        if not isinstance(record, FrozenArgsRecord):
            record.msg = record.getMessage()
            record.args = None
        return record


_STOP = object()
"""Put on the queue by :meth:`BatchWriter.stop`: write what came before, then end."""

Queued = logging.LogRecord | object


class BatchWriter:
    """The thread that formats queued records and writes them to ``stream`` in batches."""

    def __init__(
        self, records: queue.SimpleQueue[Queued], formatter: logging.Formatter, stream: TextIO
    ) -> None:
        self.records = records
        self.formatter = formatter
        self.stream = stream
        self._stopping = threading.Event()  # cuts the gathering pause short at stop
        self._thread = threading.Thread(target=self._run, name="log-writer", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Return once every record queued before this call is written."""
        self._stopping.set()
        self.records.put(_STOP)
        self._thread.join()

    def _run(self) -> None:
        while True:
            batch = [self.records.get()]
            self._stopping.wait(FLUSH_INTERVAL_S)
            while len(batch) < MAX_BATCH:
                try:
                    batch.append(self.records.get_nowait())
                except queue.Empty:
                    break
            if _STOP in batch:
                self._write(batch[: batch.index(_STOP)])
                return
            self._write(batch)

    def _write(self, batch: list[Queued]) -> None:
        lines = [self._line(record) for record in batch if isinstance(record, logging.LogRecord)]
        if not lines:
            return
        try:
            self.stream.write("".join(lines))
            self.stream.flush()
        except (OSError, ValueError):  # stderr closed or gone: nothing better to do with the lines
            pass

    def _line(self, record: logging.LogRecord) -> str:
        try:
            return self.formatter.format(record) + "\n"
        except Exception as error:  # a bad format string must not end the writer
            return f"log record of {record.name} could not be formatted: {error!r}\n"


_writer: BatchWriter | None = None


def configure_logging(settings: Settings, stream: TextIO | None = None) -> None:
    """Every record of the process to ``stream`` (stderr), through the batching writer."""
    global _writer
    formatter = _formatter(settings)
    stop_logging()
    records: queue.SimpleQueue[Queued] = queue.SimpleQueue()
    _writer = BatchWriter(records, formatter, stream or sys.stderr)
    _writer.start()
    root = logging.getLogger()
    root.handlers[:] = [_LocalQueueHandler(records)]
    root.setLevel(settings.log_level.upper())
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logging.getLogger(name).handlers[:] = []
        logging.getLogger(name).propagate = True


def _formatter(settings: Settings) -> logging.Formatter:
    if settings.log_format == "json":
        return JsonFormatter()
    return logging.Formatter("%(asctime)s %(levelname)-7s %(name)s: %(message)s")


def stop_logging() -> None:
    """Write out everything queued; later records are written directly, by whoever logs them."""
    global _writer
    writer, _writer = _writer, None
    if writer is None:
        return
    writer.stop()
    direct = logging.StreamHandler(writer.stream)
    direct.setFormatter(writer.formatter)
    logging.getLogger().handlers[:] = [direct]


@atexit.register
def _flush_on_exit() -> None:
    """Write out what is still queued when the process ends normally."""
    stop_logging()
