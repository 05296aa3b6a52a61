"""Velocity templates: airspeed's parser, and an interpreter of our own (velocity_nodes.py).

airspeed evaluates a template by looking names up as items, then as Python attributes of
whatever it holds, and calling what it finds; a fence around parts of its evaluation leaves the
others (literals, conditions, arguments) with that lookup. So airspeed only parses here: its
parse tree is read once, node kind by node kind, into our own immutable tree, and that tree is
what renders, over JSON values and the allow-listed methods of velocity_values.py. A node kind
not known here is refused when the template is parsed, as are ``#evaluate``, ``#include`` and
``#parse`` (text that would be parsed at render time).

What real CBAs use is supported (reference execution.md 5.2): hyphenated names
(``${stream-count}``, ``$tacplus-server.tacplus-server-name``) by a rewrite before parsing, Java
printing of booleans, lists and maps, ``asInt()`` and friends, ``StringUtils``/``BooleanUtils``,
``#foreach`` with ``$foreach``, ``#macro``, ``#define``, ranges.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import airspeed

from . import velocity_nodes as nodes
from .velocity_nodes import MACRO_CALL_COST, MAX_OPERATIONS, State, Stopped
from .velocity_values import (
    BOOLEAN_UTILS,
    MAX_STRING,
    STRING_UTILS,
    Refused,
    java_value,
    jbool,
    mangle,
    unmangle,
)

MAX_ITERATIONS = MAX_OPERATIONS  # the Jinja fence counts its loops and macro calls alike
MAX_OUTPUT = MAX_STRING
__all__ = ["MACRO_CALL_COST", "MAX_ITERATIONS", "MAX_OUTPUT", "TemplateFailed", "VelocityTemplate"]

_SEG = r"[A-Za-z_][A-Za-z0-9_]*(?:-[A-Za-z0-9_]+)*"
_REFERENCE = re.compile(rf"(\$!?\{{?|#foreach\s*\(\s*\$|#set\s*\(\s*\$)({_SEG}(?:\.{_SEG})*)")
# A line holding nothing but a directive prints nothing, as in Velocity (airspeed keeps its
# indentation and line break).
_DIRECTIVE_LINE = re.compile(r"^[ \t]*(#(?:foreach|if|elseif)\s*\(.*\)|#else|#end)[ \t]*\r?\n", re.MULTILINE)
_REFUSED = (airspeed.EvaluateDirective, airspeed.IncludeDirective, airspeed.ParseDirective)
# Java's precedence, tightest first; operators of one level associate to the left.
_PRECEDENCE = {
    **dict.fromkeys(("*", "/", "%"), 3),
    **dict.fromkeys(("+", "-"), 4),
    **dict.fromkeys(("<", ">", "<=", ">=", "lt", "gt", "le", "ge"), 6),
    **dict.fromkeys(("==", "!=", "eq", "ne"), 7),
    **dict.fromkeys(("&&", "and"), 11),
    **dict.fromkeys(("||", "or"), 12),
}


class TemplateFailed(Exception):
    """A template that does not parse or render: the message names the line and the reason."""


class VelocityTemplate:
    """A parsed template: parse once, render many times (each render its own :class:`State`)."""

    def __init__(self, text: str, name: str) -> None:
        self.name = name
        source = _REFERENCE.sub(
            lambda m: m.group(1) + mangle(m.group(2)), _DIRECTIVE_LINE.sub("\\1#*\\n*#", text)
        )
        try:
            parsed = airspeed.Template(source, name)
            parsed.ensure_compiled()
            tree = _Compiler(name)
            self.body = tree.block(parsed.root_element.block, 1)
        except airspeed.TemplateSyntaxError as error:
            raise TemplateFailed(f"{name}: {unmangle(str(error))}") from None
        except RecursionError:
            raise TemplateFailed(f"{name}: nested too deeply") from None
        self.macros: Mapping[str, nodes.Macro] = MappingProxyType(tree.macros)

    def render(self, data: Mapping[str, Any], occurrence: int) -> str:
        values: dict[str, Any] = {mangle(key): java_value(value) for key, value in data.items()}
        values.update(StringUtils=STRING_UTILS, BooleanUtils=BOOLEAN_UTILS, occurrence=occurrence)
        state = State(self.macros, values)
        try:
            self.body.render(state)
        except Stopped:
            pass
        except Refused as refused:
            raise TemplateFailed(f"{self.name} line {state.line}: {unmangle(str(refused))}") from None
        except RecursionError:
            raise TemplateFailed(f"{self.name} line {state.line}: nested too deeply") from None
        except MemoryError:  # the renderer's limit (render_pool.py) says why
            raise MemoryError(f"{self.name} line {state.line}") from None
        except Exception as error:  # what a template can get wrong at render time
            reason = f"{type(error).__name__}: {unmangle(str(error))}"
            raise TemplateFailed(f"{self.name} line {state.line}: {reason}") from None
        return "".join(state.out)


class _Compiler:
    """airspeed's parse tree read into velocity_nodes' tree, node kind by node kind."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.macros: dict[str, nodes.Macro] = {}
        self._newlines: dict[str, list[int]] = {}

    def line(self, element: Any, base: int) -> int:
        """The template line of ``element`` (``base``: the line its text starts on)."""
        text: str = element.full_text()
        found = self._newlines.get(text)
        if found is None:
            found = self._newlines[text] = [n for n, char in enumerate(text) if char == "\n"]
        return base + bisect.bisect_left(found, element.start)

    def refuse(self, element: Any, base: int, what: str) -> TemplateFailed:
        return TemplateFailed(f"{self.name} line {self.line(element, base)}: {what}")

    # --- statements ---

    def block(self, block: Any, base: int) -> nodes.Block:
        children: list[nodes.Statement] = []
        for element in block.children:
            statement = self.statement(element, base)
            if statement is None:
                continue
            if isinstance(statement, nodes.Text) and children and isinstance(children[-1], nodes.Text):
                children[-1] = nodes.Text(children[-1].text + statement.text)
            else:
                children.append(statement)
        return nodes.Block(tuple(children))

    def statement(self, element: Any, base: int) -> nodes.Statement | None:
        kind = type(element)
        if kind in (airspeed.Text, airspeed.FallthroughHashText):
            return nodes.Text(unmangle(element.text))
        if kind is airspeed.Comment:
            return None
        if kind is airspeed.FormalReference:
            return self.printed(element, base)
        if kind is airspeed.IfDirective:
            return self.if_(element, base)
        if kind is airspeed.SetDirective:
            expression = self.expression(element.value, base)
            return nodes.Set(self.line(element, base), tuple(element.terms), expression)
        if kind is airspeed.ForeachDirective:
            items = self.expression(element.value, base)
            body = self.block(element.block, base)
            return nodes.Foreach(self.line(element, base), element.loop_var_name, items, body)
        if kind is airspeed.MacroDefinition:
            self.macro(element, base)
            return None
        if kind is airspeed.MacroCall:
            arguments = tuple(self.expression(argument, base) for argument in element.args)
            literal = unmangle(element.my_text())
            return nodes.MacroCall(self.line(element, base), element.macro_name, arguments, literal)
        if kind is airspeed.DefineDefinition:
            return nodes.Define(element.function_name, self.block(element.block, base))
        if kind is airspeed.StopDirective:
            return nodes.Stop()
        if isinstance(element, _REFUSED):
            directive = element.my_text().split("(")[0].strip()
            raise self.refuse(element, base, f"{directive} is not supported")
        raise self.refuse(element, base, f"{kind.__name__} is not supported")

    def printed(self, element: Any, base: int) -> nodes.Statement:
        if element.expression is None:
            return nodes.Text(unmangle(element.my_text()))
        reference = self.reference(element, base)
        alternate = None if element.alternate is None else self.expression(element.alternate, base)
        return nodes.Print(reference.line, reference, bool(element.silent), alternate)

    def if_(self, element: Any, base: int) -> nodes.If:
        branches = [(self.line(element, base), self.expression(element.condition, base), element.block)]
        branches += [
            (self.line(elseif, base), self.expression(elseif.condition, base), elseif.block)
            for elseif in element.elseifs
        ]
        otherwise = None
        if isinstance(element.else_block, airspeed.ElseBlock):
            otherwise = self.block(element.else_block.block, base)
        compiled = tuple((line, condition, self.block(block, base)) for line, condition, block in branches)
        return nodes.If(compiled, otherwise)

    def macro(self, element: Any, base: int) -> None:
        name = element.function_name.lower()
        if name in self.macros:
            raise self.refuse(element, base, f"macro {name} is defined twice")
        body = self.block(element.block, base)
        self.macros[name] = nodes.Macro(name, tuple(element.arg_names), body)

    # --- expressions ---

    def expression(self, element: Any, base: int) -> nodes.Expression:
        kind = type(element)
        if kind in (airspeed.Value, airspeed.AlternateValue):
            return self.expression(element.expression, base)
        if kind is airspeed.ArrayIndex:
            return self.expression(element.index, base)
        if kind in (airspeed.ParenthesizedExpression, airspeed.Condition):
            return self.expression(_bound_to(element, airspeed.Expression), base)
        if kind is airspeed.Expression:
            return self.operators(element, base)
        if kind is airspeed.FormalReference:
            return self.value_reference(element, base)
        if kind in (airspeed.IntegerLiteral, airspeed.FloatingPointLiteral):
            return nodes.Constant(element.value)
        if kind is airspeed.BooleanLiteral:
            return nodes.Constant(jbool(element.value))
        if kind is airspeed.NullLiteral:
            return nodes.Constant(None)
        if kind is airspeed.StringLiteral:
            return nodes.Constant(unmangle(element.value))
        if kind is airspeed.InterpolatedStringLiteral:
            return self.interpolated(element, base)
        if kind is airspeed.ArrayLiteral:
            return self.array(element.values, base)
        if kind is airspeed.Range:
            return nodes.Range(self.expression(element.value1, base), self.expression(element.value2, base))
        if kind is airspeed.DictionaryLiteral:
            pairs = tuple(
                (self.expression(key, base), self.expression(value, base))
                for key, value in element.local_data.items()
            )
            return nodes.MapLiteral(pairs)
        if kind is airspeed.UnaryOperatorValue:
            return nodes.Not(self.expression(element.value, base))
        raise self.refuse(element, base, f"{kind.__name__} is not supported")

    def interpolated(self, element: Any, base: int) -> nodes.Expression:
        body = self.block(element.block, self.line(element, base))
        if all(isinstance(child, nodes.Text) for child in body.children):
            return nodes.Constant("".join(child.text for child in body.children))  # type: ignore[attr-defined]
        return nodes.Interpolated(body)

    def array(self, values: Any, base: int) -> nodes.Expression:
        if type(values) is airspeed.Range:
            return self.expression(values, base)
        items = getattr(values, "values", [])
        return nodes.ListLiteral(tuple(self.expression(item, base) for item in items))

    def operators(self, element: Any, base: int) -> nodes.Expression:
        """``a op b op c ...`` (airspeed's flat list) as a tree by Java's precedence."""
        terms = element.expression
        operands = [self.expression(terms[0], base)]
        pending: list[str] = []

        def reduce() -> None:
            right, left = operands.pop(), operands.pop()
            operands.append(nodes.Binary(pending.pop(), left, right))

        for operator_element, term in zip(terms[1::2], terms[2::2], strict=True):
            operator = operator_element.my_text().strip()
            if operator not in _PRECEDENCE:
                raise self.refuse(operator_element, base, f"operator {operator} is not supported")
            while pending and _PRECEDENCE[pending[-1]] <= _PRECEDENCE[operator]:
                reduce()
            pending.append(operator)
            operands.append(self.expression(term, base))
        while pending:
            reduce()
        return operands[0]

    # --- references ---

    def value_reference(self, element: Any, base: int) -> nodes.Expression:
        if element.expression is None:
            return nodes.Constant(None)
        reference = self.reference(element, base)
        if element.alternate is None:
            return reference
        return nodes.Alternate(reference, self.expression(element.alternate, base))

    def reference(self, element: Any, base: int) -> nodes.Reference:
        variable = element.expression
        head = variable.part
        steps: list[nodes.Step] = []
        if head.index is not None:
            steps.append(nodes.Index(self.expression(head.index, base)))
        sub = variable.subexpression
        while sub is not None:
            if type(sub.expression) is airspeed.VariableExpression:
                part = sub.expression.part
                if part.parameters is not None:
                    steps.append(nodes.Call(part.name, self.arguments(part.parameters, base)))
                else:
                    steps.append(nodes.Name(part.name))
                if part.index is not None:
                    steps.append(nodes.Index(self.expression(part.index, base)))
                sub = sub.expression.subexpression
            else:
                steps.append(nodes.Index(self.expression(sub.expression, base)))
                sub = getattr(sub, "subexpression", None)
        line = self.line(element, base)
        literal = unmangle(element.my_text())
        return nodes.Reference(line, head.name, head.parameters is not None, tuple(steps), literal)

    def arguments(self, parameters: Any, base: int) -> tuple[nodes.Expression, ...]:
        values = getattr(parameters.values, "values", [])
        return tuple(self.expression(value, base) for value in values)


def _bound_to(element: Any, kind: type) -> Any:
    """airspeed keeps a parenthesised expression (and a condition) only as the bound ``calculate``
    of the expression inside: that expression."""
    inner = getattr(element.calculate, "__self__", None)
    if type(inner) is not kind:
        raise TemplateFailed(f"unexpected parse of {element.my_text()[:40]!r}")
    return inner
