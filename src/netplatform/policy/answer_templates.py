"""Service templates out: the envelope every answer uses, built from the selected entities.

A policy type is always answered together with its ancestors and the data types its
properties need (transitively), so a client can read it without asking again (reference 3.3).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .model import (
    DEFINITIONS_VERSION,
    TEMPLATE_NAME,
    TEMPLATE_VERSION,
    Entity,
    Kind,
    in_listing_order,
    is_predefined_data_type,
    is_root,
    keyed,
)
from .references import KnownEntities
from .versions import Reference

_RETURNED_TYPE_KINDS = (Kind.POLICY_TYPE, Kind.DATA_TYPE, Kind.NODE_TYPE)


def envelope(
    *,
    types: Iterable[Entity] = (),
    policies: Iterable[Entity] = (),
    node_templates: Iterable[Entity] = (),
) -> dict[str, Any]:
    """The answer template: the envelope's name and version, then the sections in a fixed order.

    Empty sections are left out; capability and relationship types are stored, never returned.
    """
    document: dict[str, Any] = {
        "tosca_definitions_version": DEFINITIONS_VERSION,
        "name": TEMPLATE_NAME,
        "version": TEMPLATE_VERSION,
    }
    types = list(types)
    for kind in _RETURNED_TYPE_KINDS:
        of_kind = [entity for entity in types if entity.kind is kind]
        if of_kind:
            document[kind.section] = keyed(of_kind)
    topology: dict[str, Any] = {}
    node_templates = list(node_templates)
    if node_templates:
        topology["node_templates"] = keyed(node_templates)
    policies = list(policies)
    if policies:
        topology["policies"] = [{policy.name: policy.body} for policy in in_listing_order(policies)]
    if topology:
        document["topology_template"] = topology
    return document


def echo(entities: Iterable[Entity]) -> dict[str, Any]:
    """A stored (or deleted) set of entities as one template."""
    entities = list(entities)
    return envelope(
        types=[entity for entity in entities if entity.kind.is_type],
        policies=[entity for entity in entities if entity.kind is Kind.POLICY],
        node_templates=[entity for entity in entities if entity.kind is Kind.NODE_TEMPLATE],
    )


def policy_types_document(selected: list[Entity], known: KnownEntities) -> dict[str, Any]:
    """The selected policy types, their ancestors and every data type they need."""
    types = with_ancestors(selected, known)
    return envelope(types=[*types, *referenced_data_types(types, known)])


def policies_document(policies: list[Entity], known: KnownEntities, *, referenced: bool) -> dict[str, Any]:
    """Bare policies, or (``referenced``) with their types, ancestors and data types."""
    if not referenced:
        return envelope(policies=policies)
    types: dict[tuple[str, str], Entity] = {}
    known.fetch(Kind.POLICY_TYPE, {ref.name for policy in policies if (ref := policy.type_reference)})
    for policy in policies:
        reference = policy.type_reference
        policy_type = known.resolve(Kind.POLICY_TYPE, reference) if reference else None
        if policy_type is not None:
            types.setdefault(policy_type.key, policy_type)
    with_parents = with_ancestors(list(types.values()), known)
    return envelope(types=[*with_parents, *referenced_data_types(with_parents, known)], policies=policies)


def with_ancestors(selected: list[Entity], known: KnownEntities) -> list[Entity]:
    """The selected types, then each one's ancestors not already shown under their name."""
    result = list(selected)
    names = {entity.name for entity in selected}
    for entity in selected:
        for ancestor in known.lineage(entity.kind, entity):
            if ancestor.name not in names:
                names.add(ancestor.name)
                result.append(ancestor)
    return result


def referenced_data_types(types: Iterable[Entity], known: KnownEntities) -> list[Entity]:
    """Data types used by the types' properties, through data-type properties and parents.

    Breadth first, one query per level for the names not yet known.
    """
    found: dict[tuple[str, str], Entity] = {}
    pending: list[Reference] = [reference for entity in types for reference in entity.property_types()]
    while pending:
        wanted = [reference for reference in pending if not is_predefined_data_type(reference.name)]
        known.fetch(Kind.DATA_TYPE, {reference.name for reference in wanted})
        pending = []
        for reference in wanted:
            data_type = known.resolve(Kind.DATA_TYPE, reference)
            if data_type is None or data_type.key in found:
                continue
            found[data_type.key] = data_type
            pending.extend(data_type.property_types())
            parent = data_type.parent
            if parent is not None and not is_root(parent.name):
                pending.append(parent)
    return list(found.values())
