"""What a Velocity template can hold and do: a closed set of value types, Java printing, the
operators, and the one allow-list of methods.

A template sees only these values: ``None``, ``str``, ``int``, ``float``, :class:`JBool`, Jackson
containers (:class:`JList`, :class:`JDict`: the resolved JSON data), Java collections the template
made itself (``list``, ``dict``, ``range``), :class:`LoopScope` (``$foreach``) and the two
:class:`Utils` (``StringUtils``, ``BooleanUtils``). No operation here returns anything else, so
no Python object (a class, a function, a module) can ever reach a template. Every method a
template may call is in :data:`METHODS` (or a :class:`Utils` table); the tables are read-only.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import Any

HYPHEN = "__H__"
MAX_STRING = 4 * 1024 * 1024  # characters: the output bound, and the longest string a template may build
MAX_INT_BITS = 4096


class Refused(Exception):
    """A bound or a rule of the sandbox stopped the render; the message says which."""


def mangle(name: str) -> str:
    return name.replace("-", HYPHEN)


def unmangle(name: str) -> str:
    return name.replace(HYPHEN, "-")


# --- the value types ---------------------------------------------------------------------------


class JBool:
    """A boolean printing ``true``/``false``, as Java does (every boolean a template sees)."""

    __slots__ = ("value",)

    def __init__(self, value: bool) -> None:
        self.value = bool(value)

    def __bool__(self) -> bool:
        return self.value

    def __eq__(self, other: object) -> bool:
        return self.value == (other.value if isinstance(other, JBool) else other)

    def __hash__(self) -> int:
        return hash(self.value)

    def __repr__(self) -> str:
        return "true" if self.value else "false"


TRUE, FALSE = JBool(True), JBool(False)


def jbool(value: object) -> JBool:
    return TRUE if value else FALSE


class JList(list[Any]):
    """A JSON array of the resolved data (a Jackson ``ArrayNode``: prints as compact JSON)."""


class JDict(dict[str, Any]):
    """A JSON object of the resolved data (a Jackson ``ObjectNode``: prints as compact JSON)."""


class LoopScope(dict[str, Any]):
    """``$foreach`` of one iteration: ``count``, ``index``, ``hasNext``, ``first``, ``last``."""


class Utils:
    """``StringUtils`` / ``BooleanUtils``: static methods only, from a read-only table."""

    __slots__ = ("methods", "name")

    def __init__(self, name: str, methods: dict[str, Callable[..., Any]]) -> None:
        self.name = name
        self.methods: Mapping[str, Callable[..., Any]] = MappingProxyType(methods)

    def __repr__(self) -> str:
        return self.name


def java_value(value: Any) -> Any:
    """Resolved JSON data as the template sees it: keys mangled, booleans and containers Jackson's."""
    if value is None or isinstance(value, str | float):
        return value
    if isinstance(value, bool):
        return jbool(value)
    if isinstance(value, int):
        return value
    if isinstance(value, dict):
        return JDict({mangle(str(key)): java_value(item) for key, item in value.items()})
    if isinstance(value, list | tuple):
        return JList(java_value(item) for item in value)
    return str(value)  # nothing but JSON reaches a render; anything else is only text


def plain(value: Any) -> Any:
    """The JSON data back (for printing a Jackson container, and for ``equals``)."""
    if isinstance(value, JBool):
        return value.value
    if isinstance(value, dict):
        return {unmangle(str(key)): plain(item) for key, item in value.items()}
    if isinstance(value, list | range):
        return [plain(item) for item in value]
    if value is None or isinstance(value, str | int | float):
        return value
    return repr(value)


# --- printing ----------------------------------------------------------------------------------


