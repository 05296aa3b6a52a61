"""Config URIs: ``/config/<module:node>/<node>/<key>/...`` parsed against the schema into a :class:`Target`.

A URI names a container, a list entry (the list segment followed by one segment per key leaf)
or, as its last step only, a list without keys. Segments are split on ``/`` in the raw path
first and percent-decoded once afterwards, so a key may carry a slash as ``%2F`` (and a key
``%252F`` stays ``%2F``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote_to_bytes

from .body import value_problem
from .errors import restconf_error
from .schema import (
    DataNode,
    InternalNode,
    LeafNode,
    ListNode,
    child_named,
    data_model,
    is_addressable,
    key_leaves,
    key_names,
    module_exists,
    qualified_name,
)

KeyValue = Any
"""A key as it appears in an entry's JSON object (a string for the string keys of this model)."""

CONFIG_PREFIX = "/config/"

_IDENTIFIER_SAFE = "-._~!$&'()*+;:@"
"""Characters left as they are in keys of instance identifiers (RFC 8040 section 3.5.3)."""

# Spec 7 and issue 9: a URI that names nothing in the model is 404 ("does not point to a known
# resource"); the reference answered 400. The RESTCONF tag and message stay the reference's.
NOTHING_IN_THE_MODEL = 404


@dataclass(frozen=True)
class Step:
    """One addressed node: a container, or a list with the key values of one entry (or none)."""

    node: DataNode
    keys: tuple[KeyValue, ...] = ()

    @property
    def is_list(self) -> bool:
        return isinstance(self.node, ListNode)

    @property
    def is_entry(self) -> bool:
        return self.is_list and bool(self.keys)

    def key_members(self) -> dict[str, KeyValue]:
        """The entry's key leaves as members of its JSON object."""
        assert isinstance(self.node, ListNode)
        return dict(zip(key_names(self.node), self.keys, strict=True))


@dataclass(frozen=True)
class Target:
    """The data node a request addresses, as the steps from the top of the tree down to it."""

    steps: tuple[Step, ...]

    @property
    def node(self) -> DataNode:
        return self.steps[-1].node

    @property
    def last(self) -> Step:
        return self.steps[-1]

    @property
    def is_list_without_keys(self) -> bool:
        return self.last.is_list and not self.last.keys

    def child(self, node: DataNode, keys: tuple[KeyValue, ...] = ()) -> Target:
        return Target((*self.steps, Step(node, keys)))

    def with_keys(self, keys: tuple[KeyValue, ...]) -> Target:
        """This list target narrowed to one of its entries."""
        return Target((*self.steps[:-1], Step(self.node, keys)))

    def instance_identifier(self) -> str:
        """``/module:top/list=key/container``: how messages name the node."""
        parts = []
        for step in self.steps:
            keys = ",".join(quote(key_text(key), safe=_IDENTIFIER_SAFE) for key in step.keys)
            parts.append(f"{step.node.iname()}={keys}" if keys else step.node.iname())
        return "/" + "/".join(parts)

    def uri_path(self) -> str:
        """The node's path under the server root, every node segment module-qualified."""
        segments = []
        for step in self.steps:
            segments.append(qualified_name(step.node))
            segments.extend(quote(key_text(key), safe="") for key in step.keys)
        return CONFIG_PREFIX + "/".join(segments) + "/"


def key_text(key: KeyValue) -> str:
    """A key as URI text."""
    return key if isinstance(key, str) else json.dumps(key)


def below_config(raw_path: bytes) -> bytes:
    """The part of a raw request path below ``/config/`` (what :func:`parse_target` takes)."""
    return raw_path.split(b"/", 2)[2] if raw_path.count(b"/") >= 2 else b""


def parse_target(raw_path: bytes) -> Target:
    """The target named by a raw request path below ``/config/`` (400 for any bad URI)."""
    segments = raw_path.split(b"/")
    if segments and segments[-1] == b"":
        segments.pop()  # the trailing slash is optional
    decoded = _DecodedSegments([_decode(segment) for segment in segments])
    return Target(tuple(_steps(decoded)))


def _steps(segments: _DecodedSegments) -> Iterator[Step]:
    first = segments.next()
    module, _, name = (first or "").partition(":")
    if not module or not name:
        raise restconf_error("invalid-value", 'First node in URI has to be in format "moduleName:nodeName"')
    parent: InternalNode = data_model().schema
    segment: str | None = first
    while segment is not None:
        node = _child(parent, segment)
        yield Step(node, _keys(node, segments)) if isinstance(node, ListNode) else Step(node)
        parent = node
        segment = segments.next()


def _child(parent: InternalNode, segment: str) -> InternalNode:
    module, colon, _ = segment.rpartition(":")
    if colon and not module_exists(module):
        raise restconf_error(
            "unknown-element", f"The module named '{module}' does not exist.", status=NOTHING_IN_THE_MODEL
        )
    node = child_named(parent, segment)
    if node is None:
        raise restconf_error(
            "unknown-element",
            f'"{segment}" in URI was not found in parent data node',
            status=NOTHING_IN_THE_MODEL,
        )
    if not is_addressable(node):
        raise restconf_error(
            "invalid-value", f'URI has bad format. Node "{node.name}" must be Container or List yang type.'
        )
    assert isinstance(node, InternalNode)
    return node


def _keys(node: ListNode, segments: _DecodedSegments) -> tuple[KeyValue, ...]:
    """The key segments that follow a list segment: all of its keys, or none at the end of the URI."""
    if not segments.remaining():
        return ()
    keys = []
    for key_leaf in key_leaves(node):
        text = segments.next()
        if text is None:
            raise restconf_error(
                "invalid-value",
                f'URI has bad format. List "{node.name}" needs a value for each key {key_names(node)}.',
            )
        if text == "":
            raise restconf_error(
                "invalid-value", f'URI has bad format. List "{node.name}" cannot contain an empty key.'
            )
        keys.append(_key_value(key_leaf, text))
    return tuple(keys)


def _key_value(key_leaf: LeafNode, text: str) -> KeyValue:
    """The JSON value of a key given as URI text (a string for string keys, a number for numbers)."""
    value = key_leaf.type.parse_value(text)
    raw = None if value is None else key_leaf.type.to_raw(value)
    problem = value_problem(key_leaf.type, raw if raw is not None else text)
    if raw is None or problem is not None:
        raise restconf_error("invalid-value", f"URI has bad format. Key {key_leaf.name}: {problem}")
    return raw


def _decode(segment: bytes) -> str:
    try:
        return unquote_to_bytes(segment).decode("utf-8")
    except UnicodeDecodeError:
        raise restconf_error(
            "invalid-value", "URI has bad format. A segment is not percent-encoded UTF-8."
        ) from None


class _DecodedSegments:
    """The decoded segments of a URI, consumed left to right."""

    def __init__(self, segments: list[str]) -> None:
        self._segments = segments
        self._position = 0

    def next(self) -> str | None:
        if self._position >= len(self._segments):
            return None
        segment = self._segments[self._position]
        self._position += 1
        return segment

    def remaining(self) -> int:
        return len(self._segments) - self._position
