"""Input checks in the reference's words: the first failing check answers (reference section 2)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..web.errors import BadRequest
from .errors import NO_WHITESPACE, missing_field

_NO_WHITESPACE = re.compile(NO_WHITESPACE)


def require(value: Any, name: str) -> Any:
    """A field is missing when absent or null; ``""`` passes."""
    if value is None:
        raise missing_field(name)
    return value


def require_token(value: str | None, name: str) -> str:
    """Required, and non-empty without whitespace (``^\\S+$``)."""
    require(value, name)
    check_token(value, name)
    return str(value)


def check_token(value: str | None, name: str) -> None:
    if value is None or not _NO_WHITESPACE.match(value):
        raise BadRequest(f"value '{value}' violates regexp check '{NO_WHITESPACE}'", fields=name)


def require_all(body: object, names: Sequence[str]) -> None:
    for name in names:
        require(getattr(body, name), name)
