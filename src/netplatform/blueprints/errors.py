"""The catalog's error payload: ``{code, status, timestamp, message, debugMessage, logLevel, subErrors}``."""

from __future__ import annotations

from datetime import UTC, datetime

from pydantic import BaseModel
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ..web.errors import ApiError

_STATUS_IDS = {
    400: "INVALID_REQUEST_FORMAT",
    401: "UNAUTHORIZED_REQUEST",
    404: "RESOURCE_NOT_FOUND",
    405: "REQUEST_NOT_FOUND",
    409: "CONFLICT_ADDING_RESOURCE",
    413: "INVALID_REQUEST_FORMAT",
    415: "INVALID_FILE_EXTENSION",
    503: "IO_FILE_INTERRUPT",
}

ACTIONS = {
    "RESOURCE_NOT_FOUND": "Provide the ID to find the resource.",
    "IO_FILE_INTERRUPT": "Please reload your file and make sure it is in the right format.",
    "INVALID_REQUEST_FORMAT": "Verify the request payload.",
    "REQUEST_NOT_FOUND": "Please verify your request.",
    "CONFLICT_ADDING_RESOURCE": "Please make the saving model doesn't exist.",
    "DUPLICATE_DATA": "Please provide single resource at a time.",
    "GENERIC_FAILURE": "Verify the request and try again.",
    "UNAUTHORIZED_REQUEST": "Provide valid credentials.",
    "INVALID_FILE_EXTENSION": "Verify the request payload.",
}


class SubError(BaseModel):
    domainId: str
    message: str
    cause: str


class ErrorPayload(BaseModel):
    code: int
    status: str
    timestamp: str
    message: str
    debugMessage: str = ""
    logLevel: str = "ERROR"
    subErrors: list[SubError] = []


def timestamp_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{datetime.now(UTC).microsecond // 1000:03d}Z"


def render_error(request: Request, error: ApiError) -> Response:
    status_id = error.code or _STATUS_IDS.get(error.status, "GENERIC_FAILURE")
    action = ACTIONS.get(status_id, ACTIONS["GENERIC_FAILURE"])
    payload = ErrorPayload(
        code=error.status,
        status=status_id,
        timestamp=timestamp_now(),
        message=f"Cause: {error.message} \n Action : {action}",
        subErrors=[SubError(**e) for e in error.extra.get("subErrors", [])],
    )
    return JSONResponse(payload.model_dump(), status_code=error.status, headers=error.headers)
