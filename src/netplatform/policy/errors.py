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

from ..web.answers import reply
from ..web.errors import ApiError, NotAcceptable
from .media_types import answer_format, encode

ERROR_DESCRIPTIONS = {
    400: "Invalid Body or parameter",
    401: "Authentication Error",
    404: "Resource Not Found",
    406: "Not Acceptable Version or Payload",
    409: "Delete Conflict, Rule Violation",
    413: "Request body too large",
    415: "Unsupported media type",
}
"""How the OpenAPI document words each error status of this API."""


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
    rendered = encode(body.model_dump(exclude_none=True), answer_format(request))
    return reply(rendered, error.status, headers=error.headers)


def invalid_items(lines: list[str]) -> NotAcceptable:
    """406 for one or more validation leaf lines (``item "x" value "y" INVALID, reason``)."""
    return NotAcceptable("\n".join(lines), details=lines)


def invalid_property_values(failures: list[tuple[str, list[str]]]) -> NotAcceptable:
    """406 for policies whose properties do not fit their types (issue 17).

    In the reference's multi-line validation form (reference 2.3): a bean line per policy, then
    its leaf lines indented by two spaces; ``details`` holds the same lines.
    """
    lines: list[str] = []
    for policy_id, leaves in failures:
        lines.append(f'"{policy_id}" INVALID, item has status INVALID')
        lines.extend(f"  {leaf}" for leaf in leaves)
    return NotAcceptable("".join(line + "\n" for line in lines), details=lines)


def item_line(item: str, value: object, reason: str) -> str:
    """A validation leaf line in the reference's wording; clients match on it."""
    text = str(value)
    if len(text) > 200:
        text = text[:200] + "..."
    return f'item "{item}" value "{text}" INVALID, {reason}'
