"""Rendering a resolution's template: Velocity (our interpreter) or Jinja (sandboxed), by artifact type.

Both engines see the resolved data only as plain JSON values (dicts, lists, strings, numbers,
booleans) plus ``occurrence``; neither can read a file outside the CBA or call Python. They run
in renderer processes (render_pool.py), which keep the parsed templates.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import Any

import jinja2

from .jinja_fence import RENDER_TICKS, Exceeded, FencedEnvironment, Ticks
from .velocity import MAX_OUTPUT, TemplateFailed, VelocityTemplate

VELOCITY = "artifact-template-velocity"
JINJA = "artifact-template-jinja"


class _KeptUndefined(jinja2.Undefined):
    """An unresolved ``{{ name }}`` stays in the output as written (the reference's Jinjava)."""

    def __str__(self) -> str:
        return "{{ %s }}" % self._undefined_name  # noqa: UP031 - the braces are the point


class JinjaTemplate:
    def __init__(self, text: str, name: str, files: Mapping[str, str]) -> None:
        self.name = name
        environment = FencedEnvironment(
            undefined=_KeptUndefined,
            autoescape=False,
            keep_trailing_newline=True,
            loader=jinja2.FunctionLoader(_files_loader(files)),
        )
        try:
            self.template = environment.from_string(text)
        except jinja2.TemplateSyntaxError as error:
            raise TemplateFailed(f"{name} line {error.lineno}: {error.message}") from None

    def render(self, data: Mapping[str, Any], occurrence: int) -> str:
        parts: list[str] = []
        size = 0
        counted = RENDER_TICKS.set(Ticks())
        try:
            for part in self.template.generate({**data, "occurrence": occurrence}):
                size += len(part)
                if size > MAX_OUTPUT:
                    raise TemplateFailed(f"{self.name}: output larger than {MAX_OUTPUT} characters")
                parts.append(part)
        except TemplateFailed:
            raise
        except Exceeded as error:
            raise TemplateFailed(f"{self._where(error)}: {error}") from None
        except jinja2.TemplateSyntaxError as error:  # an included template
            raise TemplateFailed(f"{error.name or self.name} line {error.lineno}: {error.message}") from None
        except MemoryError as error:  # the renderer's limit (render_pool.py) says why
            raise MemoryError(self._where(error)) from None
        except Exception as error:  # what a template can get wrong at render time
            raise TemplateFailed(f"{self._where(error)}: {type(error).__name__}: {error}") from None
        finally:
            RENDER_TICKS.reset(counted)
        return "".join(parts)

    def _where(self, error: BaseException) -> str:
        line = _template_line(error)
        return f"{self.name} line {line}" if line else self.name


def _files_loader(files: Mapping[str, str]) -> Callable[[str], str | None]:
    """``{% include %}`` reads from the CBA only, by the name's path from the archive root."""

    def load(name: str) -> str | None:
        return files.get(name.lstrip("/"))

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


def parse_template(artifact_type: str, text: str, name: str, files: Mapping[str, str]) -> Template:
    """The parsed template; ``files`` are the CBA's texts a Jinja ``{% include %}`` may read."""
    if artifact_type == VELOCITY:
        return VelocityTemplate(text, name)
    if artifact_type == JINJA:
        return JinjaTemplate(text, name, files)
    raise TemplateFailed(f"{name}: Unknown Artifact type({artifact_type}), expecting {JINJA} or {VELOCITY}")
