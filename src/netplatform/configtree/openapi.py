"""The config tree's OpenAPI paths: one per node of the YANG schema, generated, never hand-written.

The service answers every node through one catch-all route (:mod:`.routes.nodes`), which says nothing
useful to a reader of the document. So the document gets, for each container and list entry
of the schema, its own path (``.../GENERIC-RESOURCE-API:param/{name}/``) with GET, POST, PUT and
DELETE, and for each list the key-less path with POST only; every operation lists the bodies
and statuses it can produce. A new subtree in the YANG module appears here by itself.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from fastapi.routing import APIRoute

from ..web.permissions import PERMISSION_KEY, declared
from .jsonschema import JsonSchema, SchemaCatalog, component_name, type_schema
from .media_types import JSON, REQUEST_MEDIA_TYPES, YANG_DATA_JSON
from .paths import CONFIG_PREFIX
from .routes.nodes import router as node_router
from .schema import (
    ContainerNode,
    DataNode,
    InternalNode,
    ListNode,
    key_leaves,
    key_names,
    qualified_name,
    top_level_nodes,
)

TAG = "config tree"
_NO_NUL = "^[^\\u0000]*$"
_ERROR = {"$ref": "#/components/schemas/Error"}

_ERRORS = {
    400: "Bad URI or body (RESTCONF error-tag invalid-value, malformed-message or unknown-element)",
    401: "Missing or wrong credentials",
    404: "The addressed data does not exist (data-missing)",
    406: "The Accept header admits no JSON media type",
    409: "The node to create exists already (data-exists)",
    413: "Request body too large",
    415: "The body is not JSON (application/json or application/yang-data+json)",
}


@dataclass(frozen=True)
class NodePath:
    """The URI template of a container, a list entry or a key-less list."""

    template: str
    node: DataNode
    parameters: tuple[JsonSchema, ...] = ()
    keyless_list: bool = False
    parameter_names: frozenset[str] = field(default_factory=frozenset)

    @property
    def is_entry(self) -> bool:
        return isinstance(self.node, ListNode) and not self.keyless_list


def add_node_paths(spec: dict[str, Any]) -> None:
    catalog = SchemaCatalog()
    paths = spec.setdefault("paths", {})
    for node_path in node_paths():
        paths[node_path.template] = _path_item(node_path, catalog)
    components = spec.setdefault("components", {})
    components.setdefault("schemas", {}).update(catalog.schemas)
    components.setdefault("responses", {}).update(
        {_error_name(status): _error_response(status) for status in _ERRORS}
    )


def node_paths() -> Iterator[NodePath]:
    """Every addressable node of the schema, top down."""
    for node in top_level_nodes():
        yield from _paths_below(NodePath(CONFIG_PREFIX, node), node)


def _paths_below(parent: NodePath, node: DataNode) -> Iterator[NodePath]:
    base = parent.template + qualified_name(node) + "/"
    if isinstance(node, ContainerNode):
        here = NodePath(base, node, parent.parameters, parameter_names=parent.parameter_names)
        yield here
        yield from _children_paths(here, node)
    elif isinstance(node, ListNode):
        yield NodePath(
            base, node, parent.parameters, keyless_list=True, parameter_names=parent.parameter_names
        )
        entry = _entry_path(base, node, parent)
        yield entry
        yield from _children_paths(entry, node)


def _children_paths(here: NodePath, node: InternalNode) -> Iterator[NodePath]:
    for child in node.data_children():
        if child.config and isinstance(child, ContainerNode | ListNode):
            yield from _paths_below(here, child)


def _entry_path(base: str, node: ListNode, parent: NodePath) -> NodePath:
    """The entry path: one path parameter per key, renamed ``<list>-<key>`` if the name is taken."""
    names = set(parent.parameter_names)
    parameters = list(parent.parameters)
    template = base
    for leaf in key_leaves(node):
        name = leaf.name if leaf.name not in names else f"{node.name}-{leaf.name}"
        names.add(name)
        template += "{" + name + "}/"
        schema = type_schema(leaf.type)
        if schema.get("type") == "string":
            schema["minLength"] = max(1, schema.get("minLength", 0))
            schema.setdefault("pattern", _NO_NUL)  # the kernel refuses NUL in paths
        parameters.append(
            {
                "name": name,
                "in": "path",
                "required": True,
                "description": f"Key {leaf.name} of list {node.name} (percent-encoded; '/' as %2F)",
                "schema": schema,
            }
        )
    return NodePath(template, node, tuple(parameters), parameter_names=frozenset(names))


def _path_item(path: NodePath, catalog: SchemaCatalog) -> dict[str, Any]:
    def body(method: str, schema: JsonSchema) -> dict[str, Any]:
        """The request body, its schema defined once for all three media types."""
        reference = catalog.define(_operation_id(path, method) + ".body", schema)
        content = {media: {"schema": reference} for media in REQUEST_MEDIA_TYPES}
        return {"required": True, "description": _body_rule(path, method), "content": content}

    item: dict[str, Any] = {}
    if path.parameters:
        item["parameters"] = list(path.parameters)
    item["post"] = _operation(
        path,
        "post",
        f"Create {_what(path)}",
        responses={201: _created()} | _errors(400, 401, 406, 409, 413, 415),
        body=body("post", _post_body(path, catalog)),
    )
    if path.keyless_list:
        return item
    item["get"] = _operation(
        path,
        "get",
        f"Read {_what(path)}",
        responses={200: _content("The node", _document(path, catalog))} | _errors(400, 401, 404, 406),
        parameters=[_DEPTH],
    )
    item["put"] = _operation(
        path,
        "put",
        f"Create or replace {_what(path)}",
        responses={201: {"description": "Created"}, 204: {"description": "Replaced"}}
        | _errors(400, 401, 406, 413, 415),
        body=body("put", _one_member(_names(path.node, _value_schema(path, catalog)))),
    )
    item["delete"] = _operation(
        path,
        "delete",
        f"Delete {_what(path)} and everything below it",
        responses={204: {"description": "Deleted"}} | _errors(400, 401, 404, 406),
    )
    return item


def _operation(
    path: NodePath,
    method: str,
    summary: str,
    *,
    responses: dict[int, Any],
    body: dict[str, Any] | None = None,
    parameters: list[JsonSchema] | None = None,
) -> dict[str, Any]:
    operation: dict[str, Any] = {
        "tags": [TAG],
        "summary": summary,
        "operationId": _operation_id(path, method),
        "responses": {str(status): response for status, response in sorted(responses.items())},
        PERMISSION_KEY: _permission(method),
    }
    if parameters:
        operation["parameters"] = parameters
    if body is not None:
        operation["requestBody"] = body
    return operation


def _permission(method: str) -> str:
    """What the catch-all route declares for ``method``: the permission the kernel checks."""
    route = next(route for route in node_router.routes if isinstance(route, APIRoute))
    return str(declared(route.openapi_extra, method.upper()))


def _operation_id(path: NodePath, method: str) -> str:
    suffix = ".list" if path.keyless_list else ".entry" if path.is_entry else ""
    return f"{method}_{component_name(path.node)}{suffix}"


def _what(path: NodePath) -> str:
    if path.keyless_list:
        return f"entries of list {path.node.name}"
    return f"{path.node.name} entry" if path.is_entry else path.node.name


def _value_schema(path: NodePath, catalog: SchemaCatalog) -> JsonSchema:
    """The node's value in a body: an object, or for a list entry a one-element array."""
    node = path.node
    if isinstance(node, ListNode):
        entries = catalog.node(node) | {"minItems": 1}
        return entries if path.keyless_list else entries | {"maxItems": 1}
    return catalog.node(node)


