"""Rendering a resolution's template: Velocity (airspeed, fenced) or Jinja (sandboxed), by artifact type.

Both engines see the resolved data only as plain JSON values (dicts, lists, strings, numbers,
booleans) plus ``occurrence``; neither can read a file outside the CBA or call Python. Parsed
templates are kept per archive (a CBA's templates never change under the same stored model).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import jinja2
from jinja2.ext import Extension
from jinja2.lexer import Token, TokenStream
from jinja2.runtime import Context
from jinja2.sandbox import ImmutableSandboxedEnvironment

from ..archive import Archive
from .velocity import MAX_ITERATIONS, MAX_OUTPUT, TemplateFailed, VelocityTemplate

VELOCITY = "artifact-template-velocity"
JINJA = "artifact-template-jinja"


class _KeptUndefined(jinja2.Undefined):
    """An unresolved ``{{ name }}`` stays in the output as written (the reference's Jinjava)."""

    def __str__(self) -> str:
        return "{{ %s }}" % self._undefined_name  # noqa: UP031 - the braces are the point


TICK = "_netplatform_loop_tick"
MAX_POWER_BITS = 4096


class _LoopTicks(Extension):
    """Every ``{% for %}`` body starts with a call of the render's tick, which counts iterations.

    Jinja's sandbox bounds ``range`` but not nesting: two nested loops over ``range(100000)``
    that print nothing run 10^10 iterations, and a step's timeout cannot stop a thread. Counted,
    a render stops after :data:`MAX_ITERATIONS`, the bound Velocity templates have too.
    """

    def filter_stream(self, stream: TokenStream) -> Iterator[Token]:
        in_for, previous = False, ""
        for token in stream:
            yield token
            if token.type == "name" and token.value == "for" and previous == "block_begin":
                in_for = True
            elif token.type == "block_end" and in_for:
                in_for = False
                yield from _tick_call(token.lineno)
            previous = token.type


def _tick_call(line: int) -> Iterator[Token]:
    """``{% if _netplatform_loop_tick() %}{% endif %}`` as tokens: a call that prints nothing."""
    for kind, value in (
        ("block_begin", "{%"),
        ("name", "if"),
        ("name", TICK),
        ("lparen", "("),
        ("rparen", ")"),
        ("block_end", "%}"),
        ("block_begin", "{%"),
        ("name", "endif"),
        ("block_end", "%}"),
    ):
        yield Token(line, kind, value)


class _Exceeded(Exception):
    """A bound of the fence was reached while rendering."""


class _Ticks:
    """One render's iteration count (each render gets its own)."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self) -> bool:
        self.count += 1
        if self.count > MAX_ITERATIONS:
            raise _Exceeded(f"more than {MAX_ITERATIONS} loop iterations")
        return False


class _FencedEnvironment(ImmutableSandboxedEnvironment):
    """The sandbox, with the arithmetic that could take the process's memory or CPU bounded."""

    intercepted_binops = frozenset({"*", "**"})

    def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
        if operator == "*":
            return _bounded_repeat(left, right)
        if _power_bits(left, right) > MAX_POWER_BITS:
            raise _Exceeded(f"a power larger than {MAX_POWER_BITS} bits")
        return super().call_binop(context, operator, left, right)


def _power_bits(base: Any, exponent: Any) -> int:
    """About how many bits ``base ** exponent`` takes (0 when it cannot grow without bound)."""
    if not (isinstance(base, int) and isinstance(exponent, int)) or abs(base) <= 1:
        return 0
    return exponent * abs(base).bit_length()


def _bounded_repeat(left: Any, right: Any) -> Any:
    for part, count in ((left, right), (right, left)):
        if isinstance(part, str | list | tuple) and isinstance(count, int) and len(part) * count > MAX_OUTPUT:
            raise _Exceeded("a repetition larger than the output bound")
    return left * right


class JinjaTemplate:
    def __init__(self, text: str, name: str, archive: Archive) -> None:
        self.name = name
        environment = _FencedEnvironment(
            extensions=[_LoopTicks],
            undefined=_KeptUndefined,
            autoescape=False,
            keep_trailing_newline=True,
            loader=jinja2.FunctionLoader(_archive_loader(archive)),
        )
        try:
            self.template = environment.from_string(text)
        except jinja2.TemplateSyntaxError as error:
            raise TemplateFailed(f"{name} line {error.lineno}: {error.message}") from None

    def render(self, data: Mapping[str, Any], occurrence: int) -> str:
        parts: list[str] = []
        size = 0
        try:
            for part in self.template.generate({**data, "occurrence": occurrence, TICK: _Ticks()}):
                size += len(part)
                if size > MAX_OUTPUT:
                    raise TemplateFailed(f"{self.name}: output larger than {MAX_OUTPUT} characters")
                parts.append(part)
        except TemplateFailed:
            raise
        except _Exceeded as error:
            raise TemplateFailed(f"{self._where(error)}: {error}") from None
        except jinja2.TemplateSyntaxError as error:  # an included template
            raise TemplateFailed(f"{error.name or self.name} line {error.lineno}: {error.message}") from None
        except Exception as error:  # what a template can get wrong at render time
            raise TemplateFailed(f"{self._where(error)}: {type(error).__name__}: {error}") from None
        return "".join(parts)

    def _where(self, error: BaseException) -> str:
        line = _template_line(error)
        return f"{self.name} line {line}" if line else self.name


def _archive_loader(archive: Archive) -> Callable[[str], str | None]:
    """``{% include %}`` reads from the CBA only, by the name's path from the archive root."""

    def load(name: str) -> str | None:
        path = name.lstrip("/")
        return archive.read_text(path) if archive.has(path) else None

    return load


def _template_line(error: BaseException) -> int | None:
    """The line of the template the error happened on (jinja2 rewrites its traceback so)."""
    line = None
    trace = error.__traceback__ or sys.exc_info()[2]
    while trace is not None:
        if trace.tb_frame.f_code.co_filename in ("<template>",):
            line = trace.tb_lineno
        trace = trace.tb_next
    return line


Template = VelocityTemplate | JinjaTemplate


def parse_template(artifact_type: str, text: str, name: str, archive: Archive) -> Template:
    if artifact_type == VELOCITY:
        return VelocityTemplate(text, name)
    if artifact_type == JINJA:
        return JinjaTemplate(text, name, archive)
    raise TemplateFailed(f"{name}: Unknown Artifact type({artifact_type}), expecting {JINJA} or {VELOCITY}")
