"""The instance tree over its rows: read, write and remove any node within one transaction.

A top-level container is stored as a container row (its own existence and any members that
are not lists) plus one row per entry of each list directly below it: those lists are
"sharded". A write below an entry reads that one row ``FOR UPDATE``, changes it and writes it
back; nothing else is touched. Every row written is validated with yangson first, so the
stored tree always satisfies the model (entries of sharded lists are independent of each
other in this model, so validating the written entry validates the tree).

Races: a row that was absent when read is added with a plain INSERT, never an upsert. If a
concurrent writer added it in between, the INSERT fails on the unique key and the caller runs
the whole transaction again (:mod:`.service`), which then sees the row. So every decision
("it exists: 409", "it existed: 204") rests on the one read the write itself is based on.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from yangson.enumerations import ContentType, ValidationScope
from yangson.exceptions import ValidationError, YangsonException

from .body import malformed
from .errors import restconf_error
from .instances import Document, locate, place, remove, skeleton
from .paths import Step, Target
from .repository import TreeRepository
from .schema import DataNode, InternalNode, ListNode, data_model, key_names, qualified_name


class Tree:
    def __init__(self, repository: TreeRepository) -> None:
        self.rows = repository

    def read(self, target: Target) -> Any | None:
        """The value of the target node (an entry object for a list entry), None if absent."""
        top, rest = target.steps[0].node, target.steps[1:]
        name = qualified_name(top)
        if not rest:
            return self._whole(top)
        if _is_sharded(rest[0]):
            return read_in_entry(self.rows, target)
        document = self.rows.container(name)
        return None if document is None else locate(document, rest)

    def write(self, target: Target, value: Any, *, create_only: bool = False) -> bool:
        """Replace the target node with ``value``, creating missing parents; True if it existed.

        With ``create_only`` an existing node is a 409 ``data-exists`` and nothing is written.
        """
        rest = target.steps[1:]
        if not rest:
            return self._replace_whole(target, value, create_only)
        if _is_sharded(rest[0]):
            return self._write_in_entry(target, value, create_only)
        return self._write_in_container(target, value, create_only)

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
        self.rows.update_container(name, document)
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

    def _replace_whole(self, target: Target, value: Document, create_only: bool) -> bool:
        top = target.node
        name = qualified_name(top)
        sharded = {node.iname(): node for node in _sharded_lists(top)}
        own_members = {member: v for member, v in value.items() if member not in sharded}
        _validate(top, own_members)
        for list_name in sharded:
            for entry in value.get(list_name, []):
                _validate(top, {list_name: [entry]})
        stored = self.rows.container(name, for_update=True)
        existed = stored is not None or self.rows.has_entries(name)
        _refuse_existing(target, existed and create_only)
        self.rows.delete_entries(name)
        if stored is None:
            self.rows.insert_container(name, own_members)
        else:
            self.rows.update_container(name, own_members)
        for list_name, list_node in sharded.items():
            for entry in value.get(list_name, []):
                self.rows.insert_entry(name, list_name, _keys_of(list_node, entry), entry)
        return existed

    def _write_in_entry(self, target: Target, value: Any, create_only: bool) -> bool:
        top, entry_step, below = target.steps[0].node, target.steps[1], target.steps[2:]
        name, list_name = qualified_name(top), entry_step.node.iname()
        stored = self.rows.entry(name, list_name, entry_step.keys, for_update=True)
        if below:
            entry = stored if stored is not None else skeleton(entry_step)
            existed = locate(entry, below) is not None
            _refuse_existing(target, existed and create_only)
            place(entry, below, value)
        else:
            entry, existed = value, stored is not None
            _refuse_existing(target, existed and create_only)
        _validate(top, {list_name: [entry]})
        if stored is None:
            self.rows.insert_entry(name, list_name, entry_step.keys, entry)
            self.rows.ensure_container(name)
        else:
            self.rows.update_entry(name, list_name, entry_step.keys, entry)
        return existed

    def _write_in_container(self, target: Target, value: Any, create_only: bool) -> bool:
        """A member of a top-level container that is not a sharded list (none in this model)."""
        top, below = target.steps[0].node, target.steps[1:]
        name = qualified_name(top)
        stored = self.rows.container(name, for_update=True)
        document = stored if stored is not None else {}
        existed = locate(document, below) is not None
        _refuse_existing(target, existed and create_only)
        place(document, below, value)
        _validate(top, document)
        if stored is None:
            self.rows.insert_container(name, document)
        else:
            self.rows.update_container(name, document)
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


def _refuse_existing(target: Target, refused: bool) -> None:
    if refused:
        raise restconf_error("data-exists", f"Data already exists for path: {target.instance_identifier()}")


def _sharded_lists(top: DataNode) -> list[ListNode]:
    """The lists directly below a top-level container: one row per entry."""
    assert isinstance(top, InternalNode)
    return [child for child in top.data_children() if isinstance(child, ListNode)]


class EntrySource(Protocol):
    def entry(self, container: str, list_name: str, keys: Sequence[Any]) -> Document | None: ...


def in_one_entry(target: Target) -> bool:
    """Whether the target is an entry of a sharded list or a node inside one: one row holds it."""
    return len(target.steps) > 1 and _is_sharded(target.steps[1])


def read_in_entry(rows: EntrySource, target: Target) -> Any | None:
    """The value of a target :func:`in_one_entry`, from its entry's row (None if absent)."""
    top, step = target.steps[0].node, target.steps[1]
    entry = rows.entry(qualified_name(top), step.node.iname(), step.keys)
    return None if entry is None else locate(entry, target.steps[2:])


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
    except YangsonException as error:  # raw data the body parser let through (it should not)
        raise malformed(str(error)) from None
