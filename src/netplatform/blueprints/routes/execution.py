"""``/api/v1/execution-service/process`` (run a CBA's workflow), ``/api/v1/workflow/audit-status``
(a request's records) and ``/api/v1/workflow/audit`` (the latest records, newest first)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import Response

from ...web.answers import reply
from ...web.openapi import answers, error_responses, stated_request
from ...web.permissions import per_object, requires
from ...web.routes import STREAMED_BODY
from ..deps import ExecutionAuditDep, ExecutionsDep, ExecutorDep, RequestLimitsDep, RunPoolDep
from ..execution.audit import record_body
from ..execution.executions import Answer, Executions
from ..execution.executors import EXECUTE_RULE
from ..execution.run_pool import PoolFull
from ..execution.wire import (
    BadExecutionInput,
    Echo,
    ExecutionRequest,
    ExecutionServiceOutput,
    RequestLimits,
    output,
    read_request,
)
from ..spec import PERMISSIONS, SPEC

router = APIRouter(prefix="/api/v1", tags=["execution"])

Id = Annotated[str, Path(max_length=255)]
AUDIT_PAGE_MAX = 500
# Bounded so that no offset a client sends overflows a database integer (a 400, not a 500).
AUDIT_OFFSET_MAX = 1_000_000_000
_TEXT = {"type": "string", "minLength": 1, "maxLength": 255}
INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["commonHeader", "actionIdentifiers", "payload"],
    "properties": {
        "commonHeader": {
            "type": "object",
            "required": ["originatorId", "requestId", "subRequestId"],
            "properties": {
                "originatorId": _TEXT,
                "requestId": _TEXT,
                "subRequestId": _TEXT,
                "timestamp": {"type": "string", "example": "2024-03-07T14:02:11.093Z"},
            },
        },
        "actionIdentifiers": {
            "type": "object",
            "required": ["blueprintName", "blueprintVersion", "actionName"],
            "properties": {
                "blueprintName": _TEXT,
                "blueprintVersion": _TEXT,
                "actionName": _TEXT,
                "mode": {"type": "string", "description": "sync or async, any letter case"},
            },
        },
        "payload": {"type": "object", "description": '{"<actionName>-request": {...}}'},
    },
}
"""The body the process route reads itself (ExecutionServiceInput, wire.py)."""


_RETRY_AFTER = {
    "Retry-After": {"description": "Seconds to wait before trying again", "schema": {"type": "integer"}}
}


def _failures(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """Failures answered in the execution's own output, not in the service's error body."""
    return {
        status: {"description": text, "model": ExecutionServiceOutput}
        | ({"headers": _RETRY_AFTER} if status == 503 else {})
        for status, text in (
            (400, "Not an ExecutionServiceInput, no <actionName>-request block, or nested too deeply"),
            (404, "No such blueprint, version or workflow"),
            (413, "The body is larger than NETPLATFORM_EXECUTION_MAX_BODY_BYTES"),
            (500, "The workflow failed: status.errorMessage says why"),
            (503, "Every execution worker is busy and the queue is full: try again after Retry-After"),
        )
        if status in statuses
    }


@router.post(
    "/execution-service/process",
    summary="Run a workflow of a stored CBA (mode sync, or async: read the result from the audit)",
    responses={
        **answers(SPEC, ExecutionServiceOutput, description="Executed (or, async, accepted and processing)"),
        **_failures(400, 404, 413, 500, 503),
        **error_responses(SPEC, 403),
    },
    response_model=None,
    openapi_extra={
        **per_object(EXECUTE_RULE),
        **STREAMED_BODY,
        **stated_request(
            body={
                "required": True,
                "content": {"application/json": {"schema": INPUT_SCHEMA}},
            }
        ),
    },
)
async def process(
    request: Request,
    executions: ExecutionsDep,
    runs: RunPoolDep,
    limits: RequestLimitsDep,
    caller: ExecutorDep,
) -> Response:
    """The body is read here, bounded; parsed and run on the execution's own threads (the event
    loop only waits), never on the threads the other services share."""
    await caller.check_caller()
    body = await _bounded_body(request, limits.max_body_bytes)
    if body is None:
        message = f"the request body is larger than {limits.max_body_bytes} bytes"
        return reply(output(Echo(), 413, {}, message), 413)
    try:
        async with runs.slot() as slot:
            parsed = await slot.call(_parsed, body, limits)
            if isinstance(parsed, _Rendered):
                return parsed.response()
            await caller.check_blueprint(parsed.blueprint_name)
            answered = await slot.call(_run, executions, parsed, caller.user)
            return answered.response()
    except PoolFull as full:
        headers = {"Retry-After": str(full.retry_after_s)}
        return reply(output(Echo(), 503, {}, full.message), 503, headers=headers)


async def _bounded_body(request: Request, limit: int) -> bytes | None:
    """The whole body, None when it is (or announces itself) larger than ``limit``."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        return None
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


@dataclass(frozen=True)
class _Rendered:
    """An answer of the process route, already written as JSON (on the execution's threads)."""

    status: int
    content: bytes
    retry_after_s: int | None = None

    @classmethod
    def of(cls, answer: Answer) -> _Rendered:
        try:
            content = _json(answer.body)
            status = answer.status
        except (RecursionError, ValueError):  # nested past what JSON is written at, or NaN
            status = 500
            content = _json(output(Echo(), status, {}, "the answer cannot be written as JSON"))
        return cls(status, content, answer.retry_after_s)

    def response(self) -> Response:
        headers = None if self.retry_after_s is None else {"Retry-After": str(self.retry_after_s)}
        return reply(self.content, self.status, media_type="application/json", headers=headers)


def _json(body: dict[str, Any]) -> bytes:
    """As the kernel's reply writes JSON (Starlette's JSONResponse)."""
    return json.dumps(body, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")


def _parsed(body: bytes, limits: RequestLimits) -> ExecutionRequest | _Rendered:
    try:
        return read_request(body, limits.max_body_depth)
    except BadExecutionInput as bad:
        return _Rendered.of(Answer(400, output(bad.echo, 400, bad.echo.payload, bad.message)))


def _run(executions: Executions, parsed: ExecutionRequest, caller: str) -> _Rendered:
    return _Rendered.of(executions.process(parsed, caller))


@router.get(
    "/workflow/audit-status/{requestId}/{subRequestId}",
    summary="The execution records of a request (inputs marked log-protect masked)",
    responses=answers(SPEC, None, description="The records, oldest first ([] when none)"),
    openapi_extra=requires(PERMISSIONS.read("execution")),
)
def audit_status(audit: ExecutionAuditDep, requestId: Id, subRequestId: Id) -> Response:
    return reply([record_body(record) for record in audit.records(requestId, subRequestId)])


@router.get(
    "/workflow/audit",
    summary="The latest execution records of every request, newest first (log-protect masked)",
    responses=answers(SPEC, None, description="Up to limit records after skipping offset, newest first"),
    openapi_extra=requires(PERMISSIONS.read("execution")),
)
def audit_recent(
    audit: ExecutionAuditDep,
    limit: Annotated[int, Query(ge=1, le=AUDIT_PAGE_MAX)] = 20,
    offset: Annotated[int, Query(ge=0, le=AUDIT_OFFSET_MAX)] = 0,
) -> Response:
    return reply([record_body(record) for record in audit.recent(limit, offset)])
