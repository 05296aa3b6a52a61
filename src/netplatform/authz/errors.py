"""The authz service's error body: ``{"code": <HTTP status>, "message": "...", "fields": "..."}``,
the shape the reference's bus controller uses for authorization failures (reference authz.md 3.3).

``fields`` says what failed: ``Authentication`` (401), ``Authorization`` (403 for a missing
permission), or the part of the request at fault (``id``, ``role``, ``perm``, ``user``,
``expires``; ``Request`` when nothing narrower applies).
"""

from __future__ import annotations

from pydantic import BaseModel, Field
from starlette.requests import Request
from starlette.responses import Response

from ..web.answers import reply
from ..web.errors import ApiError, BadRequest, Conflict, Forbidden, NotFound

_FIELDS = {401: "Authentication", 403: "Authorization"}


class AuthzError(BaseModel):
    code: int = Field(description="the HTTP status")
    message: str
    fields: str = Field(description="what failed: Authentication, Authorization, or the request part")


def render_error(request: Request, error: ApiError) -> Response:
    fields = str(error.fields or error.extra.get("fields") or _FIELDS.get(error.status, "Request"))
    body = AuthzError(code=error.status, message=error.message, fields=fields)
    return reply(body, error.status, headers=error.headers)


def bad_request(message: str, field: str) -> ApiError:
    return BadRequest(message, fields=field)


def not_found(kind: str, name: str, field: str) -> ApiError:
    return NotFound(f"No such {kind}: {name}", fields=field)


def exists(message: str, field: str) -> ApiError:
    return Conflict(message, fields=field)


def refused(message: str) -> ApiError:
    """A 403 that names the rule refusing the change (configured identities, built-in roles)."""
    return Forbidden(message, fields="Authorization")


def lacks_permission(user: str, permission: object) -> ApiError:
    """The kernel's wording, for the per-object checks the handlers take themselves."""
    return Forbidden(f"User {user} does not have permission {permission}", fields="Authorization")
