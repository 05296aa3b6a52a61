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
same count runs when a CBA is saved over what the CBA alone decides
(:func:`~netplatform.blueprints.catalog.expansion.expansion_problems`), so a breadth bomb is
refused before it is ever stored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..catalog.expansion import MAX_DEPTH, SELF, ExpansionLimits, scalar_bytes
from .loaded import LoadedBlueprint

_REFUSED = ("get_artifact", "get_operation_output", "get_nodes_of_type")


class ExpressionFailed(Exception):
    pass


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
        if depth > MAX_DEPTH:
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