def java_text(value: Any) -> str:
    """``value`` printed as Java prints it (``null`` for None: a reference prints its own text)."""
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if isinstance(value, JBool | bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _java_double(value)
    if isinstance(value, JList | JDict):
        return json.dumps(plain(value), separators=(",", ":"), ensure_ascii=False)
    if isinstance(value, list | range):
        return "[" + ", ".join(java_text(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{unmangle(str(k))}={java_text(v)}" for k, v in value.items()) + "}"
    return repr(value)


def _java_double(value: float) -> str:
    """``Double.toString``: plain from 10^-3 to 10^7, else ``1.5E-5``."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0 or 1e-3 <= abs(value) < 1e7:
        return repr(value)
    mantissa, _, exponent = f"{value:e}".partition("e")
    digits = repr(float(mantissa)) if "." in repr(float(mantissa)) else f"{mantissa}.0"
    return f"{digits}E{int(exponent)}"


# --- operators ---------------------------------------------------------------------------------


def truthy(value: Any) -> bool:
    """Velocity's ``#if`` with the empty check off (the reference's setting): only null and false
    are false; an empty string, 0 or an empty list are true."""
    if value is None:
        return False
    if isinstance(value, JBool | bool):
        return bool(value)
    return True


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _checked_int(value: Any) -> Any:
    if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
        raise Refused(f"a number larger than {MAX_INT_BITS} bits")
    return value


def add(left: Any, right: Any) -> Any:
    if left is None or right is None:
        return None
    if isinstance(left, str) or isinstance(right, str):
        return bounded_text(java_text(left), java_text(right))
    return _checked_int(_arithmetic("+", left, right))


def bounded_text(*parts: str) -> str:
    if sum(len(part) for part in parts) > MAX_STRING:
        raise Refused(f"a string longer than {MAX_STRING} characters")
    return "".join(parts)


def _arithmetic(operator: str, left: Any, right: Any) -> Any:
    if not (_number(left) and _number(right)):
        raise Refused(f"{operator} needs two numbers, not {kind(left)} and {kind(right)}")
    if operator == "+":
        return left + right
    if operator == "-":
        return left - right
    if operator == "*":
        both_int = isinstance(left, int) and isinstance(right, int)
        if both_int and left.bit_length() + right.bit_length() > MAX_INT_BITS:
            raise Refused(f"a number larger than {MAX_INT_BITS} bits")
        return left * right
    if right == 0:
        raise Refused("division by zero")
    if isinstance(left, int) and isinstance(right, int):  # Java truncates toward zero
        quotient = abs(left) // abs(right) * (1 if (left >= 0) == (right >= 0) else -1)
        return quotient if operator == "/" else left - right * quotient
    return left / right if operator == "/" else math.fmod(left, right)


def arithmetic(operator: str, left: Any, right: Any) -> Any:
    if left is None or right is None:
        return None
    return _checked_int(_arithmetic(operator, left, right))


def equal(left: Any, right: Any) -> bool:
    """Velocity's ``==``: numbers by value, the same kind by equality, else by their text."""
    if left is None or right is None:
        return left is None and right is None
    if _number(left) and _number(right):
        return bool(left == right)
    if kind(left) == kind(right):
        return bool(plain(left) == plain(right))
    return java_text(left) == java_text(right)


def compare(operator: str, left: Any, right: Any) -> bool:
    both_numbers = _number(left) and _number(right)
    if not both_numbers and not (isinstance(left, str) and isinstance(right, str)):
        raise Refused(f"{operator} compares two numbers or two strings, not {kind(left)} and {kind(right)}")
    if operator in ("<", "lt"):
        return bool(left < right)
    if operator in ("<=", "le"):
        return bool(left <= right)
    if operator in (">", "gt"):
        return bool(left > right)
    return bool(left >= right)


def kind(value: Any) -> str:
    """The Java-side name of a value's type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, JBool | bool):
        return "boolean"
    if isinstance(value, str):
        return "string"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, list | range):
        return "list"
    if isinstance(value, dict):
        return "map"
    return "object"


# --- the methods a template may call -----------------------------------------------------------


def _text(value: Any) -> str:
    return "" if isinstance(value, dict | list | range) else java_text(value)


def _as_int(value: Any) -> int:
    try:
        number = plain(value)
        return int(float(number)) if isinstance(number, str) and "." in number else int(number)
    except (TypeError, ValueError, OverflowError):
        return 0


def _as_double(value: Any) -> float:
    try:
        return float(plain(value))
    except (TypeError, ValueError):
        return 0.0


def _as_boolean(value: Any) -> JBool:
    if isinstance(value, str):
        return jbool(value.strip().lower() == "true")
    if isinstance(value, int | float):
        return jbool(value != 0)
    return jbool(truthy(value))


def _sized(size: int) -> None:
    if size > MAX_STRING:
        raise Refused(f"a string longer than {MAX_STRING} characters")


def _replace(text: str, old: Any, new: Any) -> str:
    old_text, new_text = java_text(old), java_text(new)
    if old_text == "":
        _sized(len(text) + (len(text) + 1) * len(new_text))
    else:
        _sized(len(text) + text.count(old_text) * max(0, len(new_text) - len(old_text)))
    return text.replace(old_text, new_text)


def _index(items: Any, index: Any) -> Any:
    if isinstance(index, int) and not isinstance(index, bool) and 0 <= index < len(items):
        return items[index]
    return None


def _key(key: Any) -> Any:
    return mangle(key) if isinstance(key, str) else key


def _grown(items: list[Any], more: Iterable[Any]) -> JBool:
    """``add``/``addAll`` on a list the template holds; only lists grow (a range is read-only)."""
    if not isinstance(items, list):
        raise Refused("a range cannot be changed")
    added = list(more)
    if len(items) + len(added) > MAX_STRING:
        raise Refused(f"a list longer than {MAX_STRING} items")
    items.extend(added)
    return TRUE


def put_member(items: dict[Any, Any], key: Any, value: Any) -> Any:
    if isinstance(items, LoopScope):
        raise Refused("$foreach cannot be changed")
    if not isinstance(_key(key), str | int | float | JBool):
        raise Refused("a map key is a string or a number")
    previous = items.get(_key(key))
    items[_key(key)] = value
    return previous


_COMMON: dict[str, Callable[..., Any]] = {
    "asText": _text,
    "textValue": lambda value: value if isinstance(value, str) else None,
    "toString": java_text,
    "asInt": _as_int,
    "intValue": _as_int,
    "asLong": _as_int,
    "longValue": _as_int,
    "asDouble": _as_double,
    "doubleValue": _as_double,
    "asBoolean": _as_boolean,
    "booleanValue": _as_boolean,
    "isNull": lambda value: FALSE,
    "isTextual": lambda value: jbool(isinstance(value, str)),
    "isNumber": lambda value: jbool(_number(value)),
    "isBoolean": lambda value: jbool(isinstance(value, JBool)),
    "isArray": lambda value: jbool(isinstance(value, list | range)),
    "isObject": lambda value: jbool(isinstance(value, dict)),
    "equals": lambda value, other: jbool(equal(value, other)),
}

_STRING: dict[str, Callable[..., Any]] = {
    "length": len,
    "size": len,
    "isEmpty": lambda s: jbool(not s),
    "toUpperCase": str.upper,
    "toLowerCase": str.lower,
    "trim": str.strip,
    "substring": lambda s, start, end=None: s[start:end],
    "startsWith": lambda s, prefix: jbool(s.startswith(java_text(prefix))),
    "endsWith": lambda s, suffix: jbool(s.endswith(java_text(suffix))),
    "contains": lambda s, part: jbool(java_text(part) in s),
    "indexOf": lambda s, part: s.find(java_text(part)),
    "lastIndexOf": lambda s, part: s.rfind(java_text(part)),
    "replace": _replace,
    "concat": lambda s, other: bounded_text(s, java_text(other)),
    "split": lambda s, separator: [part for part in s.split(java_text(separator))],
    "charAt": lambda s, index: s[index],
    "equalsIgnoreCase": lambda s, other: jbool(s.lower() == java_text(other).lower()),
    "compareTo": lambda s, other: (s > java_text(other)) - (s < java_text(other)),
}

_LIST: dict[str, Callable[..., Any]] = {
    "size": len,
    "isEmpty": lambda items: jbool(not items),
    "get": _index,
    "contains": lambda items, value: jbool(any(equal(item, value) for item in items)),
    "indexOf": lambda items, value: next((n for n, item in enumerate(items) if equal(item, value)), -1),
    "add": lambda items, value: _grown(items, [value]),
    "addAll": lambda items, more: _grown(items, more if isinstance(more, list | range) else []),
}

_MAP: dict[str, Callable[..., Any]] = {
    "size": len,
    "isEmpty": lambda items: jbool(not items),
    "get": lambda items, key: items.get(_key(key)),
    "has": lambda items, key: jbool(_key(key) in items),
    "containsKey": lambda items, key: jbool(_key(key) in items),
    "keySet": lambda items: [unmangle(key) if isinstance(key, str) else key for key in items],
    "fieldNames": lambda items: [unmangle(key) if isinstance(key, str) else key for key in items],
    "values": lambda items: list(items.values()),
    "put": put_member,
}

_LOOP: dict[str, Callable[..., Any]] = {
    "hasNext": lambda scope: scope["hasNext"],
    "getHasNext": lambda scope: scope["hasNext"],
    "getCount": lambda scope: scope["count"],
    "getIndex": lambda scope: scope["index"],
    "isFirst": lambda scope: scope["first"],
    "isLast": lambda scope: scope["last"],
}


def _table(*parts: dict[str, Callable[..., Any]]) -> Mapping[str, Callable[..., Any]]:
    merged: dict[str, Callable[..., Any]] = {}
    for part in parts:
        merged.update(part)
    return MappingProxyType(merged)


STRING_METHODS = _table(_COMMON, _STRING)
LIST_METHODS = _table(_COMMON, _LIST)
MAP_METHODS = _table(_COMMON, _MAP)
LOOP_METHODS = _table(_LOOP)
SCALAR_METHODS = _table(_COMMON)
NO_METHODS: Mapping[str, Callable[..., Any]] = MappingProxyType({})


def _blank(value: Any) -> bool:
    return value is None or not java_text(value).strip()


def _or_none(convert: Callable[[str], Any]) -> Callable[[Any], Any]:
    return lambda value: None if value is None else convert(java_text(value))


def _join(items: Any, separator: Any = "") -> str | None:
    if not isinstance(items, list | range):
        return None
    return bounded_text(*_interleaved([_text(item) for item in items], java_text(separator)))


def _interleaved(parts: list[str], separator: str) -> list[str]:
    joined: list[str] = []
    for n, part in enumerate(parts):
        joined.extend((separator, part) if n else (part,))
    return joined


STRING_UTILS = Utils(
    "StringUtils",
    {
        "upperCase": _or_none(str.upper),
        "lowerCase": _or_none(str.lower),
        "capitalize": _or_none(lambda text: text[:1].upper() + text[1:]),
        "isBlank": lambda value: jbool(_blank(value)),
        "isNotBlank": lambda value: jbool(not _blank(value)),
        "isEmpty": lambda value: jbool(value is None or java_text(value) == ""),
        "isNotEmpty": lambda value: jbool(value is not None and java_text(value) != ""),
        "trim": _or_none(str.strip),
        "join": _join,
        "replace": lambda text, old, new: None if text is None else _replace(java_text(text), old, new),
        "substringBefore": lambda text, sep: (
            None if text is None else java_text(text).partition(java_text(sep))[0]
        ),
        "substringAfter": lambda text, sep: (
            None if text is None else java_text(text).partition(java_text(sep))[2]
        ),
        "defaultString": lambda value, default="": default if value is None else value,
        "defaultIfBlank": lambda value, default: default if _blank(value) else value,
        "equals": lambda a, b: jbool(equal(a, b)),
        "contains": lambda text, part: jbool(text is not None and java_text(part) in java_text(text)),
        "startsWith": lambda text, part: jbool(
            text is not None and java_text(text).startswith(java_text(part))
        ),
        "endsWith": lambda text, part: jbool(text is not None and java_text(text).endswith(java_text(part))),
    },
)
BOOLEAN_UTILS = Utils(
    "BooleanUtils",
    {
        "isTrue": lambda value: jbool(value is not None and bool(_as_boolean(value))),
        "isFalse": lambda value: jbool(value is not None and not _as_boolean(value)),
        "isNotTrue": lambda value: jbool(value is None or not _as_boolean(value)),
        "isNotFalse": lambda value: jbool(value is None or bool(_as_boolean(value))),
        "toBoolean": _as_boolean,
        "negate": lambda value: None if value is None else jbool(not _as_boolean(value)),
    },
)


def methods_of(value: Any) -> Mapping[str, Callable[..., Any]]:
    """The methods a template may call on ``value`` (besides a Utils' own table)."""
    if isinstance(value, str):
        return STRING_METHODS
    if isinstance(value, LoopScope):
        return LOOP_METHODS
    if isinstance(value, dict):
        return MAP_METHODS
    if isinstance(value, list | range):
        return LIST_METHODS
    if isinstance(value, int | float | JBool):
        return SCALAR_METHODS
    return NO_METHODS


def sandboxed(value: Any) -> Any:
    """A method's result as a template value: Python booleans become :class:`JBool`; a value of
    any other type is refused (no method returns one; this keeps it so)."""
    if isinstance(value, bool):
        return jbool(value)
    if value is None or isinstance(value, str | int | float | JBool | list | dict | range):
        return value
    raise Refused(f"a method answered a {type(value).__name__}, which templates cannot hold")
