"""Text no database can keep, refused at the edge: NUL characters and lone surrogates.

PostgreSQL refuses NUL in text and neither database stores a lone surrogate (``"\\ud800"`` is
valid JSON but not valid UTF-8), so such input would otherwise surface as a 500 from the
database. The kernel refuses it in paths and queries (middleware/inputguard.py); services use
:data:`StorableStr` (or :func:`is_storable`) for strings in their bodies.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator


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


StorableStr = Annotated[str, AfterValidator(_storable)]
"""A string field that refuses what no database stores (a 400 through the kernel)."""
