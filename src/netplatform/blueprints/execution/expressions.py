"""TOSCA expressions in operation inputs and workflow outputs (reference execution.md 2.3).

``{"get_input": name}``, ``{"get_property": [node|SELF, prop, ...]}``,
``{"get_attribute": [node|SELF, attr, ...]}`` and ``"*name"`` (a ``dsl_definitions`` entry);
further list items index into the value found. Other expressions (``get_artifact``,
``get_operation_output``, ``get_nodes_of_type``) are refused with a clear message.

Expansion is bounded in depth (32) and in size (:class:`ExpansionLimits`): a ``dsl_definitions``
entry naming another four times, sixteen levels deep, asks for 4^16 values. What an operation's
inputs (or a workflow's outputs) expand to is counted as it is built, values and bytes, and the
expansion stops with :class:`ExpressionFailed` the moment it passes a bound, so its memory never
grows past it. A value an expression refers to (an input, an attribute) is not copied but is
written out wherever it appears (the answer, the audit): it counts for its bytes each time. The
same count runs when a CBA is saved over what the CBA alone decides (:func:`expansion_problems`),
so a breadth bomb is refused before it is ever stored.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..tosca import NodeTemplate, ServiceTemplate
from .loaded import LoadedBlueprint

SELF = "SELF"
_REFUSED = ("get_artifact", "get_operation_output", "get_nodes_of_type")
_MAX_DEPTH = 32
_SCALAR_BYTES = 8


class ExpressionFailed(Exception):
    pass


@dataclass(frozen=True)
class ExpansionLimits:
    """How many values, and bytes of JSON, one expansion may make (operator settings)."""

    values: int = 100_000
    bytes: int = 16 * 1024 * 1024


class _Budget:
    """What one expansion may still make; ExpressionFailed once it would pass either bound."""

    def __init__(self, limits: ExpansionLimits) -> None:
        self.limits = limits
        self.values = 0
        self.bytes = 0

    def spend(self, values: int, size: int) -> None:
        self.values += values
        self.bytes += size
        if self.values > self.limits.values:
            raise ExpressionFailed(f"expressions expand to more than {self.limits.values} values")
        if self.bytes > self.limits.bytes:
            raise ExpressionFailed(f"expressions expand to more than {self.limits.bytes} bytes")

    def spend_reference(self, value: Any) -> None:
        """A value referred to, not copied: one value, and its bytes (walked until the bound)."""
        self.spend(1, 0)
        pending = [value]
        while pending:
            item = pending.pop()
            if isinstance(item, dict):
                self.spend(0, 2 + sum(len(str(key)) + 4 for key in item))
                pending.extend(item.values())
            elif isinstance(item, list):
                self.spend(0, 2 + len(item))
                pending.extend(item)
            else:
                self.spend(0, scalar_bytes(item))


def scalar_bytes(value: Any) -> int:
    return len(value) + 2 if isinstance(value, str) else _SCALAR_BYTES


@dataclass
class Scope:
    """What expressions of one workflow run can see; ``attributes`` grow as steps run."""

    blueprint: LoadedBlueprint
    inputs: dict[str, Any]
    request_block: dict[str, Any]
    attributes: dict[str, dict[str, Any]] = field(default_factory=dict)
    limits: ExpansionLimits = field(default_factory=ExpansionLimits)

    def input(self, name: str) -> Any:
        if name in self.inputs:
            return self.inputs[name]
        return self.request_block.get(name)

    def resolve(self, value: Any, node: str) -> Any:
        """``value`` with every expression in it replaced by what it names (``node`` is SELF)."""
        return self._resolve(value, node, 0, _Budget(self.limits))

    def resolve_each(self, values: Mapping[str, Any], node: str) -> dict[str, Any]:
        """Each of ``values`` resolved, all of them within one expansion's bounds."""
        budget = _Budget(self.limits)
        return {key: self._resolve(value, node, 0, budget) for key, value in values.items()}

    def _resolve(self, value: Any, node: str, depth: int, budget: _Budget) -> Any:
        if depth > _MAX_DEPTH:
            raise ExpressionFailed("expressions nested too deeply")
        if isinstance(value, str) and value.startswith("*"):
            name = value[1:]
            if name not in self.blueprint.dsl_definitions:
                raise ExpressionFailed(f"dsl_definitions has no entry ({name})")
            return self._resolve(self.blueprint.dsl_definitions[name], node, depth + 1, budget)
        budget.spend(1, scalar_bytes(value) if not isinstance(value, dict | list) else 2)
        if isinstance(value, list):
            return [self._resolve(item, node, depth + 1, budget) for item in value]
        if not isinstance(value, dict):
            return value
        if len(value) == 1:
            ((key, argument),) = value.items()
            if key == "get_input":
                found = self.input(str(argument))
                budget.spend_reference(found)
                return found
            if key in ("get_property", "get_attribute"):
                return self._lookup(key, argument, node, depth, budget)
            if key in _REFUSED:
                raise ExpressionFailed(f"{key} is not supported")
        resolved = {}
        for key, item in value.items():
            budget.spend(0, len(str(key)) + 4)
            resolved[key] = self._resolve(item, node, depth + 1, budget)
        return resolved

    def _lookup(self, kind: str, argument: Any, node: str, depth: int, budget: _Budget) -> Any:
        if not isinstance(argument, list) or len(argument) < 2:
            raise ExpressionFailed(f"{kind} takes [node, name, ...], not {argument!r}")
        target = node if argument[0] == SELF else str(argument[0])
        name = str(argument[1])
        if kind == "get_attribute":
            found = self.attributes.get(target, {}).get(name)
        else:
            template = self.blueprint.node_templates.get(target)
            if template is None:
                raise ExpressionFailed(f"get_property names no node template ({target})")
            found = self._resolve((template.properties or {}).get(name), target, depth + 1, budget)
        for key in argument[2:]:
            found = _index(found, key)
        if kind == "get_attribute":
            budget.spend_reference(found)
        return found


