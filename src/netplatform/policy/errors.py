"""The policy API's error body ``{code, error, details, warnings}`` and its version headers."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ..web.errors import ApiError


class ErrorResponse(BaseModel):
    code: str
    error: str
    details: list[str] = []
    warnings: list[str] | None = None


def version_headers(request_id: str) -> Iterable[tuple[str, str]]:
    """Spec 9.2: on every policy response, errors and 401s included."""
    return (("X-LatestVersion", "1.0.0"), ("X-MinorVersion", "0"), ("X-PatchVersion", "0"))


def render_error(request: Request, error: ApiError) -> Response:
    body = ErrorResponse(code=error.reason, error=error.message, details=[error.message, *error.details])
    return JSONResponse(body.model_dump(exclude_none=True), status_code=error.status, headers=error.headers)
