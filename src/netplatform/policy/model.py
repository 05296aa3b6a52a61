"""The stored unit: one TOSCA entity (kind, name, version) and its normalised wire form.

Every data type, policy type, node type, policy and node template is stored and fetched on its
own by ``(kind, name, version)``; a service template is only ever the envelope a request or a
response carries, assembled from entities (see :mod:`answer_templates`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from .versions import NULL_VERSION, Reference, parse_reference, sort_key

DEFINITIONS_VERSION = "tosca_simple_yaml_1_1_0"
TEMPLATE_NAME = "ToscaServiceTemplateSimple"
TEMPLATE_VERSION = "1.0.0"


class Kind(StrEnum):
    DATA_TYPE = "data_type"
    POLICY_TYPE = "policy_type"
    NODE_TYPE = "node_type"
    CAPABILITY_TYPE = "capability_type"
    RELATIONSHIP_TYPE = "relationship_type"
    POLICY = "policy"
    NODE_TEMPLATE = "node_template"

    @property
    def label(self) -> str:
        """How messages name the kind: ``policy type``."""
        return self.value.replace("_", " ")

    @property
    def section(self) -> str:
        """The service-template key that holds entities of this kind."""
        return self.value + "s"

    @property
    def is_type(self) -> bool:
        return self not in (Kind.POLICY, Kind.NODE_TEMPLATE)


TYPE_KINDS = tuple(kind for kind in Kind if kind.is_type)


@dataclass(frozen=True)
class Entity:
    """One entity; ``body`` is its normalised wire form, which holds ``name`` and ``version``."""

    kind: Kind
    name: str
    version: str
    body: dict[str, Any]
    preloaded: bool = field(default=False, compare=False)

    @property
    def key(self) -> tuple[str, str]:
        return (self.name, self.version)

    @property
    def id(self) -> str:
        return f"{self.name}:{self.version}"

    @property
    def parent(self) -> Reference | None:
        """What ``derived_from`` names (None at the top; ``.Root`` types are never stored)."""
        derived_from = self.body.get("derived_from")
        return parse_reference(derived_from) if derived_from else None

    @property
    def type_reference(self) -> Reference | None:
        """The type of a policy or node template, version included."""
        if "type" not in self.body:
            return None
        return Reference(self.body["type"], self.body.get("type_version", NULL_VERSION))

    @property
    def metadata_set(self) -> Reference | None:
        """The node template a policy names in its metadata (metadataSetName/-Version)."""
        metadata = self.body.get("metadata") or {}
        name, version = metadata.get("metadataSetName"), metadata.get("metadataSetVersion")
        if isinstance(name, str) and isinstance(version, str):
            return Reference(name, version)
        return None

    def property_types(self) -> Iterable[Reference]:
        """The types a type's properties use: each property's type and its entry schema's type."""
        for definition in (self.body.get("properties") or {}).values():
            yield Reference(definition["type"], _exact(definition.get("type_version")))
            entry_schema = definition.get("entry_schema")
            if entry_schema:
                yield Reference(entry_schema["type"], _exact(entry_schema.get("type_version")))


def _exact(version: str | None) -> str | None:
    """A property's type_version: ``0.0.0`` (the default) means any version."""
    return None if version in (None, NULL_VERSION) else version


def is_root(name: str) -> bool:
    """``tosca.policies.Root`` and friends: accepted as parents, never stored or returned."""
    return name.endswith(".Root")


PREDEFINED_DATA_TYPES = frozenset(
    {
        "string",
        "integer",
        "float",
        "boolean",
        "timestamp",
        "null",
        "list",
        "map",
        "object",
        "scalar-unit.size",
        "scalar-unit.time",
        "scalar-unit.frequency",
        "tosca.datatypes.TimeInterval",
    }
)


def is_predefined_data_type(name: str) -> bool:
    return name in PREDEFINED_DATA_TYPES or is_root(name)


def newest(entities: Iterable[Entity]) -> Entity | None:
    """The entity with the highest semantic version."""
    return max(entities, key=lambda entity: sort_key(entity.version), default=None)


def in_listing_order(entities: Iterable[Entity]) -> list[Entity]:
    """By name, then semantic version (reference 2.2)."""
    return sorted(entities, key=lambda entity: (entity.name, sort_key(entity.version)))


def newest_per_name(entities: Iterable[Entity]) -> list[Entity]:
    by_name: dict[str, list[Entity]] = {}
    for entity in entities:
        by_name.setdefault(entity.name, []).append(entity)
    return [latest for group in by_name.values() if (latest := newest(group)) is not None]


def keyed(entities: Iterable[Entity]) -> dict[str, dict[str, Any]]:
    """A service-template map: keyed by name, or by ``name:version`` for a name seen twice.

    So several versions of one name are all shown (the input side accepts both key forms).
    """
    ordered = in_listing_order(entities)
    counts: dict[str, int] = {}
    for entity in ordered:
        counts[entity.name] = counts.get(entity.name, 0) + 1
    return {(entity.name if counts[entity.name] == 1 else entity.id): entity.body for entity in ordered}
