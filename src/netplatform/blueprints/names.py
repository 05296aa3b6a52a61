"""Names a client chooses (blueprint names and versions, model types, dictionaries, config keys).

They end up in URL paths and download file names, so they are bounded and may not carry path
separators or control characters: a name that could not be asked for again is refused up front.
"""

from __future__ import annotations

from ..web.errors import BadRequest

MAX_NAME_LENGTH = 255
MAX_TAGS_LENGTH = 512

_NAME_CHARACTER = "[ -.0-\\[\\]-~\u00a1-\u00ac\u00ae-\u00ff]"
NAME_PATTERN = f"^{_NAME_CHARACTER}*{_NAME_CHARACTER.replace(' ', '!', 1)}{_NAME_CHARACTER}*$"
"""What the OpenAPI document says of a name: printable ASCII and Latin-1, no / or \\, not blank.

:func:`checked_name` accepts every printable character; a regex that spells out all of Unicode's
would run to thousands of ranges, so the document states the common subset (a client that
keeps to it is never refused) and its description says the rest.
"""
NAME_DESCRIPTION = (
    "A name: printable characters, no / or \\, not blank. The pattern spells out ASCII and "
    "Latin-1; other printable characters are accepted too."
)


def checked_name(kind: str, value: str | None, *, max_length: int = MAX_NAME_LENGTH) -> str:
    """``value`` when it is a usable name, else a 400 naming ``kind``."""
    if value is None or not value.strip():
        raise BadRequest(f"{kind} is missing or blank")
    if len(value) > max_length:
        raise BadRequest(f"{kind} is longer than {max_length} characters")
    if "/" in value or "\\" in value:
        raise BadRequest(f"{kind} ({value}) must not contain a path separator")
    if not value.isprintable():
        raise BadRequest(f"{kind} must not contain control characters")
    return value


def bounded_text(kind: str, value: str, max_length: int = MAX_TAGS_LENGTH) -> str:
    """Free text (tags, authors) that goes into indexed columns."""
    if len(value) > max_length:
        raise BadRequest(f"{kind} is longer than {max_length} characters")
    return value
