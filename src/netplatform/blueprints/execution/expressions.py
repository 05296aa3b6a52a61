"""TOSCA expressions in operation inputs and workflow outputs (reference execution.md 2.3).

``{"get_input": name}``, ``{"get_property": [node|SELF, prop, ...]}``,
``{"get_attribute": [node|SELF, attr, ...]}`` and ``"*name"`` (a ``dsl_definitions`` entry);
further list items index into the value found. Other expressions (``get_artifact``,
``get_operation_output``, ``get_nodes_of_type``) are refused with a clear message.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .loaded import LoadedBlueprint

SELF = "SELF"
_REFUSED = ("get_artifact", "get_operation_output", "get_nodes_of_type")
_MAX_DEPTH = 32


class ExpressionFailed(Exception):
    pass


@dataclass
class Scope:
    """What expressions of one workflow run can see; ``attributes`` grow as steps run."""

    blueprint: LoadedBlueprint
    inputs: dict[str, Any]
    request_block: dict[str, Any]
    attributes: dict[str, dict[str, Any]] = field(default_factory=dict)

    def input(self, name: str) -> Any:
        if name in self.inputs:
            return self.inputs[name]
        return self.request_block.get(name)

    def resolve(self, value: Any, node: str, depth: int = 0) -> Any:
        """``value`` with every expression in it replaced by what it names (``node`` is SELF)."""
        if depth > _MAX_DEPTH:
            raise ExpressionFailed("expressions nested too deeply")
        if isinstance(value, str) and value.startswith("*"):
            name = value[1:]
            if name not in self.blueprint.dsl_definitions:
                raise ExpressionFailed(f"dsl_definitions has no entry ({name})")
            return self.resolve(self.blueprint.dsl_definitions[name], node, depth + 1)
        if isinstance(value, list):
            return [self.resolve(item, node, depth + 1) for item in value]
        if not isinstance(value, dict):
            return value
        if len(value) == 1:
            ((key, argument),) = value.items()
            if key == "get_input":
                return self.input(str(argument))
            if key in ("get_property", "get_attribute"):
                return self._lookup(key, argument, node, depth)
            if key in _REFUSED:
                raise ExpressionFailed(f"{key} is not supported")
        return {key: self.resolve(item, node, depth + 1) for key, item in value.items()}

    def _lookup(self, kind: str, argument: Any, node: str, depth: int) -> Any:
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
            found = self.resolve((template.properties or {}).get(name), target, depth + 1)
        for key in argument[2:]:
            found = _index(found, key)
        return found


def _index(value: Any, key: Any) -> Any:
    if isinstance(value, dict):
        return value.get(str(key))
    if isinstance(value, list) and isinstance(key, int) and -len(value) <= key < len(value):
        return value[key]
    return None