def _index(value: Any, key: Any) -> Any:
    if isinstance(value, dict):
        return value.get(str(key))
    if isinstance(value, list) and isinstance(key, int) and -len(value) <= key < len(value):
        return value[key]
    return None


# --- at save: what the CBA alone makes its expressions expand to ------------------------------


def expansion_problems(template: ServiceTemplate, limits: ExpansionLimits) -> list[str]:
    """Where the CBA's expressions would expand past ``limits`` (before any value is built):
    every ``dsl_definitions`` entry, node template inputs and properties, node type input
    defaults and workflow outputs. Inputs and attributes count as one value each here (their
    size is known only at run, where the bound is enforced again)."""
    measure = _Measure(template)
    problems = []
    for where, value, node in _expression_sites(template):
        values, size = measure.size(value, node, 0)
        if values > limits.values:
            problems.append(f"{where}: expressions expand to more than {limits.values} values")
        elif size > limits.bytes:
            problems.append(f"{where}: expressions expand to more than {limits.bytes} bytes")
    return problems


def _expression_sites(template: ServiceTemplate) -> Iterator[tuple[str, Any, str | None]]:
    """(where, value, SELF's node) of every place a run resolves expressions."""
    for name, value in (template.dsl_definitions or {}).items():
        yield f"dsl_definitions/{name}", value, None
    topology = template.topology_template
    nodes = (topology.node_templates or {}) if topology else {}
    for node_name, node in nodes.items():
        yield from _node_template_sites(node_name, node)
    for type_name, node_type in (template.node_types or {}).items():
        for interface_name, interface in (node_type.interfaces or {}).items():
            for operation_name, operation in (interface.operations or {}).items():
                defaults = {key: prop.default for key, prop in (operation.inputs or {}).items()}
                where = f"node_types/{type_name}/interfaces/{interface_name}/operations/{operation_name}"
                yield where, defaults, None
    for workflow_name, workflow in ((topology.workflows or {}) if topology else {}).items():
        outputs = {key: prop.value for key, prop in (workflow.outputs or {}).items()}
        yield f"workflows/{workflow_name}/outputs", outputs, None


def _node_template_sites(name: str, node: NodeTemplate) -> Iterator[tuple[str, Any, str | None]]:
    yield f"node_templates/{name}/properties", node.properties or {}, name
    for interface_name, interface in (node.interfaces or {}).items():
        for operation_name, operation in (interface.operations or {}).items():
            where = f"node_templates/{name}/interfaces/{interface_name}/operations/{operation_name}/inputs"
            yield where, operation.inputs or {}, name


class _Measure:
    """The number of values and bytes an expression expands to, computed without expanding it:
    what a ``dsl_definitions`` entry or a node template property expands to is computed once per
    depth (the depth bound of a run applies here too: past it, a run fails instead)."""

    def __init__(self, template: ServiceTemplate) -> None:
        self.dsl = template.dsl_definitions or {}
        topology = template.topology_template
        self.nodes = (topology.node_templates or {}) if topology else {}
        self.known: dict[tuple[str, str, str, int], tuple[int, int]] = {}

    def size(self, value: Any, node: str | None, depth: int) -> tuple[int, int]:
        if depth > _MAX_DEPTH:
            return 1, 0  # a run fails here, expanding nothing more
        if isinstance(value, str) and value.startswith("*"):
            if value[1:] not in self.dsl:
                return 1, 0
            return self._remembered(("*", value[1:], "", depth + 1), self.dsl[value[1:]], None)
        if isinstance(value, list):
            return _sum((1, 2), (self.size(item, node, depth + 1) for item in value))
        if not isinstance(value, dict):
            return 1, scalar_bytes(value)
        if len(value) == 1:
            ((key, argument),) = value.items()
            if key in ("get_input", "get_attribute"):
                return 1, 0
            if key == "get_property":
                return self._property(argument, node, depth)
        members = ((1, len(str(key)) + 4) for key in value)
        return _sum((1, 2), [*members, *(self.size(item, node, depth + 1) for item in value.values())])

    def _property(self, argument: Any, node: str | None, depth: int) -> tuple[int, int]:
        if not isinstance(argument, list) or len(argument) < 2:
            return 1, 0
        target = node if argument[0] == SELF else str(argument[0])
        template = self.nodes.get(target or "")
        if template is None or target is None:
            return 1, 0
        found = (template.properties or {}).get(str(argument[1]))
        return self._remembered((target, str(argument[1]), "p", depth + 1), found, target)

    def _remembered(self, key: tuple[str, str, str, int], value: Any, node: str | None) -> tuple[int, int]:
        """Each key once; keys carry the depth, which only grows, so no computation waits on
        itself (an entry naming itself is counted down to the depth bound)."""
        found = self.known.get(key)
        if found is None:
            found = self.known[key] = self.size(value, node, key[3])
        return found


def _sum(first: tuple[int, int], parts: Any) -> tuple[int, int]:
    values, size = first
    for more_values, more_size in parts:
        values += more_values
        size += more_size
    return values, size
