"""The YANG data model of the config tree, loaded once, and the questions the service asks of it.

Everything the service does is driven by the modules in ``yang/`` (described by the RFC 7895
library ``yang/yang-library.json``): which URI segments name nodes, which node is a list and
what its keys are, which members a body may carry and what their values must look like. A new
subtree is a YANG change, not new Python.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from yangson import DataModel
from yangson.schemanode import (
    ContainerNode,
    DataNode,
    InternalNode,
    LeafListNode,
    LeafNode,
    ListNode,
    SchemaNode,
)

YANG_DIR = Path(__file__).parent / "yang"
YANG_LIBRARY = YANG_DIR / "yang-library.json"

__all__ = [
    "ContainerNode",
    "DataNode",
    "InternalNode",
    "LeafListNode",
    "LeafNode",
    "ListNode",
    "SchemaNode",
    "child_named",
    "data_model",
    "is_addressable",
    "key_leaves",
    "key_names",
    "module_exists",
    "qualified_name",
    "qualified_namespace",
    "top_level_nodes",
]


@cache
def data_model() -> DataModel:
    """The process-wide data model (parsing the modules takes a while; do it once)."""
    return DataModel.from_file(str(YANG_LIBRARY), [str(YANG_DIR)])


def module_exists(module: str) -> bool:
    return any(name == module for name, _revision in data_model().schema_data.modules)


def top_level_nodes() -> list[DataNode]:
    """The data nodes at the top of the tree (here: ``brg-allotted-resources``)."""
    return [node for node in data_model().schema.data_children() if node.config]


def child_named(parent: InternalNode, name: str) -> DataNode | None:
    """The data child of ``parent`` called ``name``, written ``module:node`` or just ``node``.

    An unqualified name is looked up in the parent's module (RFC 7951 section 4); at the top of
    the tree, where there is no parent module, the name must be qualified.
    """
    module, _, local = name.rpartition(":")
    namespace = module or parent.ns
    if not local or namespace is None:
        return None
    child = parent.get_data_child(local, namespace)
    return child if child is not None and child.config else None


def qualified_name(node: SchemaNode) -> str:
    """``module:name``, the RFC 7951 name of a node at the top level of a document."""
    return f"{node.ns}:{node.name}"


def qualified_namespace(node: SchemaNode) -> str:
    """``(namespace?revision=date)name``: how parse errors name a schema node."""
    model = data_model()
    revision = model.schema_data.implement.get(node.ns or "")
    module = model.schema_data.modules.get((node.ns or "", revision))
    namespace = module.xml_namespace if module else node.ns
    return f"({namespace}?revision={revision}){node.name}"


def key_leaves(node: ListNode) -> list[LeafNode]:
    """The key leaves of a list, in key order."""
    return [node.get_data_child(*key) for key in node.keys]


def key_names(node: ListNode) -> list[str]:
    """The key leaves' instance names, as they appear in the list's entries."""
    return [leaf.iname() for leaf in key_leaves(node)]


def is_addressable(node: SchemaNode) -> bool:
    """Only containers and lists can be addressed by a URI; leaves are reached through them."""
    return isinstance(node, ContainerNode | ListNode)
