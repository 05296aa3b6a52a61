"""Velocity templates through airspeed, fenced in: CBA templates are archive content, never code.

airspeed resolves ``$a.b`` by item lookup, then by ``getattr`` on whatever Python object it
holds, and calls what it finds: ``$s.__class__.__mro__`` would walk from a string to every class
of the process. After parsing, every name lookup of the template is swapped for one that looks
up items of dicts and calls only the Java/Jackson-like methods listed here; ``#evaluate``,
``#include`` and ``#parse`` are refused (they parse text the swap never sees); ranges, loop
iterations, string repetition and the output are bounded.

What real CBAs use is supported (reference execution.md 5.2): hyphenated names
(``${stream-count}``, ``$tacplus-server.tacplus-server-name``) by a rewrite before parsing, Java
printing of booleans, lists and maps, ``asInt()`` and friends, ``StringUtils``/``BooleanUtils``.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Mapping
from typing import Any

import airspeed

HYPHEN = "__H__"
_SEG = r"[A-Za-z_][A-Za-z0-9_]*(?:-[A-Za-z0-9_]+)*"
_REFERENCE = re.compile(rf"(\$!?\{{?|#foreach\s*\(\s*\$|#set\s*\(\s*\$)({_SEG}(?:\.{_SEG})*)")

# A line holding nothing but a directive prints nothing, as in Velocity (airspeed keeps its
# indentation and line break).
_DIRECTIVE_LINE = re.compile(r"^[ \t]*(#(?:foreach|if|elseif)\s*\(.*\)|#else|#end)[ \t]*\r?\n", re.MULTILINE)
MAX_RANGE = 100_000
MAX_ITERATIONS = 1_000_000
MAX_OUTPUT = 4 * 1024 * 1024
_REFUSED = (airspeed.EvaluateDirective, airspeed.IncludeDirective, airspeed.ParseDirective)


class TemplateFailed(Exception):
    """A template that does not parse or render: the message names the line and the reason."""


def mangle(name: str) -> str:
    return name.replace("-", HYPHEN)


def unmangle(name: str) -> str:
    return name.replace(HYPHEN, "-")


# --- values as a Java template sees them -------------------------------------------------------


class JBool:
    """A boolean printing ``true``/``false``, as Java does."""

    __slots__ = ("value",)

    def __init__(self, value: bool) -> None:
        self.value = value

    def __bool__(self) -> bool:
        return self.value

    def __eq__(self, other: object) -> bool:
        return self.value == (other.value if isinstance(other, JBool) else other)

    def __hash__(self) -> int:
        return hash(self.value)

    def __str__(self) -> str:
        return "true" if self.value else "false"


class JList(list[Any]):
    def __str__(self) -> str:
        return json.dumps(plain(self), separators=(",", ":"))


class JDict(dict[str, Any]):
    def __str__(self) -> str:
        return json.dumps(plain(self), separators=(",", ":"))


def java_value(value: Any) -> Any:
    """JSON data as the template sees it: keys mangled, booleans and containers Java-printed."""
    if isinstance(value, bool):
        return JBool(value)
    if isinstance(value, dict):
        return JDict({mangle(str(key)): java_value(item) for key, item in value.items()})
    if isinstance(value, list):
        return JList(java_value(item) for item in value)
    return value


def plain(value: Any) -> Any:
    """The JSON data back (for printing a container)."""
    if isinstance(value, JBool):
        return value.value
    if isinstance(value, dict):
        return {unmangle(key): plain(item) for key, item in value.items()}
    if isinstance(value, list | range):
        return [plain(item) for item in value]
    return value


# --- the methods a template may call -----------------------------------------------------------


def _text(value: Any) -> str:
    if value is None:
        return ""
    return str(value)


def _as_int(value: Any) -> int:
    try:
        return int(plain(value))
    except (TypeError, ValueError):
        return 0


def _as_double(value: Any) -> float:
    try:
        return float(plain(value))
    except (TypeError, ValueError):
        return 0.0


def _as_boolean(value: Any) -> JBool:
    if isinstance(value, str):
        return JBool(value.strip().lower() == "true")
    return JBool(bool(value))


_COMMON: dict[str, Callable[..., Any]] = {
    "asText": _text,
    "textValue": _text,
    "toString": _text,
    "asInt": _as_int,
    "intValue": _as_int,
    "asLong": _as_int,
    "longValue": _as_int,
    "asDouble": _as_double,
    "doubleValue": _as_double,
    "asBoolean": _as_boolean,
    "booleanValue": _as_boolean,
    "isNull": lambda self: JBool(False),
    "equals": lambda self, other: JBool(plain(self) == plain(other)),
}

_STRING: dict[str, Callable[..., Any]] = {
    "length": len,
    "size": len,
    "isEmpty": lambda s: JBool(not s),
    "toUpperCase": str.upper,
    "toLowerCase": str.lower,
    "trim": str.strip,
    "substring": lambda s, start, end=None: s[start:end],
    "startsWith": lambda s, prefix: JBool(s.startswith(prefix)),
    "endsWith": lambda s, suffix: JBool(s.endswith(suffix)),
    "contains": lambda s, part: JBool(str(part) in s),
    "indexOf": lambda s, part: s.find(str(part)),
    "replace": lambda s, old, new: s.replace(str(old), str(new)),
    "split": lambda s, separator: JList(s.split(str(separator))),
    "charAt": lambda s, index: s[index],
    "equalsIgnoreCase": lambda s, other: JBool(s.lower() == str(other).lower()),
}

_LIST: dict[str, Callable[..., Any]] = {
    "size": len,
    "isEmpty": lambda items: JBool(not items),
    "get": lambda items, index: items[index] if -len(items) <= index < len(items) else None,
    "contains": lambda items, value: JBool(value in items),
}

_MAP: dict[str, Callable[..., Any]] = {
    "size": len,
    "isEmpty": lambda items: JBool(not items),
    "get": lambda items, key: items.get(mangle(str(key))),
    "has": lambda items, key: JBool(mangle(str(key)) in items),
    "containsKey": lambda items, key: JBool(mangle(str(key)) in items),
    "keySet": lambda items: JList(unmangle(key) for key in items),
}


class _Utils:
    """``StringUtils`` / ``BooleanUtils`` of commons-lang3, the parts CBA templates use."""

    def __init__(self, methods: dict[str, Callable[..., Any]]) -> None:
        self.methods = methods


def _blank(value: Any) -> bool:
    return value is None or not str(value).strip()


STRING_UTILS = _Utils(
    {
        "upperCase": lambda value: None if value is None else str(value).upper(),
        "lowerCase": lambda value: None if value is None else str(value).lower(),
        "capitalize": lambda value: None if value is None else str(value)[:1].upper() + str(value)[1:],
        "isBlank": lambda value: JBool(_blank(value)),
        "isNotBlank": lambda value: JBool(not _blank(value)),
        "isEmpty": lambda value: JBool(value is None or str(value) == ""),
        "isNotEmpty": lambda value: JBool(value is not None and str(value) != ""),
        "trim": lambda value: None if value is None else str(value).strip(),
        "join": lambda items, separator="": str(separator).join(_text(item) for item in items or []),
        "replace": lambda text, old, new: None if text is None else str(text).replace(str(old), str(new)),
        "substringBefore": lambda text, separator: str(text).partition(str(separator))[0],
        "substringAfter": lambda text, separator: str(text).partition(str(separator))[2],
        "defaultString": lambda value, default="": default if value is None else value,
        "equals": lambda a, b: JBool(plain(a) == plain(b)),
    }
)
BOOLEAN_UTILS = _Utils(
    {
        "isTrue": lambda value: JBool(bool(_as_boolean(value))),
        "isFalse": lambda value: JBool(not _as_boolean(value)),
        "toBoolean": _as_boolean,
        "negate": lambda value: JBool(not _as_boolean(value)),
    }
)


def _methods_of(value: Any) -> Mapping[str, Callable[..., Any]]:
    if isinstance(value, _Utils):
        return value.methods
    if isinstance(value, str):
        return {**_COMMON, **_STRING}
    if isinstance(value, dict):
        return {**_COMMON, **_MAP}
    if isinstance(value, list | range):
        return {**_COMMON, **_LIST}
    if isinstance(value, int | float | JBool):
        return _COMMON
    return {}


# --- the fence around airspeed -----------------------------------------------------------------


class _Budget(threading.local):
    iterations = 0


_BUDGET = _Budget()


class _SafeNameOrCall(airspeed.NameOrCall):  # type: ignore[misc]
    """Item lookup on dicts, or a listed method; never ``getattr`` on a Python object."""

    def calculate(self, current_object: Any, loader: Any, top_namespace: Any) -> Any:
        result: Any = None
        if isinstance(current_object, dict):
            result = current_object.get(self.name)
            if result is None and isinstance(current_object, airspeed.LocalNamespace):
                try:
                    result = current_object[self.name]
                except KeyError:
                    result = None
        if result is None and self.parameters is not None:
            method = _methods_of(current_object).get(self.name)
            if method is not None:
                arguments = self.parameters.calculate(top_namespace, loader)
                if isinstance(current_object, _Utils):
                    return method(*arguments)
                return method(current_object, *arguments)
            return None
        if result is None:
            return None
        if isinstance(result, airspeed._FunctionDefinition):
            params = self.parameters.calculate(top_namespace, loader) if self.parameters else []
            stream = airspeed.StoppableStream()
            result.execute_function(stream, top_namespace, params, loader)
            return stream.getvalue()
        if self.parameters is not None:
            return None  # a value is not a function: nothing is called
        if self.index is not None:
            index = self.index.calculate(top_namespace, loader)
            try:
                return result[index]
            except (KeyError, IndexError, TypeError):
                return None
        return result


class _BoundedRange(airspeed.Range):  # type: ignore[misc]
    def calculate(self, namespace: Any, loader: Any) -> range:
        numbers: range = super().calculate(namespace, loader)
        if len(numbers) > MAX_RANGE:
            raise ValueError(f"a range of more than {MAX_RANGE} numbers")
        return numbers


class _CountedForeach(airspeed.ForeachDirective):  # type: ignore[misc]
    def evaluate_raw(self, stream: Any, namespace: Any, loader: Any) -> None:
        iterable = self.value.calculate(namespace, loader)
        if iterable is not None and hasattr(iterable, "__len__"):
            _BUDGET.iterations += len(iterable)
            if _BUDGET.iterations > MAX_ITERATIONS:
                raise ValueError(f"more than {MAX_ITERATIONS} loop iterations")
        super().evaluate_raw(stream, namespace, loader)


def _bounded_multiply(a: Any, b: Any) -> Any:
    if isinstance(a, str | list) or isinstance(b, str | list):
        count = b if isinstance(a, str | list) else a
        part = a if isinstance(a, str | list) else b
        if isinstance(count, int) and len(part) * count > MAX_OUTPUT:
            raise ValueError("a repetition larger than the output bound")
    return a * b


class _BoundedStream(airspeed.StoppableStream):  # type: ignore[misc]
    def __init__(self) -> None:
        super().__init__()
        self.size = 0

    def write(self, s: str) -> int:
        self.size += len(s)
        if self.size > MAX_OUTPUT:
            raise ValueError(f"output larger than {MAX_OUTPUT} characters")
        return super().write(s) or 0


def _fence(element: Any) -> None:
    """Swap the lookups, ranges and loops of a parsed template for the fenced ones."""
    nodes = _swap(element)
    for node in nodes:  # airspeed binds some ``calculate`` methods at parse time: bind them anew
        bound = vars(node).get("calculate")
        if bound is not None:
            node.calculate = _current(bound)


def _current(bound: Any) -> Any:
    target = bound.__self__
    own = vars(target).get("calculate")
    return _current(own) if own is not None else type(target).calculate.__get__(target)


def _swap(element: Any) -> list[Any]:
    seen: set[int] = set()
    nodes = []
    stack = [element]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        nodes.append(node)
        if isinstance(node, _REFUSED):
            directive = node.my_text().split("(")[0].strip()
            raise TemplateFailed(f"line {_line_of(node)}: {directive} is not supported")
        if type(node) is airspeed.NameOrCall:
            node.__class__ = _SafeNameOrCall
        elif type(node) is airspeed.Range:
            node.__class__ = _BoundedRange
        elif type(node) is airspeed.ForeachDirective:
            node.__class__ = _CountedForeach
        elif type(node) is airspeed.BinaryOperator and node.apply_to is airspeed.operator.mul:
            node.apply_to = _bounded_multiply
        for value in vars(node).values():
            if isinstance(value, airspeed._Element):
                stack.append(value)
            elif isinstance(value, list):
                stack.extend(item for item in value if isinstance(item, airspeed._Element))
    return nodes


def _line_of(element: Any) -> int:
    return int(element.full_text()[: element.start].count("\n")) + 1


class VelocityTemplate:
    """A parsed, fenced template: parse once, render many times (each render its own budget)."""

    def __init__(self, text: str, name: str) -> None:
        self.name = name
        mangled = _REFERENCE.sub(
            lambda m: m.group(1) + mangle(m.group(2)), _DIRECTIVE_LINE.sub("\\1#*\\n*#", text)
        )
        template = airspeed.Template(mangled, name)
        try:
            template.ensure_compiled()
        except airspeed.TemplateSyntaxError as error:
            raise TemplateFailed(f"{name}: {unmangle(str(error))}") from None
        except RecursionError:
            raise TemplateFailed(f"{name}: nested too deeply") from None
        _fence(template.root_element)
        self.template = template

    def render(self, data: Mapping[str, Any], occurrence: int) -> str:
        namespace: dict[str, Any] = {mangle(key): java_value(value) for key, value in data.items()}
        namespace.update(StringUtils=STRING_UTILS, BooleanUtils=BOOLEAN_UTILS, occurrence=occurrence)
        stream = _BoundedStream()
        _BUDGET.iterations = 0
        try:
            self.template.merge_to(namespace, stream)
        except airspeed.TemplateExecutionError as error:
            line = _line_of(error.element)
            cause = error.__cause__
            if isinstance(cause, MemoryError):  # the renderer's limit (render_pool.py) says why
                raise MemoryError(f"{self.name} line {line}") from None
            raise TemplateFailed(
                f"{self.name} line {line}: {type(cause).__name__}: {unmangle(str(cause))}"
            ) from None
        except RecursionError:
            raise TemplateFailed(f"{self.name}: macros nested too deeply") from None
        return unmangle(stream.getvalue())
