"""Instance data as RFC 7951 JSON values: find, place and remove a node below a starting point.

A container is a JSON object, a list an array of entry objects found by their key members.
These functions walk a document along :class:`~.paths.Step` s and know nothing of storage or
HTTP; an empty container stays (it exists until deleted), an emptied list disappears (a list
has no existence of its own beyond its entries).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .paths import Step
from .schema import ContainerNode, DataNode, ListNode, child_named, key_names

Document = dict[str, Any]


def entry_matches(entry: Document, step: Step) -> bool:
    return all(entry.get(name) == key for name, key in step.key_members().items())


def skeleton(step: Step) -> Document:
    """A new entry of a list that holds only its keys (an auto-created parent)."""
    return dict(step.key_members()) if step.is_entry else {}


def locate(document: Document, steps: Sequence[Step]) -> Any | None:
    """The value at ``steps`` below ``document`` (a container object or an entry), or None."""
    value: Any = document
    for step in steps:
        value = _child_value(value, step)
        if value is None:
            return None
    return value


def place(document: Document, steps: Sequence[Step], value: Any) -> bool:
    """Put ``value`` at ``steps`` (non-empty), creating missing parents; True if it replaced something."""
    parent = document
    for step in steps[:-1]:
        found = _child_value(parent, step)
        if found is None:
            found = skeleton(step)
            _attach(parent, step, found)
        parent = found
    existed = _child_value(parent, steps[-1]) is not None
    _attach(parent, steps[-1], value)
    return existed


def remove(document: Document, steps: Sequence[Step]) -> bool:
    """Delete the node at ``steps`` (non-empty); True if there was one."""
    parent = locate(document, steps[:-1])
    if not isinstance(parent, dict):
        return False
    last = steps[-1]
    name = last.node.iname()
    if name not in parent:
        return False
    if not last.is_entry:
        del parent[name]
        return True
    entries = parent[name]
    kept = [entry for entry in entries if not entry_matches(entry, last)]
    if len(kept) == len(entries):
        return False
    if kept:
        parent[name] = kept
    else:
        del parent[name]
    return True


def prune(node: DataNode, value: Any, depth: int | None) -> Any:
    """``value`` cut to ``depth`` levels (the node itself is level 1); list keys always stay."""
    if depth is None:
        return value
    if isinstance(node, ListNode):
        keys = set(key_names(node))
        return [_prune_members(node, entry, depth, keys) for entry in value]
    if isinstance(node, ContainerNode):
        return _prune_members(node, value, depth, set())
    return value


def _prune_members(node: ListNode | ContainerNode, members: Document, depth: int, kept: set[str]) -> Document:
    pruned = {}
    for name, member in members.items():
        if name in kept:
            pruned[name] = member
        elif depth > 1:
            child = child_named(node, name)
            pruned[name] = member if child is None else prune(child, member, depth - 1)
    return pruned


def _child_value(parent: Any, step: Step) -> Any | None:
    if not isinstance(parent, dict):
        return None
    member = parent.get(step.node.iname())
    if member is None or not step.is_entry:
        return member
    return next((entry for entry in member if entry_matches(entry, step)), None)


def _attach(parent: Document, step: Step, value: Any) -> None:
    name = step.node.iname()
    if not step.is_entry:
        parent[name] = value
        return
    entries = parent.setdefault(name, [])
    for index, entry in enumerate(entries):
        if entry_matches(entry, step):
            entries[index] = value
            return
    entries.append(value)
