"""The catalog's error payload: ``{code, status, timestamp, message, debugMessage, logLevel, subErrors}``.

``status`` is the reference's error id. Domain code picks one through ``ApiError.code`` where the
HTTP status alone is ambiguous (404: an unknown resource is ``RESOURCE_NOT_FOUND``, a path no
route serves is ``REQUEST_NOT_FOUND``), and adds sub-errors through ``extra["subErrors"]``.
"""

from __future__ import annotations

from pydantic import BaseModel
from starlette.requests import Request
from starlette.responses import Response

from ..clock import utc_now, wire_time
from ..web.answers import reply
from ..web.errors import ApiError, NotFound

DESIGNER_DOMAIN = "platform.blueprints.designer.api"

RESOURCE_NOT_FOUND = "RESOURCE_NOT_FOUND"
REQUEST_NOT_FOUND = "REQUEST_NOT_FOUND"
DUPLICATE_DATA = "DUPLICATE_DATA"
IO_FILE_INTERRUPT = "IO_FILE_INTERRUPT"

_STATUS_IDS = {
    400: "INVALID_REQUEST_FORMAT",
    401: "UNAUTHORIZED_REQUEST",
    404: REQUEST_NOT_FOUND,  # no code given: the framework found no route
    405: REQUEST_NOT_FOUND,
    406: "INVALID_REQUEST_FORMAT",
    409: "CONFLICT_ADDING_RESOURCE",
    413: "INVALID_REQUEST_FORMAT",
    415: "INVALID_FILE_EXTENSION",
    503: IO_FILE_INTERRUPT,
}

ACTIONS = {
    RESOURCE_NOT_FOUND: "Provide the ID to find the resource.",
    IO_FILE_INTERRUPT: "Please reload your file and make sure it is in the right format.",
    "INVALID_REQUEST_FORMAT": "Verify the request payload.",
    REQUEST_NOT_FOUND: "Please verify your request.",
    "CONFLICT_ADDING_RESOURCE": "Please make the saving model doesn't exist.",
    DUPLICATE_DATA: "Please provide single resource at a time.",
    "GENERIC_FAILURE": "Verify the request and try again.",
    "UNAUTHORIZED_REQUEST": "Provide valid credentials.",
    "INVALID_FILE_EXTENSION": "Verify the request payload.",
}


ERROR_DESCRIPTIONS = {
    400: "Malformed input (INVALID_REQUEST_FORMAT)",
    404: "No such resource (RESOURCE_NOT_FOUND)",
    406: "The stored content cannot be rendered in the requested format",
    409: "More than one record matches (DUPLICATE_DATA)",
    413: "Archive or body too large",
    415: "Not multipart/form-data (INVALID_FILE_EXTENSION)",
    503: "The archive failed enrichment or validation (IO_FILE_INTERRUPT)",
}
"""How the OpenAPI document words each error status a route names (the service's ``error_descriptions``)."""


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


def sub_error(message: str, cause: str, domain: str = DESIGNER_DOMAIN) -> dict[str, str]:
    return {"domainId": domain, "message": message, "cause": cause}


def resource_not_found(cause: str) -> NotFound:
    """An unknown resource (as opposed to an unknown path)."""
    return NotFound(cause, code=RESOURCE_NOT_FOUND)


def render_error(request: Request, error: ApiError) -> Response:
    status_id = error.code or _STATUS_IDS.get(error.status, "GENERIC_FAILURE")
    action = ACTIONS.get(status_id, ACTIONS["GENERIC_FAILURE"])
    payload = ErrorPayload(
        code=error.status,
        status=status_id,
        timestamp=wire_time(utc_now()),
        message=f"Cause: {error.message} \n Action : {action}",
        subErrors=[SubError(**e) for e in error.extra.get("subErrors", [])],
    )
    return reply(payload, error.status, headers=error.headers)
