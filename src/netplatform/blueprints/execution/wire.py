"""``ExecutionServiceInput`` read, ``ExecutionServiceOutput`` written (reference execution.md 1.2-1.4).

A request that cannot be read still gets an answer in the output's shape: the headers it
carried (as far as they could be read) echoed, ``status.code`` the HTTP status.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ...clock import utc_now, wire_time
from ...web.errors import describe_validation_errors

SYNC = "sync"
ASYNC = "async"
EXECUTED = "EVENT_COMPONENT_EXECUTED"
FAILURE = "EVENT_COMPONENT_FAILURE"
PROCESSING = "EVENT_COMPONENT_PROCESSING"
MAX_ID_LENGTH = 255
DEFAULT_MAX_DEPTH = 64


@dataclass(frozen=True)
class RequestLimits:
    """What an ExecutionServiceInput may be: at most ``max_body_bytes`` (413 beyond), nested at
    most ``max_body_depth`` arrays and objects deep (400 beyond)."""

    max_body_bytes: int = 1024 * 1024
    max_body_depth: int = DEFAULT_MAX_DEPTH


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore")


_Id = Field(min_length=1, max_length=MAX_ID_LENGTH, pattern=r"^[^\x00]*$")


class CommonHeader(_Lenient):
    originatorId: str = _Id
    requestId: str = _Id
    subRequestId: str = _Id
    timestamp: str | None = None


class ActionIdentifiers(_Lenient):
    blueprintName: str = _Id
    blueprintVersion: str = _Id
    actionName: str = _Id
    mode: str = SYNC


class ExecutionServiceInput(_Lenient):
    commonHeader: CommonHeader
    actionIdentifiers: ActionIdentifiers
    payload: dict[str, Any]


class StatusOut(BaseModel):
    code: int
    eventType: str
    timestamp: str
    errorMessage: str | None
    message: str


class ExecutionServiceOutput(BaseModel):
    """The answer of ``POST /api/v1/execution-service/process`` (every status)."""

    correlationUUID: str | None = None
    commonHeader: dict[str, Any]
    actionIdentifiers: dict[str, Any]
    status: StatusOut
    payload: dict[str, Any]


class BadExecutionInput(Exception):
    """A request that is not an ``ExecutionServiceInput``: a 400 in the output's shape."""

    def __init__(self, message: str, echo: Echo) -> None:
        super().__init__(message)
        self.message = message
        self.echo = echo


@dataclass
class Echo:
    """What the answer echoes of the request."""

    common_header: dict[str, Any] = field(default_factory=dict)
    action_identifiers: dict[str, Any] = field(default_factory=dict)
    payload: dict[str, Any] = field(default_factory=dict)


_TIMESTAMP = re.compile(r"^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:?\d{2})?$")


def parse_timestamp(text: str) -> datetime:
    """``yyyy-MM-dd'T'HH:mm:ss[.fraction][Z|offset]``, any number of fraction digits (onapsdk sends six)."""
    match = _TIMESTAMP.match(text.strip())
    if match is None:
        raise ValueError(f"timestamp ({text}) is not yyyy-MM-dd'T'HH:mm:ss.SSS'Z'")
    base, fraction, zone = match.groups()
    micros = int((fraction or "0")[:6].ljust(6, "0"))
    offset = "+00:00" if zone in (None, "Z") else zone
    moment = datetime.fromisoformat(f"{base}{offset}").replace(microsecond=micros)
    return moment.astimezone(UTC).replace(tzinfo=None)


@dataclass(frozen=True)
class ExecutionRequest:
    """A request read: the identifiers, the mode (lower-cased), the payload, the echo."""

    originator_id: str
    request_id: str
    sub_request_id: str
    timestamp: datetime
    blueprint_name: str
    blueprint_version: str
    action_name: str
    mode: str
    payload: dict[str, Any]
    echo: Echo

    @property
    def request_block(self) -> Any:
        return self.payload.get(f"{self.action_name}-request")


