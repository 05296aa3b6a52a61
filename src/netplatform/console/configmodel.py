"""The config tree's model as its /openapi.json describes it: nodes, their leaves, form fields.

The console never imports the config tree's code: the service publishes one path per
container, list entry and key-less list, with JSON Schemas generated from the YANG model
(docs/configtree.md, "OpenAPI"). That document is enough to know which URI segments name
which node, which members are leaves (their types, enumerations, lengths, mandatory keys)
and which are child containers or lists, so pages and forms follow the model without any
Python per node.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

PREFIX = "/config/"
Json = dict[str, Any]


@dataclass(frozen=True)
class Leaf:
    """One leaf of a node, as a form field: type, enumeration, length bound, mandatory."""

    name: str
    kind: str  # string, enum, integer, boolean or union (several types: a text field)
    enum: tuple[str, ...] = ()
    max_length: int | None = None
    required: bool = False
    description: str = ""


@dataclass
class NodeDef:
    """A container, a list entry or a key-less list, by its URI template (segments after /config/)."""

    template: tuple[str, ...]
    kind: str  # container, entry or list
    qualified: str  # the URI segment naming the node, GENERIC-RESOURCE-API:param
    schema: Json  # the node's object schema (a list's: its entries')
    keys: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.qualified.partition(":")[2] or self.qualified


class ConfigModel:
    """Every node of the tree, from the service's OpenAPI document."""

    def __init__(self, document: Json) -> None:
        self.schemas: Json = (document.get("components") or {}).get("schemas") or {}
        self.nodes: list[NodeDef] = []
        for path, item in (document.get("paths") or {}).items():
            if path.startswith(PREFIX) and path != PREFIX:
                self.nodes.append(self._node(tuple(path[len(PREFIX) :].strip("/").split("/")), item))

    def _node(self, template: tuple[str, ...], item: Json) -> NodeDef:
        if "get" not in item:  # a key-less list takes POST only
            return NodeDef(template, "list", template[-1], {})
        content = item["get"]["responses"]["200"]["content"]
        wrapper = next(iter(content.values()))["schema"]
        member = next(iter(wrapper["properties"].values()))
        entry = "items" in member
        schema = self.resolve(member["items"] if entry else member)
        qualified = template[-2] if entry else template[-1]
        keys = list(schema.get("required") or []) if entry else []
        return NodeDef(template, "entry" if entry else "container", qualified, schema, keys)

    def resolve(self, schema: Json) -> Json:
        while "$ref" in schema:
            schema = self.schemas.get(schema["$ref"].rsplit("/", 1)[-1], {})
        return schema

    def roots(self) -> list[NodeDef]:
        return [node for node in self.nodes if len(node.template) == 1]

    def match(self, segments: list[str]) -> NodeDef | None:
        """The node a concrete path names (``{key}`` segments match any value)."""
        for node in self.nodes:
            if len(node.template) == len(segments) and all(
                t == s or t.startswith("{") for t, s in zip(node.template, segments, strict=True)
            ):
                return node
        return None

    def children(self, node: NodeDef) -> list[NodeDef]:
        """Child containers and key-less lists, in the model's order."""
        base = node.template
        return [n for n in self.nodes if n.template[:-1] == base and n.kind in ("container", "list")]

    def entry_of(self, listing: NodeDef) -> NodeDef | None:
        size = len(listing.template) + 1
        found = [n for n in self.nodes if len(n.template) == size and n.template[:-1] == listing.template]
        return found[0] if found else None

    def leaves(self, node: NodeDef) -> list[Leaf]:
        required = set(node.schema.get("required") or [])
        found: list[Leaf] = []
        for name, raw in (node.schema.get("properties") or {}).items():
            schema = self.resolve(raw)
            if schema.get("type") in ("object", "array") and "properties" in self.resolve(
                schema.get("items") or schema
            ):
                continue  # a child container or list: it has a page of its own
            found.append(self._leaf(name, schema, name in required))
        return found

    def _leaf(self, name: str, schema: Json, required: bool) -> Leaf:
        description = str(schema.get("description") or "")
        if "enum" in schema:
            return Leaf(name, "enum", tuple(str(v) for v in schema["enum"]), None, required, description)
        if "anyOf" in schema:
            return Leaf(name, "union", (), None, required, description)
        kind = {"integer": "integer", "boolean": "boolean"}.get(str(schema.get("type")), "string")
        return Leaf(name, kind, (), schema.get("maxLength"), required, description)


def leaf_value(leaf: Leaf, text: str) -> Any:
    """A form value in the JSON the leaf's schema asks for; left as text when it does not parse,
    so that the service, not the console, says what is wrong with it."""
    if leaf.kind == "integer":
        try:
            return int(text)
        except ValueError:
            return text
    if leaf.kind == "boolean":
        return text == "true"
    return text
