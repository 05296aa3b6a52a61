"""An incoming service template -> normalised entities, with the payload rules of reference 4.1.

:func:`parse_service_template` applies, in the reference's order, the rules that need nothing
but the payload: conversion (400), the section the endpoint requires (400), duplicates in the
payload (406), a missing version on a policy type or policy (406) and the
``tosca_definitions_version`` (406). The rules that need the store (unchanged content,
references) are in :mod:`references` and :mod:`catalog`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import Enum
from typing import Any

from ..web.errors import BadRequest, NotAcceptable
from . import fields
from .errors import invalid_items, item_line
from .model import DEFINITIONS_VERSION, TEMPLATE_NAME, TEMPLATE_VERSION, TYPE_KINDS, Entity, Kind
from .request_bodies import ANY_ITEM, invalid_body
from .versions import NULL_VERSION, check_version, parse_reference

EMPTY_CONCEPTS = "An incoming list of concepts must have at least one entry"

REPEATABLE_MAPS = frozenset(
    {
        *((kind.section,) for kind in TYPE_KINDS),
        ("topology_template", "node_templates"),
        ("topology_template", "policies", ANY_ITEM),
    }
)
"""The concept maps, where a repeated key is judged by the duplicate rule instead of refused."""


class Section(Enum):
    """What an endpoint requires the template to carry (reference 4.1 step 3)."""

    POLICY_TYPES = "policy_types"
    POLICIES = "policies"
    NODE_TEMPLATES = "node_templates"


@dataclass(frozen=True)
class ServiceTemplate:
    """The entities of one request, duplicates collapsed, in payload order per kind."""

    entities: dict[Kind, list[Entity]]

    def of(self, kind: Kind) -> list[Entity]:
        return self.entities.get(kind, [])

    def __iter__(self) -> Iterator[Entity]:
        for kind in Kind:
            yield from self.of(kind)


def parse_service_template(raw: Any, section: Section) -> ServiceTemplate:
    if not isinstance(raw, dict):
        raise invalid_body("the body must be a TOSCA service template (an object)")
    candidates = _convert(raw)
    _require(section, raw, candidates)
    entities = {kind: _collapse_duplicates(kind, items) for kind, items in candidates.items()}
    _require_versions(entities)
    _require_definitions_version(raw)
    return ServiceTemplate(entities)


def _convert(raw: dict[str, Any]) -> dict[Kind, list[Entity]]:
    converted: dict[Kind, list[Entity]] = {kind: [] for kind in Kind}
    for kind in TYPE_KINDS:
        for key, value in _concepts(raw, kind.section):
            converted[kind].append(_type(kind, key, value))
    topology = fields.mapping(raw, "topology_template")
    if topology is not None:
        for key, value in _concepts(topology, "node_templates"):
            converted[Kind.NODE_TEMPLATE].append(_node_template(key, value))
        for key, value in _policy_entries(topology):
            converted[Kind.POLICY].append(_policy(key, value))
    return converted


def _concepts(container: dict[str, Any], section: str) -> list[tuple[str, Any]]:
    concepts = fields.mapping(container, section)
    if concepts is None:
        return []
    if not concepts:
        raise BadRequest(EMPTY_CONCEPTS)
    return [*concepts.items(), *getattr(concepts, "repeats", [])]


def _policy_entries(topology: dict[str, Any]) -> list[tuple[str, Any]]:
    """``policies`` is a list of maps, each normally holding one ``name: policy`` entry."""
    policies = topology.get("policies")
    if policies is None:
        return []
    if not isinstance(policies, list):
        raise fields.invalid("policies", policies, "is not a list")
    entries: list[tuple[str, Any]] = []
    for item in policies:
        if not isinstance(item, dict):
            raise fields.invalid("policies", item, "is not a map")
        entries.extend([*item.items(), *getattr(item, "repeats", [])])
    if not entries:
        raise BadRequest(EMPTY_CONCEPTS)
    return entries


def _identify(key: str, value: Any) -> tuple[str, str]:
    """Name and version from the map key and the entity's own fields (reference 2.2)."""
    if not isinstance(value, dict):
        raise fields.invalid(key, value, "is not a map")
    reference = parse_reference(key)
    version = value.get("version")
    if version is not None:
        check_version(version)
    else:
        version = reference.version or NULL_VERSION
    key_text = f"{reference.name}:{reference.version or version}"
    if value.get("name") is not None and value["name"] != reference.name:
        raise _key_mismatch(key_text, reference.name, value["name"])
    if reference.version is not None and version != reference.version:
        raise _key_mismatch(key_text, reference.version, version)
    return reference.name, version


