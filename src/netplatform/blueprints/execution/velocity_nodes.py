"""The Velocity interpreter: a template's tree (built by velocity.py from airspeed's parse) and
its evaluation, node by node, over the values of velocity_values.py only.

Every name a template reads goes through :meth:`State.lookup` (the template's own variables and
the data), every ``.name`` through :func:`_property` (a map's item, or a listed getter), every
``.name(...)`` through :func:`_call` (a listed method): the same allow-list in every context, a
reference printed, a condition, a ``#set``, an argument, a literal. Nothing is looked up as a
Python attribute. The tree is immutable and shared by every render of the template; all that a
render changes lives in its :class:`State` and dies with it.

Each render is bounded: :data:`MAX_OPERATIONS` counts loop iterations, and macro calls as
:data:`MACRO_CALL_COST` each (a call costs about as much as that many iterations; a macro
calling itself twice cannot escape), :data:`MAX_EXPANSION` the characters built,
:data:`~.velocity_values.MAX_STRING` any one string and the output, :data:`MAX_RANGE` a range,
:data:`MAX_DEPTH` nested macro calls.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .velocity_values import (
    MAX_STRING,
    JBool,
    LoopScope,
    Refused,
    Utils,
    add,
    arithmetic,
    compare,
    equal,
    java_text,
    jbool,
    kind,
    mangle,
    methods_of,
    put_member,
    sandboxed,
    truthy,
)

MAX_OPERATIONS = 1_000_000
MACRO_CALL_COST = 10
MAX_EXPANSION = 16 * MAX_STRING
MAX_RANGE = 100_000
MAX_DEPTH = 20  # nested macro calls (Velocity's own velocimacro.max_depth)


class Stopped(Exception):
    """``#stop``: the render ends here, with what it printed so far."""


@dataclass(frozen=True, slots=True)
class Defined:
    """What ``#define($name)`` holds: a block rendered where ``$name`` is read."""

    body: Block


