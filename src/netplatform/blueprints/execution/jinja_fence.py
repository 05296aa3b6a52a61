"""The bounds around Jinja's sandbox: what a CBA's template may make the process compute or hold.

Jinja's ``ImmutableSandboxedEnvironment`` stops a template from reaching Python objects and bounds
``range()``, but not what a template can compute with what it may use: nested loops
(``range(100000)`` twice runs 10^10 iterations), repetition (``'x' * 10**9``), powers, padding and
format widths (``'%300000000d' % 1``, ``'x'|center(10**9)``), ``replace`` of every character by a
long string. A step's timeout cannot stop a running thread and a failed allocation can take the
process, so each of these is bounded before it runs, with the limits Velocity templates have:
loop iterations and macro calls together (a macro calling itself twice is counted too, each call
as :data:`~.velocity.MACRO_CALL_COST` iterations), counted where the template cannot reach the
count (:data:`RENDER_TICKS`).
"""

from __future__ import annotations

import re
import string
import types
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from typing import Any

from jinja2 import Environment, filters, nodes
from jinja2.ext import Extension
from jinja2.lexer import Token, TokenStream
from jinja2.parser import Parser
from jinja2.runtime import Context
from jinja2.sandbox import ImmutableSandboxedEnvironment

from .velocity import MACRO_CALL_COST, MAX_ITERATIONS, MAX_OUTPUT

TICK_TAG = "netplatform_tick"
MACRO_TICK_TAG = "netplatform_macro_tick"
MAX_POWER_BITS = 4096
MAX_WIDTH = 10_000  # the widest a format field, padding or indentation may be
_PERCENT_SPEC = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?")
_PADDING = frozenset({"center", "ljust", "rjust", "zfill"})
_COUNTED = {"for": TICK_TAG, "macro": MACRO_TICK_TAG, "call": MACRO_TICK_TAG}  # tick of each body


class Exceeded(Exception):
    """A bound of the fence was reached while rendering."""


class Ticks:
    """One render's count of loop iterations, and of macro calls at :data:`MACRO_CALL_COST` each."""

    def __init__(self) -> None:
        self.count = 0

    def tick(self, cost: int) -> None:
        self.count += cost
        if self.count > MAX_ITERATIONS:
            raise Exceeded(
                f"more than {MAX_ITERATIONS} loop iterations (a macro call counts {MACRO_CALL_COST})"
            )


# The render's count lives here, not among the template's variables: a template cannot read,
# shadow or replace what it is counted by. JinjaTemplate.render sets it around each render.
RENDER_TICKS: ContextVar[Ticks | None] = ContextVar("netplatform_jinja_ticks", default=None)


class LoopTicks(Extension):
    """Every ``{% for %}`` body starts with ``{% netplatform_tick %}``, every macro body and
    ``{% call %}`` body with ``{% netplatform_macro_tick %}``; each compiles to a direct call of a
    filter (:func:`_tick`, :func:`_macro_tick`): no name a template can assign, nor the sandbox's
    checks of a call on every tick. A template that uses them itself only counts more."""

    tags = {TICK_TAG, MACRO_TICK_TAG}

    def __init__(self, environment: Environment) -> None:
        super().__init__(environment)
        environment.filters.update({TICK_TAG: _tick, MACRO_TICK_TAG: _macro_tick})

    def filter_stream(self, stream: TokenStream) -> Iterator[Token]:
        tick, previous = "", ""
        for token in stream:
            yield token
            if token.type == "name" and token.value in _COUNTED and previous == "block_begin":
                tick = _COUNTED[token.value]
            elif token.type == "block_end" and tick:
                yield from _tick_tag(token.lineno, tick)
                tick = ""
            previous = token.type

    def parse(self, parser: Parser) -> nodes.Node:
        tag = next(parser.stream)
        tick = nodes.Filter(nodes.Const(None), tag.value, [], [], None, None, lineno=tag.lineno)
        return nodes.ExprStmt(tick, lineno=tag.lineno)


def _ticks() -> Ticks:
    ticks = RENDER_TICKS.get()
    if ticks is None:
        raise Exceeded("a template rendered outside of a counted render")
    return ticks


def _tick(_: object) -> None:
    _ticks().tick(1)


def _macro_tick(_: object) -> None:
    _ticks().tick(MACRO_CALL_COST)


def _tick_tag(line: int, tag: str) -> Iterator[Token]:
    """``{% <tag> %}`` as tokens."""
    for kind, value in (("block_begin", "{%"), ("name", tag), ("block_end", "%}")):
        yield Token(line, kind, value)


