"""The instance tree over its rows: read, write and remove any node within one transaction.

A top-level container is stored as a container row (its own existence and any members that
are not lists) plus one row per entry of each list directly below it: those lists are
"sharded". A write below an entry reads that one row ``FOR UPDATE``, changes it and writes it
back; nothing else is touched. Every row written is validated with yangson first, so the
stored tree always satisfies the model (entries of sharded lists are independent of each
other in this model, so validating the written entry validates the tree).
"""

from __future__ import annotations

from typing import Any

from yangson.enumerations import ContentType, ValidationScope
from yangson.exceptions import RawDataError, ValidationError

from .instances import Document, locate, place, remove, skeleton
from .paths import Step, Target
from .payload import malformed
from .repository import TreeRepository
from .schema import DataNode, InternalNode, ListNode, data_model, key_names, qualified_name


class Tree:
    """The instance tree seen through one transaction.

    A writing transaction passes ``locking=True``: then every row it reads is locked until it
    commits, so a check ("does it exist?") still holds when the write that depends on it runs.
    """

    def __init__(self, repository: TreeRepository, *, locking: bool = False) -> None:
        self.rows = repository
        self.locking = locking

    def read(self, target: Target) -> Any | None:
        """The value of the target node (an entry object for a list entry), None if absent."""
        top, rest = target.steps[0].node, target.steps[1:]
        name = qualified_name(top)
        if not rest:
            return self._whole(top)
        if _is_sharded(rest[0]):
            entry = self.rows.entry(name, rest[0].node.iname(), rest[0].keys, for_update=self.locking)
            return None if entry is None else locate(entry, rest[1:])
        document = self.rows.container(name, for_update=self.locking)
        return None if document is None else locate(document, rest)

    def exists(self, target: Target) -> bool:
        if len(target.steps) == 1:
            name = qualified_name(target.node)
            return self.rows.container(name) is not None or self.rows.has_entries(name)
        return self.read(target) is not None

    def write(self, target: Target, value: Any) -> bool:
        """Replace the target node with ``value``, creating missing parents; True if it existed."""
        top, rest = target.steps[0].node, target.steps[1:]
        if not rest:
            existed = self.exists(target)
            self._replace_whole(top, value)
            return existed
        if _is_sharded(rest[0]):
            return self._write_entry(top, rest[0], rest[1:], value)
        name = qualified_name(top)
        document = self.rows.container(name, for_update=True) or {}
        existed = place(document, rest, value)
        _validate(top, document)
        self.rows.save_container(name, document)
        return existed

    def remove(self, target: Target) -> bool:
        """Delete the target node and everything below it; True if it existed."""
        top, rest = target.steps[0].node, target.steps[1:]
        name = qualified_name(top)
        if not rest:
            had_entries = self.rows.has_entries(name)
            self.rows.delete_entries(name)
            return self.rows.delete_container(name) or had_entries
        if _is_sharded(rest[0]):
            return self._remove_in_entry(name, rest[0], rest[1:])
        document = self.rows.container(name, for_update=True)
        if document is None or not remove(document, rest):
            return False
        self.rows.save_container(name, document)
        return True

    def _whole(self, top: DataNode) -> Document | None:
        name = qualified_name(top)
        document = self.rows.container(name)
        value = dict(document or {})
        for list_node in _sharded_lists(top):
            entries = self.rows.entries(name, list_node.iname())
            if entries:
                value[list_node.iname()] = entries
        return value if document is not None or value else None

    def _replace_whole(self, top: DataNode, value: Document) -> None:
        name = qualified_name(top)
        sharded = {node.iname(): node for node in _sharded_lists(top)}
        own_members = {member: v for member, v in value.items() if member not in sharded}
        _validate(top, own_members)
        self.rows.delete_entries(name)
        self.rows.save_container(name, own_members)
        for list_name, list_node in sharded.items():
            for entry in value.get(list_name, []):
                _validate(top, {list_name: [entry]})
                self.rows.insert_entry(name, list_name, _keys_of(list_node, entry), entry)

    def _write_entry(self, top: DataNode, entry_step: Step, below: tuple[Step, ...], value: Any) -> bool:
        name, list_name = qualified_name(top), entry_step.node.iname()
        stored = self.rows.entry(name, list_name, entry_step.keys, for_update=True)
        if below:
            entry = stored if stored is not None else skeleton(entry_step)
            existed = place(entry, below, value)
        else:
            entry, existed = value, stored is not None
        _validate(top, {list_name: [entry]})
        if stored is None:
            self.rows.insert_entry(name, list_name, entry_step.keys, entry)
            self.rows.ensure_container(name)
        else:
            self.rows.update_entry(name, list_name, entry_step.keys, entry)
        return existed

    def _remove_in_entry(self, name: str, entry_step: Step, below: tuple[Step, ...]) -> bool:
        list_name = entry_step.node.iname()
        if not below:
            return self.rows.delete_entry(name, list_name, entry_step.keys)
        entry = self.rows.entry(name, list_name, entry_step.keys, for_update=True)
        if entry is None or not remove(entry, below):
            return False
        self.rows.update_entry(name, list_name, entry_step.keys, entry)
        return True


def _sharded_lists(top: DataNode) -> list[ListNode]:
    """The lists directly below a top-level container: one row per entry."""
    assert isinstance(top, InternalNode)
    return [child for child in top.data_children() if isinstance(child, ListNode)]


def _is_sharded(step: Step) -> bool:
    return step.is_list


def _keys_of(list_node: ListNode, entry: Document) -> tuple[Any, ...]:
    return tuple(entry[name] for name in key_names(list_node))


def _validate(top: DataNode, members: Document) -> None:
    """Check a part of the tree with yangson: the whole model, not only what the body parser checks."""
    try:
        instance = data_model().from_raw({qualified_name(top): members})
        instance.validate(ValidationScope.all, ContentType.config)
    except ValidationError as error:
        path = str(error.instance.instance_route()) if error.instance is not None else None
        raise malformed(f"{error.tag}: {error.message}" if error.message else str(error.tag), path) from None
    except RawDataError as error:
        raise malformed(str(error)) from None