def _post_body(path: NodePath, catalog: SchemaCatalog) -> JsonSchema:
    """The node itself, or (except on a key-less list) any one of its children."""
    members = _names(path.node, _value_schema(path, catalog))
    if not path.keyless_list:
        node = path.node
        assert isinstance(node, InternalNode)
        keys = key_leaves(node) if isinstance(node, ListNode) else []
        for child in node.data_children():
            if child.config and child not in keys:  # a key leaf can only repeat the URI's key
                schema = catalog.node(child)
                if isinstance(child, ListNode):
                    schema = schema | {"minItems": 1}
                members |= _names(child, schema)
    return _one_member(members)


def _body_rule(path: NodePath, method: str) -> str:
    """What a body must obey beyond its schema: JSON Schema cannot tie a body member to the URI."""
    node = path.node
    if path.keyless_list:
        return "One or more entries of the list, with distinct keys; all are created (409 if any exists)."
    if not isinstance(node, ListNode):
        rule = "The node itself" if method == "put" else "The node itself, or one of its children"
        return f"{rule}; entries of a list in it have distinct keys."
    keys = ", ".join(key_names(node))
    rule = "The entry" if method == "put" else "The entry itself, or one of its children"
    return (
        f"{rule}; the entry (a one-element array) carries the URI's key ({keys}) unchanged "
        "(400 invalid-value otherwise), and entries of a list in it have distinct keys."
    )


def _document(path: NodePath, catalog: SchemaCatalog) -> JsonSchema:
    name = qualified_name(path.node)
    return {
        "type": "object",
        "properties": {name: _value_schema(path, catalog)},
        "required": [name],
        "additionalProperties": False,
    }


def _names(node: DataNode, schema: JsonSchema) -> dict[str, JsonSchema]:
    """A top-level body member may be named ``module:node`` or just ``node``."""
    return {qualified_name(node): schema, node.name: schema}


def _one_member(members: dict[str, JsonSchema]) -> JsonSchema:
    return {
        "type": "object",
        "properties": members,
        "minProperties": 1,
        "maxProperties": 1,
        "additionalProperties": False,
    }


def _content(description: str, schema: JsonSchema) -> dict[str, Any]:
    return {
        "description": description,
        "content": {media: {"schema": schema} for media in (JSON, YANG_DATA_JSON)},
    }


def _created() -> dict[str, Any]:
    return {
        "description": "Created; the body is empty",
        "headers": {"Location": {"description": "URL of the created node", "schema": {"type": "string"}}},
    }


def _errors(*statuses: int) -> dict[int, Any]:
    return {status: {"$ref": f"#/components/responses/{_error_name(status)}"} for status in statuses}


def _error_name(status: int) -> str:
    return f"configtree-error-{status}"


def _error_response(status: int) -> dict[str, Any]:
    return {"description": _ERRORS[status], "content": {JSON: {"schema": _ERROR}}}


_DEPTH: JsonSchema = {
    "name": "depth",
    "in": "query",
    "required": False,
    "description": "Levels of the tree to return (the node itself is level 1), or unbounded",
    "schema": {
        "anyOf": [
            {"type": "integer", "minimum": 1, "maximum": 65535},
            {"type": "string", "enum": ["unbounded"]},
        ]
    },
}
