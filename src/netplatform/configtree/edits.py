"""What a PUT or POST body asks for, checked against the URI before any data is touched.

PUT names the target node itself and replaces it. POST names either the target itself (the
spec's form) or one child of it (the draft-RESTCONF form clients use) and creates that; on a list
URI without a key the body is the list with one or more entries. Either way the result is a
list of :class:`Edit` s, each a container or a single list entry with its new value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .body import decode, malformed, read_top_member
from .errors import restconf_error
from .instances import Document
from .paths import Target, key_text
from .schema import DataNode, ListNode, child_named, is_addressable, key_leaves, key_names


@dataclass(frozen=True)
class Edit:
    """A node to write: a container, a list entry or a leaf, and its whole new value."""

    target: Target
    value: Any

    @property
    def addressable_target(self) -> Target:
        """The edit's node, or its parent for a leaf (leaves have no URI of their own)."""
        if is_addressable(self.target.node):
            return self.target
        return Target(self.target.steps[:-1])


def replacement(target: Target, body: bytes) -> Edit:
    """The PUT of ``body`` on ``target``: the target node's new value."""
    name, raw = read_top_member(body)
    if not names_node(name, target.node):
        raise _payload_name_differs(name, target.node)
    value = decode(target.node, raw, target.instance_identifier())
    if target.last.is_entry:
        return Edit(target, _entry_for(target, value))
    return Edit(target, value)


def creations(target: Target, body: bytes) -> list[Edit]:
    """The POST of ``body`` on ``target``: every node it creates, the first one first."""
    name, raw = read_top_member(body)
    node = target.node
    if names_node(name, node):
        value = decode(node, raw, target.instance_identifier())
        if target.is_list_without_keys:
            return _entry_edits(target, value)
        if target.last.is_entry:
            return [Edit(target, _entry_for(target, value))]
        return [Edit(target, value)]
    child = None if target.is_list_without_keys else child_named(node, name)
    if child is None:
        raise _payload_name_differs(name, node)
    child_target = target.child(child)
    value = decode(child, raw, child_target.instance_identifier())
    if isinstance(child, ListNode):
        return _entry_edits(child_target, value)
    _check_key_leaf(target, child, value)
    return [Edit(child_target, value)]


def names_node(name: str, node: DataNode) -> bool:
    """Whether a member name, qualified or not, names ``node``."""
    module, _, local = name.rpartition(":")
    return bool(local == node.name and (module or node.ns) == node.ns)


def _entry_edits(list_target: Target, entries: list[Document]) -> list[Edit]:
    if not entries:
        raise malformed(f"Expected at least one entry of list {list_target.node.name}")
    node = list_target.node
    assert isinstance(node, ListNode)
    names = key_names(node)
    return [Edit(list_target.with_keys(tuple(entry[name] for name in names)), entry) for entry in entries]


def _entry_for(target: Target, entries: list[Document]) -> Document:
    """The one entry a body for an entry URI carries; its keys must be the URI's."""
    if len(entries) != 1:
        raise malformed(f"Expected exactly one entry of list {target.node.name}")
    [entry] = entries
    for name, uri_key in target.last.key_members().items():
        _require_same_key(name, uri_key, entry[name])
    return entry


def _check_key_leaf(target: Target, child: DataNode, value: Any) -> None:
    """A key leaf posted into an entry must repeat the entry's key (it cannot rename the entry)."""
    if not target.last.is_entry:
        return
    for leaf, uri_key in zip(key_leaves(target.node), target.last.keys, strict=True):
        if leaf is child:
            _require_same_key(leaf.iname(), uri_key, value)


def _require_same_key(name: str, uri_key: Any, body_key: Any) -> None:
    if body_key != uri_key:
        raise restconf_error(
            "invalid-value",
            f"The value '{key_text(uri_key)}' for key '{name}' specified in the URI doesn't match "
            f"the value '{key_text(body_key)}' specified in the message body.",
        )


def _payload_name_differs(name: str, node: DataNode) -> Exception:
    return restconf_error(
        "malformed-message", f"Payload name ({name}) is different from identifier name ({node.name})"
    )
