"""Text no database can keep, refused at the edge: NUL characters and lone surrogates.

PostgreSQL refuses NUL in text and neither database stores a lone surrogate (``"\\ud800"`` is
valid JSON but not valid UTF-8), so such input would otherwise surface as a 500 from the
database. The kernel refuses it in paths and queries (middleware/kernel.py); services use
:data:`StorableStr` (or :func:`is_storable`) for strings in their bodies.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue

NO_NUL_PATTERN = "^[^\\u0000]*$"
"""What the OpenAPI documents say of storable strings (lone surrogates cannot be put in a pattern)."""


def is_storable(text: str) -> bool:
    if "\x00" in text:
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _storable(value: str) -> str:
    if "\x00" in value:
        raise ValueError("NUL characters are not allowed")
    if not is_storable(value):
        raise ValueError("lone surrogate characters are not allowed")
    return value


class _DocumentedStorable:
    """Puts :data:`NO_NUL_PATTERN` in the JSON schema, so clients generated from it send no NUL."""

    def __get_pydantic_json_schema__(
        self, core_schema: Any, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        schema = handler(core_schema)
        schema.setdefault("pattern", NO_NUL_PATTERN)
        return schema


StorableStr = Annotated[str, AfterValidator(_storable), _DocumentedStorable()]
"""A string field that refuses what no database stores (a 400 through the kernel)."""
