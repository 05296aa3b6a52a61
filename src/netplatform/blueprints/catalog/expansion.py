"""What a CBA's expressions may expand to, decided from the CBA alone when it is saved.

A ``dsl_definitions`` entry naming another four times, sixteen levels deep, asks for 4^16 values:
:func:`expansion_problems` counts what every place a run resolves expressions would expand to,
values and bytes, without building them, and names those past the operator's
:class:`ExpansionLimits`. The execution (execution/expressions.py) expands under the same
bounds and depth, counting as it builds.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .tosca import NodeTemplate, ServiceTemplate

SELF = "SELF"
MAX_DEPTH = 32
"""How deeply expressions may nest, at save and at run."""
SCALAR_BYTES = 8


@dataclass(frozen=True)
class ExpansionLimits:
    """How many values, and bytes of JSON, one expansion may make (operator settings)."""

    values: int = 100_000
    bytes: int = 16 * 1024 * 1024


def scalar_bytes(value: Any) -> int:
    return len(value) + 2 if isinstance(value, str) else SCALAR_BYTES


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
        if depth > MAX_DEPTH:
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
