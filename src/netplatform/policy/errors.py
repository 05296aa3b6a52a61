"""The policy API's error body ``{code, error, details, warnings}`` and its version headers.

One shape for every error, 401, 404 of an unknown path, 405 and 415 included (reference 2.3):
``code`` is the status name, ``error`` the message, ``details`` the message lines (the
message itself when there is nothing more), ``warnings`` omitted when empty. The body is YAML
when the client prefers YAML, like every other answer of this API.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel
from starlette.requests import Request
from starlette.responses import Response

from ..web.errors import ApiError, NotAcceptable
from .media import render


class ErrorResponse(BaseModel):
    code: str
    error: str
    details: list[str] = []
    warnings: list[str] | None = None


def version_headers(request_id: str) -> Iterable[tuple[str, str]]:
    """Spec 9.2: on every policy response, errors and 401s included."""
    return (("X-LatestVersion", "1.0.0"), ("X-MinorVersion", "0"), ("X-PatchVersion", "0"))


def render_error(request: Request, error: ApiError) -> Response:
    body = ErrorResponse(code=error.reason, error=error.message, details=error.details or [error.message])
    return render(request, body.model_dump(exclude_none=True), error.status, headers=error.headers)


def invalid_items(lines: list[str]) -> NotAcceptable:
    """406 for one or more validation leaf lines (``item "x" value "y" INVALID, reason``)."""
    return NotAcceptable("\n".join(lines), details=lines)


def item_line(item: str, value: object, reason: str) -> str:
    """A validation leaf line in the reference's wording; clients match on it."""
    text = str(value)
    if len(text) > 200:
        text = text[:200] + "..."
    return f'item "{item}" value "{text}" INVALID, {reason}'