def read_request(body: bytes, max_depth: int = DEFAULT_MAX_DEPTH) -> ExecutionRequest:
    """The request ``body`` holds, nested at most ``max_depth`` arrays and objects deep; else
    BadExecutionInput (a 400 in the output's shape, never a failure of the service)."""
    try:
        document = json.loads(body, parse_constant=_not_json)
    except (ValueError, UnicodeDecodeError) as error:
        raise BadExecutionInput(f"the body is not JSON: {error}", Echo()) from None
    except RecursionError:  # the decoder's own bound, far deeper than ours
        raise BadExecutionInput(_too_deep(max_depth), Echo()) from None
    if depth_exceeds(document, max_depth):
        raise BadExecutionInput(_too_deep(max_depth), Echo())
    echo = _echo(document)
    try:
        parsed = ExecutionServiceInput.model_validate(document)
    except ValidationError as error:
        problems = describe_validation_errors(error.errors(include_url=False))
        raise BadExecutionInput(f"not an ExecutionServiceInput: {problems}", echo) from None
    header, action = parsed.commonHeader, parsed.actionIdentifiers
    try:
        timestamp = parse_timestamp(header.timestamp) if header.timestamp else utc_now()
    except ValueError as error:
        raise BadExecutionInput(str(error), echo) from None
    mode = action.mode.strip().lower() or SYNC
    if mode not in (SYNC, ASYNC):
        raise BadExecutionInput(
            f"Failed to process request, 'actionIdentifiers.mode' ({action.mode}) is neither "
            "'sync' nor 'async'.",
            echo,
        )
    echo.common_header["timestamp"] = wire_time(timestamp)
    request = ExecutionRequest(
        originator_id=header.originatorId,
        request_id=header.requestId,
        sub_request_id=header.subRequestId,
        timestamp=timestamp,
        blueprint_name=action.blueprintName,
        blueprint_version=action.blueprintVersion,
        action_name=action.actionName,
        mode=mode,
        payload=parsed.payload,
        echo=echo,
    )
    if not isinstance(request.request_block, dict):
        raise BadExecutionInput(
            f"Input request missing the expected '{action.actionName}-request' block!", echo
        )
    return request


def _not_json(constant: str) -> Any:
    """NaN and Infinity are not JSON (Python's decoder takes them; no answer could carry them)."""
    raise ValueError(f"{constant} is not a JSON value")


def _too_deep(max_depth: int) -> str:
    return f"the body nests arrays and objects more than {max_depth} deep"


def depth_exceeds(document: Any, max_depth: int) -> bool:
    """Whether ``document`` nests arrays and objects more than ``max_depth`` deep (iterative:
    no depth of input makes it fail)."""
    pending: list[tuple[Any, int]] = [(document, 1)]
    while pending:
        value, depth = pending.pop()
        children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else None
        if children is None:
            continue
        if depth > max_depth:
            return True
        pending.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


def _echo(document: Any) -> Echo:
    """The parts of a request that are echoed, taken as they are where they can be."""
    if not isinstance(document, dict):
        return Echo()
    header = document.get("commonHeader")
    action = document.get("actionIdentifiers")
    payload = document.get("payload")
    header_keys = ("timestamp", "originatorId", "requestId", "subRequestId")
    action_keys = ("blueprintName", "blueprintVersion", "actionName", "mode")
    return Echo(
        common_header=(
            {key: header.get(key) for key in header_keys} | {"flags": None}
            if isinstance(header, dict)
            else {}
        ),
        action_identifiers={key: action.get(key) for key in action_keys} if isinstance(action, dict) else {},
        payload=payload if isinstance(payload, dict) else {},
    )


def output(echo: Echo, code: int, payload: dict[str, Any], error: str | None = None) -> dict[str, Any]:
    """An ``ExecutionServiceOutput``: 200 executed, 200 processing (``error`` None, async), or a failure."""
    if code == 200:
        event, message = (EXECUTED, "success")
    elif code == 202:
        event, message, code = (PROCESSING, "processing", 200)
    else:
        event, message = (FAILURE, "failure")
    return {
        "correlationUUID": None,
        "commonHeader": echo.common_header,
        "actionIdentifiers": echo.action_identifiers,
        "status": {
            "code": code,
            "eventType": event,
            "timestamp": wire_time(utc_now()),
            "errorMessage": error,
            "message": message,
        },
        "payload": payload,
    }
