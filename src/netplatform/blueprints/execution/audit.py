"""The audit of executions (reference execution.md 1.6): a record written before an async run,
completed after it (a sync run's is written once, when it has ended) with an explicit outcome
(``Completed`` or ``Failed``, unlike the reference, which writes ``Completed`` for both). Values
whose mapping or dictionary entry is marked ``log-protect`` are masked before anything is
written. Records older than the retention are deleted (at most once a minute, by whichever run
comes along)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from ...clock import utc_now, wire_time
from ...store.db import Database
from ...store.unit_of_work import UnitOfWork
from ..repository.executions import COMPLETED, FAILED, IN_PROGRESS, ExecutionRecord, ExecutionRepository
from .engine import Write

REDACTED = "****REDACTED****"
_PURGE_EVERY_S = 60.0
_JSON_TEXT_LEVELS = 4


def masked(value: Any, protected: frozenset[str]) -> Any:
    """``value`` with the value of every member named in ``protected`` replaced, at any depth,
    inside JSON text too (a prefix's values stored as JSON when it has no template). Iterative:
    no depth or shape of value makes it fail."""
    if not protected:
        return value
    return _Masker(protected).copy(value)


class _Masker:
    def __init__(self, protected: frozenset[str]) -> None:
        self.protected = protected
        self.quoted = tuple(f'"{name}"' for name in protected)

    def copy(self, value: Any, level: int = 0) -> Any:
        root: list[Any] = [None]
        pending: list[tuple[Any, Any, Any]] = [(value, root, 0)]
        while pending:
            item, parent, key = pending.pop()
            if isinstance(item, dict):
                parent[key] = copied = {}
                for name, member in item.items():
                    copied[name] = REDACTED if name in self.protected else None
                    if name not in self.protected:
                        pending.append((member, copied, name))
            elif isinstance(item, list):
                parent[key] = listed = [None] * len(item)
                pending.extend((member, listed, index) for index, member in enumerate(item))
            elif isinstance(item, str):
                parent[key] = self.text(item, level)
            else:
                parent[key] = item
        return root[0]

    def text(self, text: str, level: int) -> str:
        """JSON text masked like any value; other text as it is (what a template rendered from
        a protected value is not recognised: docs/execution.md says so)."""
        start = text.lstrip()[:1]
        if start not in ("{", "[") or ("\\" not in text and not any(q in text for q in self.quoted)):
            return text  # not JSON, or no protected name in it (nor an escape that could hide one)
        if level >= _JSON_TEXT_LEVELS:
            return REDACTED  # JSON text inside JSON text inside...: not taken apart further
        try:
            document = json.loads(text)
        except ValueError:
            return text
        except RecursionError:
            return REDACTED
        copied = self.copy(document, level + 1)
        if copied == document:
            return text
        return _json_text(copied, indent=2 if "\n" in text else None)


def _json_text(value: Any, indent: int | None = None) -> str:
    """JSON text of a record's content; a note instead of a failure when it cannot be written
    (nested deeper than the encoder goes, or not JSON at all): the record is written anyway."""
    try:
        return json.dumps(value, indent=indent)
    except (RecursionError, ValueError, TypeError) as error:
        return json.dumps({"error": f"the content could not be recorded: {type(error).__name__}"})


class ExecutionAudit:
    def __init__(self, db: Database, retention_s: float, instance: str) -> None:
        self.unit = UnitOfWork(db, ExecutionRepository)
        self.retention = timedelta(seconds=retention_s)
        self.instance = instance
        self._last_purge = 0.0
        self._purge_lock = threading.Lock()

    def start(
        self,
        run: dict[str, Any],
        request_payload: Any,
        protected: frozenset[str],
        status: str = IN_PROGRESS,
        error: str | None = None,
    ) -> int:
        """Write the record of a run about to start; its id. A run refused before it started
        (``status`` Failed) is ended at once, with ``error`` saying why."""
        self._purge_now_and_then()
        now = utc_now()
        values = self._started(run, request_payload, protected, now)
        values["status"] = status
        if status != IN_PROGRESS:
            values.update(error_message=error, end_date=now)
        return self.unit.write(lambda executions: executions.insert(values), retry=False)

    def finish(
        self,
        execution_id: int,
        failed: bool,
        output: dict[str, Any],
        error: str | None,
        protected: frozenset[str],
    ) -> None:
        def work(executions: ExecutionRepository) -> None:
            executions.finish(execution_id, self._ended(failed, output, error, protected))

        self.unit.write(work, retry=False)

    def finished(
        self,
        run: dict[str, Any],
        request_payload: Any,
        started: datetime,
        outcome: tuple[bool, dict[str, Any], str | None],
        protected: frozenset[str],
        writes: Sequence[Write] = (),
    ) -> int:
        """The record of a sync run, written once when it has ended (``outcome``: failed, output,
        error): the same columns ``start`` then ``finish`` leave, in one transaction instead of
        two, with the run's deferred ``writes`` first (the whole run again if it lost a race).
        Nothing sees a sync run in progress: its caller waits for the answer, and a run whose
        process dies leaves no record (its caller sees the connection drop)."""
        self._purge_now_and_then()
        failed, output, error = outcome
        values = self._started(run, request_payload, protected, started)
        values.update(self._ended(failed, output, error, protected))

        def work(executions: ExecutionRepository) -> int:
            for write in writes:
                write(executions.session)
            return executions.insert(values)

        return self.unit.write(work)

    def _started(
        self, run: dict[str, Any], request_payload: Any, protected: frozenset[str], now: datetime
    ) -> dict[str, Any]:
        return {
            **run,
            "request_content": _json_text(masked(request_payload, protected)),
            "instance": self.instance,
            "start_date": now,
            "updated_date": now,
        }

    @staticmethod
    def _ended(
        failed: bool, output: dict[str, Any], error: str | None, protected: frozenset[str]
    ) -> dict[str, Any]:
        now = utc_now()
        return {
            "status": FAILED if failed else COMPLETED,
            "response_content": _json_text(masked(output, protected)),
            "error_message": error,
            "end_date": now,
            "updated_date": now,
        }

    def records(self, request_id: str, sub_request_id: str) -> list[ExecutionRecord]:
        return self.unit.read(lambda executions: executions.of_request(request_id, sub_request_id))

    def recent(self, limit: int, offset: int = 0) -> list[ExecutionRecord]:
        """The latest records of every request, newest first (``GET /api/v1/workflow/audit``)."""
        return self.unit.read(lambda executions: executions.recent(limit, offset))

    def fail_interrupted(self) -> int:
        """Runs this instance had in progress when it stopped: failed, saying so."""
        message = "interrupted: the instance stopped"
        return self.unit.write(
            lambda executions: executions.fail_interrupted(self.instance, utc_now(), message), retry=False
        )

    def purge(self, now: datetime | None = None) -> int:
        return self.unit.write(
            lambda executions: executions.delete_older((now or utc_now()) - self.retention), retry=False
        )

    def _purge_now_and_then(self) -> None:
        with self._purge_lock:
            if time.monotonic() - self._last_purge < _PURGE_EVERY_S:
                return
            self._last_purge = time.monotonic()
        self.purge()


def record_body(record: ExecutionRecord) -> dict[str, Any]:
    """A record as ``GET /api/v1/workflow/audit-status`` answers it (the reference's field names,
    plus ``errorMessage``)."""

    def when(moment: datetime | None) -> str | None:
        return None if moment is None else wire_time(moment)

    return {
        "id": record.id,
        "workflowTaskContent": record.request_content,
        "originatorId": record.originator_id,
        "requestId": record.request_id,
        "subRequestId": record.sub_request_id,
        "workflowName": record.workflow_name,
        "status": record.status,
        "startDate": when(record.start_date),
        "endDate": when(record.end_date),
        "updatedDate": when(record.updated_date),
        "updatedBy": "CBA",
        "blueprintVersion": record.blueprint_version,
        "blueprintName": record.blueprint_name,
        "requestMode": record.request_mode,
        "workflowResponseContent": record.response_content,
        "blueprintUuid": record.blueprint_uuid,
        "errorMessage": record.error_message,
    }
