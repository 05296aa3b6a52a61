"""What every route module of the catalog shares: bounded path names, OpenAPI fragments, answers."""

from __future__ import annotations

import re
from typing import Annotated, Any

from fastapi import Depends, Path, Request

from ...web.bodies import TextBody
from ...web.errors import BadRequest, UnsupportedMediaType
from ...web.media import parse_media_type
from ...web.text import NO_NUL_PATTERN
from ..formats import JSON, SUPPORTED
from ..names import MAX_NAME_LENGTH, NAME_DESCRIPTION, NAME_PATTERN

Name = Annotated[
    str,
    Path(
        max_length=MAX_NAME_LENGTH,
        description=NAME_DESCRIPTION,
        json_schema_extra={"pattern": NAME_PATTERN},  # documented, checked by the handler (its 400 message)
    ),
]
"""A name in a path: bounded before any handler sees it."""

MULTIPART = "multipart/form-data"
EMPTY: dict[str, Any] = {}
"""The documented content of an answer without a body."""
TEXT_BODY: dict[str, Any] = {
    "requestBody": {
        "required": False,  # an empty text is a text
        "content": {
            media: {"schema": {"type": "string", "pattern": NO_NUL_PATTERN}}
            for media in ("text/plain", "application/json", "application/xml")
        },
    }
}


async def stored_text(text: TextBody) -> str:
    """A text body that is stored as it is: UTF-8 without NUL characters (no database keeps one)."""
    refuse_nul(text)
    return text


StoredText = Annotated[str, Depends(stored_text)]


def refuse_nul(*texts: str | None) -> None:
    """400 when one of the texts, which go to text columns, holds a NUL character."""
    if any(text and "\x00" in text for text in texts):
        raise BadRequest("NUL characters are not allowed")


def any_case(*words: str) -> dict[str, Any]:
    """``json_schema_extra`` documenting a parameter that is one of ``words`` in any case.

    The parameter is still checked by the handler (whose message names the allowed values); the
    pattern makes the OpenAPI document say exactly what is accepted.
    """

    def letters(word: str) -> str:
        return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else re.escape(c) for c in word)

    return {"pattern": "^(" + "|".join(letters(word) for word in words) + ")$"}


TEXT_CONTENT: dict[str, Any] = {
    media: {"schema": {} if media == JSON else {"type": "string"}} for media in SUPPORTED
}
"""The documented content of stored text answered in the format asked for: as JSON, the stored
document itself (any JSON value); as text or XML, a string."""


async def require_multipart(request: Request) -> None:
    """Archive uploads are multipart/form-data with a part named ``file``; anything else is a 415."""
    content_type = request.headers.get("content-type", "")
    if parse_media_type(content_type)[0] != MULTIPART:
        raise UnsupportedMediaType(f"expected {MULTIPART} with a part named file, got ({content_type})")
