"""Request bodies read by the route itself, after the checks that must come first.

A route that declares a pydantic body makes FastAPI parse it before the handler runs, so a
415 or 403 the service owes first would lose to a 400 about the body. Such routes take the
raw bytes instead (``body: RawBody``) and parse them where their documented order says.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from .errors import BadRequest


async def raw_body(request: Request) -> bytes:
    """The whole request body as bytes (bounded by the kernel's body limit)."""
    return await request.body()


async def text_body(request: Request) -> str:
    """The whole request body as UTF-8 text, else 400."""
    try:
        return (await request.body()).decode("utf-8")
    except UnicodeDecodeError as error:
        raise BadRequest("request body is not UTF-8 text") from error


RawBody = Annotated[bytes, Depends(raw_body)]
TextBody = Annotated[str, Depends(text_body)]