def _key_mismatch(key: str, key_field: object, entity_field: object) -> BadRequest:
    return BadRequest(
        f"Key {key} field {key_field} does not match the value {entity_field} in the concept field"
    )


def _derived_from(value: dict[str, Any]) -> str | None:
    derived_from = fields.text(value, "derived_from")
    if derived_from:
        parse_reference(derived_from, "derived_from")
    return derived_from or None


def _type(kind: Kind, key: str, value: Any) -> Entity:
    name, version = _identify(key, value)
    body: dict[str, Any] = {
        "name": name,
        "version": version,
        "derived_from": _derived_from(value),
        "metadata": fields.mapping(value, "metadata"),
        "description": fields.text(value, "description"),
        "properties": fields.properties(value),
    }
    if kind is Kind.DATA_TYPE:
        body["constraints"] = fields.constraints(value)
    if kind is Kind.NODE_TYPE:
        body["requirements"] = value.get("requirements")
    if kind is Kind.POLICY_TYPE:
        # Spec 2.4 returns them on GET (the reference drops them; the spec wins, reference 3.1).
        body["targets"] = fields.names(value, "targets")
        body["triggers"] = fields.mapping(value, "triggers")
    return Entity(kind, name, version, fields.without_nones(body))


def _policy(key: str, value: Any) -> Entity:
    name, version = _identify(key, value)
    body = {
        "type": fields.type_of(value),
        "type_version": fields.type_version_of(value, required=True),
        "name": name,
        "version": version,
        "derived_from": _derived_from(value),
        "metadata": _policy_metadata(value, name, version),
        "description": fields.text(value, "description"),
        "properties": fields.mapping(value, "properties"),
    }
    return Entity(Kind.POLICY, name, version, fields.without_nones(body))


def _policy_metadata(value: dict[str, Any], name: str, version: str) -> dict[str, Any]:
    """policy-id and policy-version are the service's to set; metadata-set names lose stray quotes."""
    metadata = dict(fields.mapping(value, "metadata") or {})
    for field in ("metadataSetName", "metadataSetVersion"):
        if isinstance(metadata.get(field), str):
            metadata[field] = metadata[field].strip().strip("\"'")
    metadata["policy-id"] = name
    metadata["policy-version"] = version
    return metadata


def _node_template(key: str, value: Any) -> Entity:
    name, version = _identify(key, value)
    body = {
        "type": fields.type_of(value),
        "type_version": fields.type_version_of(value, required=True),
        "name": name,
        "version": version,
        "derived_from": _derived_from(value),
        "metadata": fields.mapping(value, "metadata"),
        "description": fields.text(value, "description"),
        "properties": fields.mapping(value, "properties"),
        "requirements": value.get("requirements"),
        "capabilities": value.get("capabilities"),
    }
    return Entity(Kind.NODE_TEMPLATE, name, version, fields.without_nones(body))


def _require(section: Section, raw: dict[str, Any], candidates: dict[Kind, list[Entity]]) -> None:
    if section is Section.POLICY_TYPES and not candidates[Kind.POLICY_TYPE]:
        raise BadRequest("no policy types specified on service template")
    if section is Section.POLICIES:
        if raw.get("topology_template") is None:
            raise BadRequest("topology template not specified on service template")
        if not candidates[Kind.POLICY]:
            raise BadRequest("no policies specified on topology template of service template")
    if section is Section.NODE_TEMPLATES and not candidates[Kind.NODE_TEMPLATE]:
        raise BadRequest("node templates not present on the service template")


def _collapse_duplicates(kind: Kind, entities: Iterable[Entity]) -> list[Entity]:
    """Identical repeats collapse; two different entities under one name:version are refused."""
    unique: dict[tuple[str, str], Entity] = {}
    for entity in entities:
        seen = unique.setdefault(entity.key, entity)
        if seen.body != entity.body:
            raise NotAcceptable(f"duplicate {kind.label} {entity.id} found in the payload")
    return list(unique.values())


def _require_versions(entities: dict[Kind, list[Entity]]) -> None:
    for kind in (Kind.POLICY_TYPE, Kind.POLICY):
        if any(entity.version == NULL_VERSION for entity in entities[kind]):
            raise invalid_items([item_line("version", NULL_VERSION, "is null")])


def _require_definitions_version(raw: dict[str, Any]) -> None:
    given = raw.get("tosca_definitions_version")
    if given is not None and given != DEFINITIONS_VERSION:
        template = f"{TEMPLATE_NAME}:{TEMPLATE_VERSION}"
        raise invalid_items(
            [item_line("service template", template, "does not equal existing service template")]
        )
