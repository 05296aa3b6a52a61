"""What every router of the catalog shares: response helpers and documented error statuses."""

from __future__ import annotations

import re
from typing import Annotated, Any

from fastapi import Path, Request
from fastapi.responses import JSONResponse, Response

from ...store.db import Database
from ...web.errors import BadRequest, UnsupportedMediaType
from ..errors import ErrorPayload
from ..formats import SUPPORTED
from ..names import MAX_NAME_LENGTH

Name = Annotated[str, Path(max_length=MAX_NAME_LENGTH)]
"""A name in a path: bounded before any handler sees it."""

_DESCRIPTIONS = {
    400: "Malformed input (INVALID_REQUEST_FORMAT)",
    404: "No such resource (RESOURCE_NOT_FOUND)",
    406: "The stored content cannot be rendered in the requested format",
    409: "More than one record matches (DUPLICATE_DATA)",
    413: "Archive or body too large",
    415: "Not multipart/form-data (INVALID_FILE_EXTENSION)",
    503: "The archive failed enrichment or validation (IO_FILE_INTERRUPT)",
}

EMPTY_OK: dict[int | str, dict[str, Any]] = {200: {"description": "Done (empty body)", "content": {}}}
TEXT_BODY: dict[str, Any] = {
    "requestBody": {
        "required": False,  # an empty text is a text
        "content": {
            media: {"schema": {"type": "string"}}
            for media in ("text/plain", "application/json", "application/xml")
        },
    }
}


def any_case(*words: str) -> dict[str, Any]:
    """``json_schema_extra`` documenting a parameter that is one of ``words`` in any case.

    The parameter is still checked by the handler (whose message names the allowed values); the
    pattern makes the OpenAPI document say exactly what is accepted.
    """

    def letters(word: str) -> str:
        return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else re.escape(c) for c in word)

    return {"pattern": "^(" + "|".join(letters(word) for word in words) + ")$"}


def text_responses(description: str) -> dict[int | str, dict[str, Any]]:
    """The 200 of a route that answers stored text in the format asked for."""
    content = {media: {"schema": {"type": "string"}} for media in SUPPORTED}
    return {200: {"description": description, "content": content}}


def database(request: Request) -> Database:
    db: Database = request.app.state.db
    return db


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """``responses=`` entries for the error statuses a route can answer with."""
    return {status: {"model": ErrorPayload, "description": _DESCRIPTIONS[status]} for status in statuses}


def ok(content: Any) -> JSONResponse:
    return JSONResponse(content)


def empty_ok() -> Response:
    return Response(status_code=200)


def require_multipart(request: Request) -> None:
    """Archive uploads are multipart/form-data with a part named ``file``; anything else is a 415."""
    content_type = request.headers.get("content-type", "")
    if not content_type.lower().startswith("multipart/form-data"):
        raise UnsupportedMediaType(
            f"expected multipart/form-data with a part named file, got ({content_type})"
        )


async def text_body(request: Request) -> str:
    """The raw request body as text, whatever its content type."""
    try:
        return (await request.body()).decode("utf-8")
    except UnicodeDecodeError as error:
        raise BadRequest("request body is not UTF-8 text") from error
