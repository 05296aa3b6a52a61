"""``/api/v1/execution-service/process`` (run a CBA's workflow), ``/api/v1/workflow/audit-status``
(a request's records) and ``/api/v1/workflow/audit`` (the latest records, newest first)."""

from __future__ import annotations

from typing import Annotated, Any

import anyio
from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import Response

from ...access.directory import AccessDirectory
from ...web.answers import reply
from ...web.bodies import RawBody
from ...web.errors import Forbidden
from ...web.openapi import answers, error_responses, stated_request
from ...web.permissions import Permission, per_object, requires
from ..deps import ExecutionAuditDep, ExecutionsDep
from ..execution.audit import record_body
from ..execution.wire import BadExecutionInput, ExecutionRequest, ExecutionServiceOutput, output, read_request
from ..spec import PERMISSIONS, SPEC

router = APIRouter(prefix="/api/v1", tags=["execution"])

EXECUTE_TYPE = "platform.blueprints.execution"
EXECUTE_RULE = f"blueprints.writer, or {EXECUTE_TYPE}|<blueprintName>|execute"
WRITER = PERMISSIONS.write("execution")
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


def _failures(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """Failures answered in the execution's own output, not in the service's error body."""
    return {
        status: {"description": text, "model": ExecutionServiceOutput}
        for status, text in (
            (400, "Not an ExecutionServiceInput, or no <actionName>-request block"),
            (404, "No such blueprint, version or workflow"),
            (500, "The workflow failed: status.errorMessage says why"),
        )
        if status in statuses
    }


class Executors:
    """Who may run a workflow: blueprints.writer (write on the execution resource), or an
    ``execute`` grant on the blueprint. A caller who can hold neither is refused before the body
    is read, as the kernel refuses other routes; the blueprint is known only from the body."""

    @staticmethod
    async def check_caller(request: Request) -> None:
        user: str = request.state.user
        access: AccessDirectory = request.app.state.access
        grants = await access.grants(user)
        if grants.allows(WRITER) or any(p.type in (EXECUTE_TYPE, "*") for p in grants.permissions):
            return
        raise _refused(user, "<blueprintName>")

    @staticmethod
    async def check_blueprint(request: Request, blueprint_name: str) -> None:
        user: str = request.state.user
        access: AccessDirectory = request.app.state.access
        if await access.allows(user, WRITER):
            return
        if not await access.allows(user, Permission(EXECUTE_TYPE, blueprint_name, "execute")):
            raise _refused(user, blueprint_name)


def _refused(user: str, blueprint_name: str) -> Forbidden:
    return Forbidden(
        f"User {user} does not have permission {WRITER} nor {EXECUTE_TYPE}|{blueprint_name}|execute"
    )


@router.post(
    "/execution-service/process",
    summary="Run a workflow of a stored CBA (mode sync, or async: read the result from the audit)",
    responses={
        **answers(SPEC, ExecutionServiceOutput, description="Executed (or, async, accepted and processing)"),
        **_failures(400, 404, 500),
        **error_responses(SPEC, 403),
    },
    response_model=None,
    openapi_extra={
        **per_object(EXECUTE_RULE),
        **stated_request(
            body={
                "required": True,
                "content": {"application/json": {"schema": INPUT_SCHEMA}},
            }
        ),
    },
)
async def process(request: Request, executions: ExecutionsDep, body: RawBody) -> Response:
    await Executors.check_caller(request)
    try:
        parsed: ExecutionRequest = read_request(body)
    except BadExecutionInput as bad:
        return reply(output(bad.echo, 400, bad.echo.payload, bad.message), 400)
    await Executors.check_blueprint(request, parsed.blueprint_name)
    answer = await anyio.to_thread.run_sync(executions.process, parsed)
    return reply(answer.body, answer.status)


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
