"""Request bodies: RFC 7951 JSON read and checked against the schema, member by member.

The result is the canonical instance value the store keeps: members named as RFC 7951 names
them inside a document (unqualified unless the module changes), lists as arrays of entries,
leaf values exactly as sent. Every problem is a 400 ``malformed-message`` whose message names
the cause and whose error-path names the offending member; nothing is written.
"""

from __future__ import annotations

import json
from typing import Any

from yangson.datatype import DataType, EnumerationType, StringType, UnionType

from .errors import restconf_error
from .schema import (
    ContainerNode,
    DataNode,
    InternalNode,
    LeafListNode,
    LeafNode,
    ListNode,
    child_named,
    key_names,
    qualified_namespace,
)

PARSE_PREFIX = "Error parsing input: "
_SHOWN_VALUE_LIMIT = 1024


class PayloadError(ValueError):
    """A body that does not fit the schema; ``path`` is the instance identifier of the culprit."""

    def __init__(self, cause: str, path: str | None = None) -> None:
        super().__init__(cause)
        self.cause = cause
        self.path = path


def malformed(cause: str, path: str | None = None) -> Exception:
    """The 400 a bad body gets: ``Error parsing input: <cause>``, the cause also in error-info."""
    return restconf_error("malformed-message", PARSE_PREFIX + cause, info=cause, path=path)


def read_top_member(body: bytes) -> tuple[str, Any]:
    """The one top-level member of a JSON body: its name as written and its value."""
    if not body.strip():
        raise restconf_error("malformed-message", "Input is required.")
    try:
        document = json.loads(body, object_pairs_hook=_unique_members)
    except PayloadError as error:
        raise malformed(error.cause) from None
    except (ValueError, RecursionError) as error:
        raise malformed(str(error) or type(error).__name__) from None
    if not isinstance(document, dict) or len(document) != 1:
        raise malformed("Expected one top-level member")
    [(name, value)] = document.items()
    return name, value


def decode(node: DataNode, value: Any, location: str) -> Any:
    """The canonical value of ``node`` from its JSON value (``location`` names it in errors)."""
    try:
        return _decode(node, value, location)
    except PayloadError as error:
        raise malformed(error.cause, error.path) from None


def _decode(node: DataNode, value: Any, location: str) -> Any:
    if isinstance(node, ListNode):
        return _entries(node, value, location)
    if isinstance(node, ContainerNode):
        return _members(node, value, location)
    if isinstance(node, LeafListNode):
        if not isinstance(value, list):
            raise PayloadError(f"Expected a JSON array for leaf-list {node.name}", location)
        return [_scalar(node.type, item, location) for item in value]
    if isinstance(node, LeafNode):
        return _scalar(node.type, value, location)
    raise PayloadError(f"Schema node {node.name} cannot be written", location)


def _members(node: InternalNode, value: Any, location: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise PayloadError(f"Expected a JSON object for {node.name}", location)
    members: dict[str, Any] = {}
    for name, member in value.items():
        child = child_named(node, name)
        if child is None:
            local = name.rpartition(":")[2]
            raise PayloadError(
                f"Schema node with name {local} was not found under {qualified_namespace(node)}.", location
            )
        instance_name = child.iname()
        if instance_name in members:
            raise PayloadError(f"Duplicate member {instance_name} in {node.name}", location)
        members[instance_name] = _decode(child, member, f"{location}/{instance_name}")
    return members


def _entries(node: ListNode, value: Any, location: str) -> list[dict[str, Any]]:
    if not isinstance(value, list):
        raise PayloadError(f"Expected a JSON array for list {node.name}", location)
    keys = key_names(node)
    seen: set[tuple[Any, ...]] = set()
    entries = []
    for item in value:
        entry = _members(node, item, location)
        if any(key not in entry for key in keys):
            required = ", ".join(keys)
            message = f"Map entry corresponding to {node.name} is missing some of required keys [{required}]"
            raise PayloadError(message, location)
        identity = tuple(json.dumps(entry[key]) for key in keys)
        if identity in seen:
            shown = ", ".join(f"{key}={entry[key]}" for key in keys)
            raise PayloadError(f"Duplicate entry [{shown}] in list {node.name}", location)
        seen.add(identity)
        entries.append(entry)
    return entries


def _scalar(datatype: DataType[Any, Any], raw: Any, location: str) -> Any:
    if isinstance(raw, str):
        _require_unicode(raw, location)
    problem = value_problem(datatype, raw)
    if problem is not None:
        raise PayloadError(problem, location)
    return raw


def value_problem(datatype: DataType[Any, Any], raw: Any) -> str | None:
    """Why ``raw`` is not a value of ``datatype`` (None when it is), worded per type."""
    value = datatype.from_raw(raw)
    if value is not None and value in datatype:
        return None
    shown = _shown(raw)
    if isinstance(datatype, EnumerationType):
        allowed = ", ".join(datatype.enum)
        return f"Invalid value '{shown}' for enum type. Allowed values are: [{allowed}]"
    if isinstance(datatype, UnionType):
        return f'Invalid value "{shown}" for union type.'
    if isinstance(datatype, StringType) and isinstance(raw, str):
        return _string_problem(datatype, raw)
    if isinstance(datatype, StringType):
        return f"Invalid value {shown} for string type: a JSON string is expected."
    return f"Invalid value '{shown}' for {datatype.yang_type()} type."


def _string_problem(datatype: StringType, raw: str) -> str:
    shown = _shown(raw)
    if datatype.length is not None and len(raw) not in datatype.length:
        intervals = datatype.length.intervals
        bounds = ", ".join("..".join(str(bound) for bound in interval) for interval in intervals)
        return f"Value '{shown}' does not match allowed length constraint [{bounds}]"
    for pattern in datatype.patterns:
        if (pattern.regex.match(raw) is not None) == pattern.invert_match:
            return f"Value '{shown}' does not match the pattern '{pattern.pattern}'"
    return f"Invalid value '{shown}' for string type."


def _shown(raw: Any) -> str:
    text = raw if isinstance(raw, str) else json.dumps(raw)
    return text if len(text) <= _SHOWN_VALUE_LIMIT else text[:_SHOWN_VALUE_LIMIT] + "..."


def _require_unicode(text: str, location: str | None = None) -> None:
    """Reject lone surrogates (``"\\ud800"``): they cannot be stored or sent back as UTF-8."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise PayloadError("A string is not valid Unicode (lone surrogate escape)", location) from None


def _unique_members(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    members: dict[str, Any] = {}
    for name, value in pairs:
        _require_unicode(name)
        if name in members:
            raise PayloadError(f"Duplicate member {json.dumps(name)} in a JSON object")
        members[name] = value
    return members
