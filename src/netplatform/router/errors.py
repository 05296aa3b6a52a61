"""The message router's error body, as the reference router writes it.

``{"status": <HTTP status>, "mrstatus": <router code>, "message": "...", "helpURL": "..."}``.
The router codes are the reference's response codes (3001 resource not found, 4002 access not
permitted, 5005 incorrect JSON, 6003 create topic failed, ...); an error raised without one
(by the kernel or the framework) gets the code of its HTTP status.
"""

from __future__ import annotations

from pydantic import BaseModel, Field
from starlette.requests import Request
from starlette.responses import Response

from ..web.answers import reply
from ..web.errors import (
    ApiError,
    BadRequest,
    Conflict,
    Forbidden,
    NotFound,
    PayloadTooLarge,
    ServiceUnavailable,
)

HELP_URL = "docs/router.md#errors"

RESOURCE_NOT_FOUND = 3001
SERVER_UNAVAILABLE = 3002
METHOD_NOT_ALLOWED = 3003
GENERIC_INTERNAL_ERROR = 1004
INVALID_CREDENTIALS = 4001
ACCESS_NOT_PERMITTED = 4002
INCORRECT_BATCHING_FORMAT = 5003
MSG_SIZE_EXCEEDS_MSG_LIMIT = 5004
INCORRECT_JSON = 5005
CREATE_TOPIC_FAIL = 6003

_DEFAULT_CODES = {
    400: INCORRECT_BATCHING_FORMAT,
    401: INVALID_CREDENTIALS,
    403: ACCESS_NOT_PERMITTED,
    404: RESOURCE_NOT_FOUND,
    405: METHOD_NOT_ALLOWED,
    409: CREATE_TOPIC_FAIL,
    413: MSG_SIZE_EXCEEDS_MSG_LIMIT,
    503: SERVER_UNAVAILABLE,
}


class RouterError(BaseModel):
    status: int = Field(description="the HTTP status")
    mrstatus: int = Field(description="the router's own code for the failure")
    message: str
    helpURL: str


def error_body(error: ApiError) -> RouterError:
    mrstatus = error.extra.get("mrstatus") or _DEFAULT_CODES.get(error.status, GENERIC_INTERNAL_ERROR)
    return RouterError(status=error.status, mrstatus=mrstatus, message=error.message, helpURL=HELP_URL)


def render_error(request: Request, error: ApiError) -> Response:
    return reply(error_body(error), error.status, headers=error.headers)


def _coded(error: type[ApiError], message: str, mrstatus: int) -> ApiError:
    return error(message, extra={"mrstatus": mrstatus})


def topic_not_found(topic: str) -> ApiError:
    return _coded(NotFound, f"No such topic exists.-[{topic}]", RESOURCE_NOT_FOUND)


def topic_exists(topic: str) -> ApiError:
    return _coded(Conflict, f"Topic already exists.-[{topic}]", CREATE_TOPIC_FAIL)


def admin_topic_not_adopted(topic: str, owner: str) -> ApiError:
    """A topic of the bridge-admin topic's name that this router did not make (issue 36, point 2)."""
    return _coded(
        Conflict,
        f"topic {topic} exists and was not made by this router for the platform (owner {owner}): "
        "it is never adopted as the bridge-admin topic, whose messages define mirror agents; a "
        "router admin deletes it (the router then makes it afresh), or the bus settings name another",
        CREATE_TOPIC_FAIL,
    )


def access_denied(message: str) -> ApiError:
    return _coded(Forbidden, message, ACCESS_NOT_PERMITTED)


def bad_request(message: str, mrstatus: int = INCORRECT_BATCHING_FORMAT) -> ApiError:
    return _coded(BadRequest, message, mrstatus)


def incorrect_json(message: str) -> ApiError:
    return _coded(BadRequest, message, INCORRECT_JSON)


def message_too_large(message: str) -> ApiError:
    return _coded(PayloadTooLarge, message, MSG_SIZE_EXCEEDS_MSG_LIMIT)


def engine_unavailable(reason: str) -> ApiError:
    return _coded(ServiceUnavailable, f"The message engine is unavailable: {reason}", SERVER_UNAVAILABLE)
