"""One exception family for every service; each service renders it in its own body shape.

Domain code raises these (they carry no HTTP framework types), the kernel catches them and
hands them to the service's renderer, so an error body differs between services by contract
(the spec gives each its own shape) and never by accident.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from http import HTTPStatus
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from ..access.errors import DecisionRefused
from .answers import reply


class ApiError(Exception):
    """A failure the client should see, with the HTTP status that says why.

    ``code`` is a machine-readable identifier some services put in their bodies
    (``RESOURCE_NOT_FOUND``); ``fields`` names the offending input field; ``details`` carries
    further lines of explanation; ``headers`` are added to the response.
    """

    status: int = 500

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: str | None = None,
        fields: str | None = None,
        details: list[str] | None = None,
        headers: dict[str, str] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status
        self.code = code
        self.fields = fields
        self.details = details or []
        self.headers = headers or {}
        self.extra = extra or {}

    @property
    def reason(self) -> str:
        """The status name in upper snake case, e.g. ``NOT_FOUND`` (stable across Python versions)."""
        if self.status in _REASONS:
            return _REASONS[self.status]
        try:
            return HTTPStatus(self.status).name
        except ValueError:
            return "ERROR"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.status}, {self.message!r})"


# Python 3.13 renamed some HTTPStatus members (413 CONTENT_TOO_LARGE, 422 UNPROCESSABLE_CONTENT);
# clients match these names in error bodies, so they are fixed here.
_REASONS = {
    400: "BAD_REQUEST",
    401: "UNAUTHORIZED",
    403: "FORBIDDEN",
    404: "NOT_FOUND",
    405: "METHOD_NOT_ALLOWED",
    406: "NOT_ACCEPTABLE",
    409: "CONFLICT",
    413: "REQUEST_ENTITY_TOO_LARGE",
    415: "UNSUPPORTED_MEDIA_TYPE",
    422: "UNPROCESSABLE_ENTITY",
    429: "TOO_MANY_REQUESTS",
    500: "INTERNAL_SERVER_ERROR",
    503: "SERVICE_UNAVAILABLE",
}


class BadRequest(ApiError):
    status = 400


class Unauthorized(ApiError):
    status = 401


class Forbidden(ApiError):
    status = 403


class NotFound(ApiError):
    status = 404


class MethodNotAllowed(ApiError):
    status = 405


class NotAcceptable(ApiError):
    status = 406


class Conflict(ApiError):
    status = 409


class PayloadTooLarge(ApiError):
    status = 413


class UnsupportedMediaType(ApiError):
    status = 415


class TooManyRequests(ApiError):
    status = 429


class ServiceUnavailable(ApiError):
    status = 503


class InternalError(ApiError):
    status = 500


def refusal_of(refused: DecisionRefused) -> ApiError:
    """The access floor's refusal (access/errors.py: 503, 429) as the kernel answers it."""
    headers = {} if refused.retry_after_s is None else {"Retry-After": str(refused.retry_after_s)}
    error = TooManyRequests if refused.status == 429 else ServiceUnavailable
    return error(refused.message, status=refused.status, headers=headers)


def describe_validation_errors(problems: Sequence[Any]) -> str:
    """One line per pydantic problem, naming the field: ``name: Field required``."""
    lines = []
    for problem in problems:
        location = ".".join(str(part) for part in problem.get("loc", ()) if part != "body")
        message = problem.get("msg", "invalid")
        lines.append(f"{location}: {message}" if location else message)
    return "; ".join(lines) or "Invalid request"


ErrorRenderer = Callable[[Request, ApiError], Response]
"""Turns an :class:`ApiError` into the service's documented error response."""


def plain_text_renderer(request: Request, error: ApiError) -> Response:
    """The simplest renderer: the message as text/plain (the file-distribution shape)."""
    return reply(error.message, error.status, media_type="text/plain", headers=error.headers)
