"""The lenient JSON object reader of feed and subscription bodies, with the reference's error texts.

The reference parses feeds and subscriptions with a lenient JSON object reader: unknown keys
are ignored, booleans may also be written ``"true"``/``"false"``, integers may be numeric
strings, and every failure names the key (``Invalid JSON: JSONObject["name"] not found.``).
Clients match on those texts, so the reader here speaks the same way.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

from ..web.errors import BadRequest
from ..web.text import is_storable

T = TypeVar("T")

_INT_RANGE = range(-(2**31), 2**31)


def parse_object(body: bytes) -> Document:
    """The request body as one JSON object, else 400 ``Badly formed JSON``."""
    try:
        value = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise BadRequest("Badly formed JSON") from None
    if not isinstance(value, dict):
        raise BadRequest("Badly formed JSON")
    return Document(value)


def _invalid(key: str, problem: str) -> BadRequest:
    return BadRequest(f'Invalid JSON: JSONObject["{key}"] {problem}.')


def _as_string(key: str, value: Any) -> str:
    if not isinstance(value, str):
        raise _invalid(key, "is not a string")
    if not is_storable(value):
        raise _invalid(key, "is not a valid string")
    return value


def _as_bool(key: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    raise _invalid(key, "is not a Boolean")


def _as_int(key: str, value: Any) -> int:
    number: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    elif isinstance(value, str):
        try:
            number = int(value.strip())
        except ValueError:
            number = None
    if number is None or number not in _INT_RANGE:
        raise _invalid(key, "is not an int")
    return number


class Document:
    """One JSON object; getters named ``required_*`` fail on absence, ``optional_*`` default."""

    def __init__(self, values: dict[str, Any]) -> None:
        self.values = values

    def has(self, key: str) -> bool:
        return self.values.get(key) is not None

    def _get(self, key: str, convert: Callable[[str, Any], T], default: T | None) -> T:
        value = self.values.get(key)
        if value is None:
            if default is None:
                raise _invalid(key, "not found")
            return default
        return convert(key, value)

    def required_string(self, key: str) -> str:
        return self._get(key, _as_string, None)

    def optional_string(self, key: str, default: str) -> str:
        return self._get(key, _as_string, default)

    def required_bool(self, key: str) -> bool:
        return self._get(key, _as_bool, None)

    def optional_bool(self, key: str, default: bool = False) -> bool:
        return self._get(key, _as_bool, default)

    def required_int(self, key: str) -> int:
        return self._get(key, _as_int, None)

    def optional_int(self, key: str, default: int) -> int:
        return self._get(key, _as_int, default)

    def required_object(self, key: str) -> Document:
        value = self._get(key, lambda k, v: v, None)
        if not isinstance(value, dict):
            raise _invalid(key, "is not a JSONObject")
        return Document(value)

    def required_array(self, key: str) -> list[Any]:
        value = self._get(key, lambda k, v: v, None)
        if not isinstance(value, list):
            raise _invalid(key, "is not a JSONArray")
        return value

    def optional_array(self, key: str) -> list[Any]:
        return self.required_array(key) if self.has(key) else []


def limit_length(value: str, maximum: int, message: str) -> str:
    """``value`` unchanged when it is at most ``maximum`` characters, else 400 ``message``."""
    if len(value) > maximum:
        raise BadRequest(message)
    return value