class State:
    """One render: its variables, output, counters and the line it is at."""

    def __init__(self, macros: Mapping[str, Macro], data: dict[str, Any]) -> None:
        self.macros = macros
        self.globals = data
        self.frames: list[dict[str, Any]] = []  # loop and macro frames, innermost last
        self.out: list[str] = []
        self.size = 0
        self.capturing = False  # writing a string (an interpolated literal), not the output
        self.operations = 0
        self.expansion = 0
        self.depth = 0
        self.line = 1

    def lookup(self, name: str) -> Any:
        for frame in reversed(self.frames):
            if name in frame:
                return frame[name]
        return self.globals.get(name)

    def assign(self, name: str, value: Any) -> None:
        """The innermost loop or macro frame that holds ``name``, else the template's variables."""
        for frame in reversed(self.frames):
            if name in frame:
                frame[name] = value
                return
        self.globals[name] = value

    def write(self, text: str) -> None:
        self.size += len(text)
        if self.size > MAX_STRING:
            made = "a string longer" if self.capturing else "output larger"
            raise Refused(f"{made} than {MAX_STRING} characters")
        self.out.append(text)

    def count(self, operations: int = 1) -> None:
        self.operations += operations
        if self.operations > MAX_OPERATIONS:
            raise Refused(
                f"more than {MAX_OPERATIONS} loop iterations (a macro call counts {MACRO_CALL_COST})"
            )

    def built(self, text: str) -> str:
        """A string the template made: counted against the render's expansion bound."""
        self.expansion += len(text)
        if self.expansion > MAX_EXPANSION:
            raise Refused(f"more than {MAX_EXPANSION} characters built")
        return text

    def captured(self, block: Block) -> str:
        """What ``block`` prints, as a string (an interpolated literal, a ``#define``)."""
        out, size, capturing = self.out, self.size, self.capturing
        self.out, self.size, self.capturing = [], 0, True
        try:
            block.render(self)
            return self.built("".join(self.out))
        finally:
            self.out, self.size, self.capturing = out, size, capturing

    def nested(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise Refused(f"macros nested more than {MAX_DEPTH} deep")


# --- statements --------------------------------------------------------------------------------


class Statement:
    __slots__ = ()

    def render(self, state: State) -> None:
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class Block(Statement):
    children: tuple[Statement, ...]

    def render(self, state: State) -> None:
        for child in self.children:
            child.render(state)


@dataclass(frozen=True, slots=True)
class Text(Statement):
    text: str

    def render(self, state: State) -> None:
        state.write(self.text)


@dataclass(frozen=True, slots=True)
class Print(Statement):
    """``$ref``, ``$!ref``, ``${ref|alternate}``: an unresolved reference prints as written."""

    line: int
    reference: Reference
    silent: bool
    alternate: Expression | None

    def render(self, state: State) -> None:
        state.line = self.line
        value = self.reference.value(state)
        if value is None and self.alternate is not None:
            value = self.alternate.value(state)
        if value is None:
            state.write("" if self.silent else self.reference.literal)
        else:
            state.write(java_text(value))


@dataclass(frozen=True, slots=True)
class If(Statement):
    branches: tuple[tuple[int, Expression, Block], ...]  # #if, then each #elseif
    otherwise: Block | None

    def render(self, state: State) -> None:
        for line, condition, block in self.branches:
            state.line = line
            if truthy(condition.value(state)):
                block.render(state)
                return
        if self.otherwise is not None:
            self.otherwise.render(state)


@dataclass(frozen=True, slots=True)
class Set(Statement):
    line: int
    names: tuple[str, ...]
    expression: Expression

    def render(self, state: State) -> None:
        state.line = self.line
        value = self.expression.value(state)
        if len(self.names) == 1:
            state.assign(self.names[0], value)
            return
        target = state.lookup(self.names[0])
        for name in self.names[1:-1]:
            target = target.get(name) if isinstance(target, dict) else None
        if not isinstance(target, dict):
            path = ".".join(self.names[:-1])
            raise Refused(f"#set(${path}.{self.names[-1]}): ${path} is not a map")
        put_member(target, self.names[-1], value)


@dataclass(frozen=True, slots=True)
class Foreach(Statement):
    line: int
    name: str
    items: Expression
    body: Block

    def render(self, state: State) -> None:
        state.line = self.line
        items = _iterable(self.items.value(state))
        length = len(items)
        for index, item in enumerate(items):
            state.count()
            scope = LoopScope(
                count=index + 1,
                index=index,
                hasNext=jbool(index + 1 < length),
                first=jbool(index == 0),
                last=jbool(index + 1 == length),
            )
            frame = {
                self.name: item,
                "foreach": scope,
                "velocityCount": index + 1,
                "velocityHasNext": scope["hasNext"],
            }
            state.frames.append(frame)
            try:
                self.body.render(state)
            finally:
                state.frames.pop()


def _iterable(value: Any) -> tuple[Any, ...] | range:
    """What ``#foreach`` walks: a list's items, a map's values (as Jackson and Java iterate them),
    taken before the first iteration (the body may change the list); nothing for anything else
    (Velocity skips what is not iterable)."""
    if isinstance(value, range):
        return value
    if isinstance(value, list):
        return tuple(value)
    if isinstance(value, dict):
        return tuple(value.values())
    return ()


@dataclass(frozen=True, slots=True)
class Macro:
    name: str
    parameters: tuple[str, ...]
    body: Block


@dataclass(frozen=True, slots=True)
class MacroCall(Statement):
    line: int
    name: str
    arguments: tuple[Expression, ...]
    literal: str

    def render(self, state: State) -> None:
        state.line = self.line
        macro = state.macros.get(self.name)
        if macro is None:  # Velocity prints an unknown macro's call as written
            state.write(self.literal)
            return
        values = [argument.value(state) for argument in self.arguments]
        values += [None] * (len(macro.parameters) - len(values))
        state.count(MACRO_CALL_COST)
        state.nested()
        state.frames.append(dict(zip(macro.parameters, values, strict=False)))
        try:
            macro.body.render(state)
        finally:
            state.frames.pop()
            state.depth -= 1


@dataclass(frozen=True, slots=True)
class Define(Statement):
    name: str
    body: Block

    def render(self, state: State) -> None:
        state.assign(self.name, Defined(self.body))


@dataclass(frozen=True, slots=True)
class Stop(Statement):
    def render(self, state: State) -> None:
        raise Stopped


# --- expressions -------------------------------------------------------------------------------


class Expression:
    __slots__ = ()

    def value(self, state: State) -> Any:
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class Constant(Expression):
    """A literal number, string, boolean or null (never a container: those are made anew)."""

    constant: str | int | float | JBool | None

    def value(self, state: State) -> Any:
        return self.constant


@dataclass(frozen=True, slots=True)
class Interpolated(Expression):
    body: Block

    def value(self, state: State) -> Any:
        return state.captured(self.body)


@dataclass(frozen=True, slots=True)
class ListLiteral(Expression):
    items: tuple[Expression, ...]

    def value(self, state: State) -> Any:
        return [item.value(state) for item in self.items]


@dataclass(frozen=True, slots=True)
class MapLiteral(Expression):
    pairs: tuple[tuple[Expression, Expression], ...]

    def value(self, state: State) -> Any:
        made: dict[Any, Any] = {}
        for key, value in self.pairs:
            put_member(made, key.value(state), value.value(state))
        return made


@dataclass(frozen=True, slots=True)
class Range(Expression):
    start: Expression
    end: Expression

    def value(self, state: State) -> Any:
        first, last = _bound(self.start.value(state)), _bound(self.end.value(state))
        if abs(last - first) >= MAX_RANGE:
            raise Refused(f"a range of more than {MAX_RANGE} numbers")
        return range(first, last + 1) if first <= last else range(first, last - 1, -1)


def _bound(value: Any) -> int:
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit() and len(value) < 20:
        return int(value)
    raise Refused(f"a range's bound is a number, not {kind(value)} {java_text(value)!r}"[:200])


@dataclass(frozen=True, slots=True)
class Not(Expression):
    operand: Expression

    def value(self, state: State) -> Any:
        return jbool(not truthy(self.operand.value(state)))


@dataclass(frozen=True, slots=True)
class Binary(Expression):
    operator: str
    left: Expression
    right: Expression

    def value(self, state: State) -> Any:
        operator = self.operator
        left = self.left.value(state)
        if operator in ("&&", "and"):
            return jbool(truthy(left) and truthy(self.right.value(state)))
        if operator in ("||", "or"):
            return jbool(truthy(left) or truthy(self.right.value(state)))
        right = self.right.value(state)
        if operator in ("==", "eq"):
            return jbool(equal(left, right))
        if operator in ("!=", "ne"):
            return jbool(not equal(left, right))
        if operator == "+":
            result = add(left, right)
            return state.built(result) if isinstance(result, str) else result
        if operator in ("-", "*", "/", "%"):
            return arithmetic(operator, left, right)
        return jbool(compare(operator, left, right))


@dataclass(frozen=True, slots=True)
class Alternate(Expression):
    """``${ref|alternate}`` used as a value."""

    reference: Reference
    alternate: Expression

    def value(self, state: State) -> Any:
        found = self.reference.value(state)
        return self.alternate.value(state) if found is None else found


# --- references --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Name:
    """``.name``: a map's item, else a listed getter (``getName()``/``isName()``)."""

    name: str


@dataclass(frozen=True, slots=True)
class Call:
    """``.name(arguments)``: a listed method of the value's kind."""

    name: str
    arguments: tuple[Expression, ...]


@dataclass(frozen=True, slots=True)
class Index:
    """``[key]``: a list's item by number, a map's by key."""

    key: Expression


Step = Name | Call | Index


@dataclass(frozen=True, slots=True)
class Reference(Expression):
    """``$head.step.step...``: the head a variable, each step from the allow-list."""

    line: int
    head: str
    head_call: bool  # ``$name(...)``: only a #define'd block answers it
    steps: tuple[Step, ...]
    literal: str  # the reference as written, printed when it does not resolve

    def value(self, state: State) -> Any:
        state.line = self.line
        value = state.lookup(self.head)
        if isinstance(value, Defined):
            value = _defined(value, state)
        elif self.head_call:
            return None
        for step in self.steps:
            if value is None:
                return None
            if isinstance(step, Name):
                value = _property(value, step.name)
            elif isinstance(step, Call):
                value = _call(value, step.name, [argument.value(state) for argument in step.arguments], state)
            else:
                value = _item(value, step.key.value(state))
        return value


def _defined(value: Defined, state: State) -> str:
    state.count(MACRO_CALL_COST)
    state.nested()
    try:
        return state.captured(value.body)
    finally:
        state.depth -= 1


def _property(value: Any, name: str) -> Any:
    if isinstance(value, dict):
        return value.get(name)
    methods = methods_of(value)
    capital = name[:1].upper() + name[1:]
    getter = methods.get("get" + capital) or methods.get("is" + capital)
    return None if getter is None else sandboxed(getter(value))


def _call(value: Any, name: str, arguments: list[Any], state: State) -> Any:
    method: Callable[..., Any] | None
    if isinstance(value, Utils):
        method, bound = value.methods.get(name), arguments
    else:
        method, bound = methods_of(value).get(name), [value, *arguments]
    if method is None:
        return None
    try:
        result = sandboxed(method(*bound))
    except Refused:
        raise
    except (TypeError, ValueError, IndexError, KeyError, AttributeError) as error:
        raise Refused(f"{name}() of a {kind(value)} failed: {error}") from None
    return state.built(result) if isinstance(result, str) and result is not value else result


def _item(value: Any, key: Any) -> Any:
    if isinstance(value, list | range):
        if isinstance(key, int) and 0 <= key < len(value):
            return value[key]
        return None
    if isinstance(value, dict):
        try:
            return value.get(mangle(key) if isinstance(key, str) else key)
        except TypeError:  # an unhashable key (a list) is in no map
            return None
    return None
