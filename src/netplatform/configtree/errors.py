"""RESTCONF error bodies: ``{"errors": {"error": [{error-type, error-tag, error-message, ...}]}}``.

The HTTP status of a RESTCONF error follows from its error-tag (RFC 8040 section 7), so domain
code names the tag and :func:`restconf_error` picks the status; the kernel's exception family
carries both to :func:`render_error`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field
from starlette.requests import Request
from starlette.responses import Response

from ..web.answers import Reply
from ..web.errors import (
    ApiError,
    BadRequest,
    Conflict,
    Forbidden,
    InternalError,
    MethodNotAllowed,
    NotAcceptable,
    NotFound,
    PayloadTooLarge,
    UnsupportedMediaType,
)

ErrorType = Literal["transport", "rpc", "protocol", "application"]

TAG_ERRORS: dict[str, type[ApiError]] = {
    **dict.fromkeys(
        (
            "invalid-value",
            "malformed-message",
            "missing-element",
            "bad-element",
            "unknown-element",
            "unknown-namespace",
            "missing-attribute",
            "bad-attribute",
            "unknown-attribute",
        ),
        BadRequest,
    ),
    "access-denied": Forbidden,
    "data-missing": NotFound,
    "operation-not-supported": MethodNotAllowed,
    **dict.fromkeys(("data-exists", "in-use", "lock-denied", "resource-denied"), Conflict),
    "too-big": PayloadTooLarge,
    **dict.fromkeys(("operation-failed", "partial-operation", "rollback-failed"), InternalError),
}
"""error-tag -> the kernel exception carrying its HTTP status."""

_DEFAULT_TAGS = {
    400: "malformed-message",
    401: "access-denied",
    403: "access-denied",
    404: "data-missing",
    405: "operation-not-supported",
    406: "operation-not-supported",
    409: "data-exists",
    413: "too-big",
    415: "operation-not-supported",
    500: "operation-failed",
}
"""The tag of an error raised without one (by the kernel or the framework), by HTTP status."""

_REPLY = Reply(drop_none=True)
"""An error body leaves out the members it has no value for (error-path, error-info)."""


def restconf_error(
    tag: str,
    message: str,
    *,
    error_type: ErrorType = "protocol",
    info: str | None = None,
    path: str | None = None,
    headers: dict[str, str] | None = None,
    status: int | None = None,
) -> ApiError:
    """The exception for a RESTCONF error; its HTTP status follows from ``tag`` unless given."""
    extra = {"error_type": error_type, "error_info": info, "error_path": path}
    return TAG_ERRORS[tag](message, code=tag, extra=extra, headers=headers, status=status)


def not_acceptable(message: str) -> ApiError:
    return NotAcceptable(message, code="operation-not-supported")


def unsupported_media_type(message: str) -> ApiError:
    return UnsupportedMediaType(message, code="operation-not-supported")


class RestconfError(BaseModel):
    model_config = ConfigDict(populate_by_name=True)
    error_type: ErrorType = Field(alias="error-type")
    error_tag: str = Field(alias="error-tag")
    error_app_tag: str | None = Field(None, alias="error-app-tag")
    error_path: str | None = Field(
        None, alias="error-path", description="Instance identifier of the offending data node"
    )
    error_message: str = Field(alias="error-message")
    error_info: str | None = Field(None, alias="error-info")


class RestconfErrorList(BaseModel):
    error: list[RestconfError]


class RestconfErrors(BaseModel):
    errors: RestconfErrorList


def render_error(request: Request, error: ApiError) -> Response:
    entry = RestconfError(
        error_type=error.extra.get("error_type") or "protocol",
        error_tag=error.code or _DEFAULT_TAGS.get(error.status, "operation-failed"),
        error_path=error.extra.get("error_path"),
        error_message=error.message,
        error_info=error.extra.get("error_info"),
    )
    body = RestconfErrors(errors=RestconfErrorList(error=[entry]))
    return _REPLY(body, error.status, headers=error.headers)
