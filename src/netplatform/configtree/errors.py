"""RESTCONF error bodies: ``{"errors": {"error": [{error-type, error-tag, error-message}]}}``."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ..web.errors import ApiError

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


class RestconfError(BaseModel):
    model_config = ConfigDict(populate_by_name=True)
    error_type: str = Field(alias="error-type")
    error_tag: str = Field(alias="error-tag")
    error_message: str = Field(alias="error-message")
    error_app_tag: str | None = Field(None, alias="error-app-tag")
    error_info: str | None = Field(None, alias="error-info")


class RestconfErrorList(BaseModel):
    error: list[RestconfError]


class RestconfErrors(BaseModel):
    errors: RestconfErrorList


def render_error(request: Request, error: ApiError) -> Response:
    entry = RestconfError(
        error_type=error.extra.get("error_type", "protocol"),
        error_tag=error.code or _DEFAULT_TAGS.get(error.status, "operation-failed"),
        error_message=error.message,
        error_info=error.extra.get("error_info"),
    )
    body = RestconfErrors(errors=RestconfErrorList(error=[entry]))
    return JSONResponse(
        body.model_dump(by_alias=True, exclude_none=True), status_code=error.status, headers=error.headers
    )