class FencedEnvironment(ImmutableSandboxedEnvironment):
    """The sandbox with repetition, powers, formatting, padding and replacement bounded."""

    intercepted_binops = frozenset({"*", "**", "%"})

    def __init__(self, **options: Any) -> None:
        super().__init__(extensions=[LoopTicks], **options)
        self.filters.update(center=_center, indent=_indent, replace=_replace_filter, format=_format_filter)

    def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
        if operator == "*":
            _check_repetition(left, right)
        elif operator == "**" and _power_bits(left, right) > MAX_POWER_BITS:
            raise Exceeded(f"a power larger than {MAX_POWER_BITS} bits")
        elif operator == "%" and isinstance(left, str):
            _check_percent(left, right)
        return super().call_binop(context, operator, left, right)

    def call(self, context: Context, obj: Any, /, *args: Any, **kwargs: Any) -> Any:
        if isinstance(obj, types.BuiltinMethodType) and isinstance(obj.__self__, str):
            _check_size(_string_method_size(obj.__name__, obj.__self__, args))
        return super().call(context, obj, *args, **kwargs)

    def wrap_str_format(self, value: Any) -> Any:
        wrapped = super().wrap_str_format(value)
        if wrapped is None:
            return None
        text: str = value.__self__

        def bounded(*args: Any, **kwargs: Any) -> str:
            named = args[0] if value.__name__ == "format_map" and args else kwargs
            _check_braces(text, [*args, *dict(named).values()])
            result: str = wrapped(*args, **kwargs)
            return result

        return bounded


def _check_size(size: int) -> None:
    if size > MAX_OUTPUT:
        raise Exceeded(f"a result larger than {MAX_OUTPUT} characters")


def _check_repetition(left: Any, right: Any) -> None:
    for part, count in ((left, right), (right, left)):
        if isinstance(part, str | list | tuple) and isinstance(count, int) and len(part) * count > MAX_OUTPUT:
            raise Exceeded("a repetition larger than the output bound")


def _power_bits(base: Any, exponent: Any) -> int:
    """About how many bits ``base ** exponent`` takes (0 when it cannot grow without bound)."""
    if not (isinstance(base, int) and isinstance(exponent, int)) or abs(base) <= 1:
        return 0
    return exponent * abs(base).bit_length()


def _check_widths(numbers: Iterable[Any]) -> None:
    for number in numbers:
        if isinstance(number, int) and number > MAX_WIDTH:
            raise Exceeded(f"a width or precision above {MAX_WIDTH}")


def _check_percent(text: str, values: Any) -> None:
    """``text % values``: no field wider than :data:`MAX_WIDTH`, nor a ``*`` width taken from one."""
    specs = [group for match in _PERCENT_SPEC.finditer(text) for group in match.groups() if group]
    _check_widths(int(spec) for spec in specs if spec != "*")
    if "*" in specs:
        _check_widths(values if isinstance(values, tuple) else (values,))


def _check_braces(text: str, arguments: list[Any]) -> None:
    """``text.format(...)``: the same for ``{:>N}`` fields, and nested ``{:{}}`` widths."""
    for _literal, _field, spec, _conversion in string.Formatter().parse(text):
        if spec:
            _check_widths(int(number) for number in re.findall(r"\d+", spec))
            if "{" in spec:
                _check_widths(arguments)


def _string_method_size(name: str, text: str, args: tuple[Any, ...]) -> int:
    """An upper bound of what ``text.<name>(*args)`` makes, for the methods that can grow it."""
    if name in _PADDING and args and isinstance(args[0], int):
        return args[0]
    if name == "expandtabs":
        return len(text) * (args[0] if args and isinstance(args[0], int) else 8)
    if name == "replace" and len(args) >= 2:
        return _replaced_size(text, str(args[0]), str(args[1]))
    return 0


def _replaced_size(text: str, old: str, new: str) -> int:
    return len(text) + text.count(old) * max(0, len(new) - len(old))


def _center(value: Any, width: int = 80) -> str:
    _check_widths([width])
    return filters.do_center(value, width)


def _indent(value: Any, width: int | str = 4, first: bool = False, blank: bool = False) -> str:
    _check_widths([width if isinstance(width, int) else len(width)])
    return filters.do_indent(value, width, first, blank)


def _replace_filter(context: Any, value: Any, old: Any, new: Any, count: int | None = None) -> Any:
    _check_size(_replaced_size(str(value), str(old), str(new)))
    return filters.do_replace(context, value, old, new, count)


_replace_filter.jinja_pass_arg = filters.do_replace.jinja_pass_arg  # type: ignore[attr-defined]


def _format_filter(value: Any, *args: Any, **kwargs: Any) -> str:
    _check_percent(str(value), tuple(args) if args else kwargs)
    return filters.do_format(value, *args, **kwargs)
