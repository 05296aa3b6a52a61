"""Executions: a request read, its blueprint and workflow found, the run audited, the answer built.

Sync runs answer when the workflow is done, and their record is written then, finished (one
write transaction, not two: nothing needs to see a sync run in progress, its caller is waiting).
Async runs are recorded ``In Progress`` and answered ``processing`` at once; a worker of this
instance runs them and completes the record (a run the instance did not finish, because it
stopped, is failed at its next start).
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ...clock import utc_now
from ...web.errors import ApiError
from ..blueprint_models import BlueprintModels
from ..repository.executions import FAILED
from .audit import ExecutionAudit
from .engine import Engine, RunInfo, WorkflowNotFound, Write, workflow_of
from .loaded import LoadedBlueprint, LoadedCache
from .wire import ASYNC, ExecutionRequest, output

log = logging.getLogger(__name__)
LOG_PROTECT = "log-protect"
REFUSED_CONTENT: dict[str, Any] = {}
"""What the record of a run refused before it started keeps of the request: its header (the
record's columns), not its body."""


@dataclass(frozen=True)
class Answer:
    status: int
    body: dict[str, Any]
    retry_after_s: int | None = None


class Executions:
    """At most ``async_limit`` async runs accepted and not ended at once (the ``background``
    pool's workers and the runs waiting for one); more are refused, 503 with ``retry_after_s``."""

    def __init__(
        self,
        models: BlueprintModels,
        engine: Engine,
        audit: ExecutionAudit,
        background: ThreadPoolExecutor,
        async_limit: int = 128,
        retry_after_s: int = 5,
    ) -> None:
        self.models = models
        self.engine = engine
        self.audit = audit
        self.background = background
        self.loaded = LoadedCache()
        self.retry_after_s = retry_after_s
        self._async_slots = threading.BoundedSemaphore(async_limit)

    def process(self, request: ExecutionRequest, caller: str | None = None) -> Answer:
        """Run the request's workflow (sync) or start it (async), for ``caller``: what the run
        reads of the platform (the ``sdnc`` source) it reads with the caller's permissions."""
        try:
            loaded = self._load(request)
            steps = workflow_of(loaded, request.action_name).steps or {}
        except (ApiError, WorkflowNotFound) as failure:
            message = failure.message if isinstance(failure, ApiError) else str(failure)
            status = failure.status if isinstance(failure, ApiError) else 404
            return self._refused(request, None, status, message)
        try:
            protected = protected_names(loaded, request.action_name)
        except ApiError as failure:  # a mapping file of the stored CBA does not parse
            return self._refused(request, loaded.model_id, 500, failure.message)
        columns = self._run_columns(request, loaded.model_id)
        if request.mode == ASYNC:
            return self._start_async(request, loaded, columns, protected, caller)
        # A one-step sync run commits what its step stores with its record, in one transaction.
        # With more steps a later one may read what an earlier one stored: each step writes at once.
        deferred: list[Write] | None = [] if len(steps) == 1 else None
        started = utc_now()
        answer, outcome = self._run(request, loaded, deferred, caller)
        try:
            self.audit.finished(columns, request.payload, started, outcome, protected, deferred or ())
        except Exception:
            log.exception("the audit record of execution %s/%s could not be written", *_ids(request))
            if deferred:  # the results were not stored either: the run did not happen
                return self._unstored(request, columns, started, protected)
        return answer

    def _refused(self, request: ExecutionRequest, model_id: str | None, status: int, message: str) -> Answer:
        """A run refused before its workflow started: recorded Failed, with its header only."""
        columns = self._run_columns(request, model_id)
        self.audit.start(columns, REFUSED_CONTENT, frozenset(), status=FAILED, error=message)
        return Answer(status, output(request.echo, status, request.payload, message))

    def _start_async(
        self,
        request: ExecutionRequest,
        loaded: LoadedBlueprint,
        columns: dict[str, Any],
        protected: frozenset[str],
        caller: str | None,
    ) -> Answer:
        if not self._async_slots.acquire(blocking=False):
            message = "too many async runs are waiting for a worker; try again later"
            return Answer(503, output(request.echo, 503, request.payload, message), self.retry_after_s)
        try:
            execution_id = self.audit.start(columns, request.payload, protected)
            self.background.submit(self._run_async, request, loaded, execution_id, protected, caller)
        except BaseException:
            self._async_slots.release()
            raise
        return Answer(200, output(request.echo, 202, request.payload))

    def _unstored(
        self, request: ExecutionRequest, columns: dict[str, Any], started: datetime, protected: frozenset[str]
    ) -> Answer:
        message = "the results of the run could not be stored"
        body = output(request.echo, 500, {}, message)
        try:
            self.audit.finished(columns, request.payload, started, (True, body, message), protected)
        except Exception:
            log.exception("the audit record of execution %s/%s could not be written", *_ids(request))
        return Answer(500, body)

    def _run_async(
        self,
        request: ExecutionRequest,
        loaded: LoadedBlueprint,
        execution_id: int,
        protected: frozenset[str],
        caller: str | None,
    ) -> None:
        try:
            _answer, outcome = self._run(request, loaded, None, caller)
            try:
                self.audit.finish(execution_id, *outcome, protected)
            except Exception:
                log.exception("the audit record of execution %s could not be completed", execution_id)
        finally:
            self._async_slots.release()

    def _run(
        self,
        request: ExecutionRequest,
        loaded: LoadedBlueprint,
        deferred: list[Write] | None,
        caller: str | None,
    ) -> tuple[Answer, tuple[bool, dict[str, Any], str | None]]:
        """The run's answer, and its outcome for the audit (failed, output, error). ``deferred``
        (not None) collects the writes of its successful steps instead of running them."""
        ids = (request.request_id, request.sub_request_id, request.originator_id)
        run = RunInfo(*ids, request.action_name, deferred, caller)
        try:
            result = self.engine.run(loaded, request.action_name, request.request_block, run)
            errors = result.errors
            payload = {f"{request.action_name}-response": result.outputs}
        except Exception:  # a bug must still complete the record and answer in the output's shape
            log.exception("execution %s/%s failed unexpectedly", *_ids(request))
            errors, payload = ["internal error while running the workflow"], {}
        error = ", ".join(errors) if errors else None
        status = 500 if errors else 200
        body = output(request.echo, status, payload, error)
        return Answer(status, body), (bool(errors), body, error)

    def _load(self, request: ExecutionRequest) -> LoadedBlueprint:
        record = self.models.current_by_name(request.blueprint_name, request.blueprint_version)
        found = self.loaded.get(record.id)
        if found is None:
            found = LoadedBlueprint.of(
                record.artifact_name, record.artifact_version, record.id, self.models.stored_cba(record)
            )
            self.loaded.put(found)
        return found

    @staticmethod
    def _run_columns(request: ExecutionRequest, model_id: str | None) -> dict[str, Any]:
        return {
            "request_id": request.request_id,
            "sub_request_id": request.sub_request_id,
            "originator_id": request.originator_id,
            "blueprint_name": request.blueprint_name,
            "blueprint_version": request.blueprint_version,
            "blueprint_uuid": model_id,
            "workflow_name": request.action_name,
            "request_mode": request.mode,
        }


def _ids(request: ExecutionRequest) -> tuple[str, str]:
    return request.request_id, request.sub_request_id


def _protected(metadata: dict[str, Any] | None) -> bool:
    value = (metadata or {}).get(LOG_PROTECT)
    return value is True or (isinstance(value, str) and value.strip().lower() == "true")


def protected_names(loaded: LoadedBlueprint, action: str) -> frozenset[str]:
    """Names of the workflow's assignments marked ``log-protect`` in their mapping entry or in the
    CBA's dictionary entry."""
    workflow = workflow_of(loaded, action)
    definitions = loaded.resource_definitions()
    names: set[str] = set()
    for step in (workflow.steps or {}).values():
        node = loaded.node_templates.get(step.target or "")
        if node is None:
            continue
        for path in loaded.cba.mapping_files(node):
            if not loaded.cba.archive.has(path):
                continue
            for assignment in loaded.assignments(path):
                definition = definitions.get(assignment.dictionary_name or assignment.name)
                if _protected(assignment.property.metadata if assignment.property else None) or (
                    definition is not None
                    and definition.property is not None
                    and _protected(definition.property.metadata)
                ):
                    # Every name the input is accepted under (sources.py _given).
                    names.update(filter(None, (assignment.name, assignment.dictionary_name)))
    return frozenset(names)
