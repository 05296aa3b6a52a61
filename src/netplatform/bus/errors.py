"""The bus controller's error body: ApiError ``{code, message, fields, is2xx}`` (reference section 2).

Also the errors the reference words the same way everywhere (a missing required field, a value
that fails the no-whitespace check) and how the OpenAPI document words the error statuses.
"""

from __future__ import annotations

from pydantic import BaseModel
from starlette.requests import Request
from starlette.responses import Response

from ..web.errors import ApiError, BadRequest
from .answers import reply

NO_WHITESPACE = r"^\S+$"

ERROR_DESCRIPTIONS = {
    400: "Bad request: a required field is missing or a value is not acceptable",
    403: "The caller lacks the permission the operation declares",
    404: "No object with that id",
    409: "The object already exists",
}


class ApiErrorBody(BaseModel):
    code: int
    message: str | None = None
    fields: str | None = None
    is2xx: bool


def render_error(request: Request, error: ApiError) -> Response:
    message = error.message
    fields = error.fields
    if error.status == 401:
        user = error.extra.get("user") or "anonymous"
        message = f"User {user} failed authentication/authorization for {request.url.path} {request.method}"
        fields = "Authorization"
    elif error.status == 403 and fields is None:  # the kernel's refusal (reference authz.md 3.3)
        fields = "Authorization"
    body = ApiErrorBody(code=error.status, message=message, fields=fields, is2xx=200 <= error.status < 300)
    return reply(body, error.status, headers=error.headers)


def missing_field(name: str) -> BadRequest:
    return BadRequest("missing required field", fields=name)
