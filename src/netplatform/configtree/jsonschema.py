"""JSON Schemas of RFC 7951 instance data, generated from the YANG schema.

Each container and each list entry becomes one named schema (``$ref`` able), leaves are
described inline by their YANG type: enumerations list their values, strings carry their
length bounds and patterns (XSD patterns as yangson translates them, anchored at both ends),
unions become ``anyOf``. Member names are the ones responses use (unqualified below the top);
a body may also qualify them, which the service accepts but the document does not spell out.
"""

from __future__ import annotations

import json
import re
from typing import Any

from yangson.datatype import (
    BooleanType,
    DataType,
    EmptyType,
    EnumerationType,
    Int64Type,
    IntegralType,
    StringType,
    Uint64Type,
    UnionType,
)

from .schema import ContainerNode, DataNode, InternalNode, LeafListNode, LeafNode, ListNode, key_names

JsonSchema = dict[str, Any]

_PYTHON_END_ANCHOR = re.compile(r"\$\(\?!\\n\\Z\)$")
_END_OF_INPUT = "(?![\\s\\S])"
"""End of input in both Python and ECMA regexes (Python's ``$`` also matches before a newline)."""


class SchemaCatalog:
    """Named schemas of containers and list entries, collected as they are referenced."""

    def __init__(self, ref_prefix: str = "#/components/schemas/") -> None:
        self.ref_prefix = ref_prefix
        self.schemas: dict[str, JsonSchema] = {}

    def node(self, node: DataNode) -> JsonSchema:
        """The schema of a node's value as it appears inside its parent's object."""
        if isinstance(node, ListNode):
            # Entries need distinct keys, which JSON Schema cannot say; distinct items it can.
            keys = ", ".join(key_names(node))
            return {
                "type": "array",
                "items": self.entry(node),
                "uniqueItems": True,
                "description": f"Entries of list {node.name}; no two have the same key ({keys})",
            }
        if isinstance(node, ContainerNode):
            return self._named(node, lambda: self._object(node, required=[]))
        if isinstance(node, LeafListNode):
            return {"type": "array", "items": type_schema(node.type)}
        if isinstance(node, LeafNode):
            schema = _described(type_schema(node.type), node)
            # Patterns are long (Unicode classes spelled out): define such a leaf once, refer to it.
            return self._named(node, lambda: schema) if "pattern" in json.dumps(schema) else schema
        return {}

    def define(self, name: str, schema: JsonSchema) -> JsonSchema:
        """Name a schema; the reference to it."""
        self.schemas[name] = schema
        return {"$ref": self.ref_prefix + name}

    def entry(self, node: ListNode) -> JsonSchema:
        """The schema of one entry of a list."""
        return self._named(node, lambda: self._object(node, required=key_names(node)))

    def _named(self, node: DataNode, build: Any) -> JsonSchema:
        name = component_name(node)
        if name not in self.schemas:
            self.schemas[name] = {}  # placeholder: a recursive model must not loop
            self.schemas[name] = build()
        return {"$ref": self.ref_prefix + name}

    def _object(self, node: InternalNode, required: list[str]) -> JsonSchema:
        schema: JsonSchema = {
            "type": "object",
            "properties": {child.iname(): self.node(child) for child in _config_children(node)},
            "additionalProperties": False,
        }
        if required:
            schema["required"] = required
        return _described(schema, node)


def component_name(node: DataNode) -> str:
    """``GENERIC-RESOURCE-API_brg-allotted-resources.brg-allotted-resource``: its data path, made a name."""
    path: str = node.data_path()
    return path.lstrip("/").replace("/", ".").replace(":", "_")


def type_schema(datatype: DataType[Any, Any]) -> JsonSchema:
    """The JSON Schema of a leaf value of a YANG type, as RFC 7951 encodes it."""
    if isinstance(datatype, EnumerationType):
        return {"type": "string", "enum": list(datatype.enum)}
    if isinstance(datatype, UnionType):
        return {"anyOf": [type_schema(member) for member in datatype.types]}
    if isinstance(datatype, StringType):
        return _string_schema(datatype)
    if isinstance(datatype, BooleanType):
        return {"type": "boolean"}
    if isinstance(datatype, EmptyType):
        return {"type": "array", "items": {"type": "null"}, "minItems": 1, "maxItems": 1}
    if isinstance(datatype, IntegralType) and not isinstance(datatype, Int64Type | Uint64Type):
        return {"type": "integer"}
    return {"type": "string"}  # 64-bit integers, decimal64, bits, binary, identityref...: strings in RFC 7951


def _string_schema(datatype: StringType) -> JsonSchema:
    schema: JsonSchema = {"type": "string"}
    if datatype.length is not None and len(datatype.length.intervals) == 1:
        low, *high = datatype.length.intervals[0]
        if low:
            schema["minLength"] = low
        schema["maxLength"] = high[0] if high else low
    patterns = [
        {"not": {"pattern": _anchored(p.regex.pattern)}}
        if p.invert_match
        else {"pattern": _anchored(p.regex.pattern)}
        for p in datatype.patterns
    ]
    if len(patterns) == 1 and "pattern" in patterns[0]:
        schema.update(patterns[0])
    elif patterns:
        schema["allOf"] = patterns
    return schema


def _anchored(python_regex: str) -> str:
    return _PYTHON_END_ANCHOR.sub(lambda _match: _END_OF_INPUT, python_regex)


def _described(schema: JsonSchema, node: DataNode) -> JsonSchema:
    if node.description:
        schema["description"] = " ".join(node.description.split())
    return schema


def _config_children(node: InternalNode) -> list[DataNode]:
    return [child for child in node.data_children() if child.config]
