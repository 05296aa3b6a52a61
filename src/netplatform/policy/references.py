"""Reference rules over the store and the payload together (reference 4.1 step 8).

Parents, property data types, the policy type of each policy and the node type of each node
template must exist, in the payload or in the store; no type may be its own ancestor. Every
problem found is reported at once (one leaf line each). Entities read here are share-locked,
so a concurrent delete cannot remove a type a new entity is about to depend on.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ..web.errors import NotAcceptable
from .errors import invalid_items, item_line
from .model import Entity, Kind, is_predefined_data_type, is_root, newest
from .repository import Repository
from .tosca import ServiceTemplate
from .versions import Reference

PARENTED_KINDS = (Kind.DATA_TYPE, Kind.POLICY_TYPE, Kind.NODE_TYPE)
PROPERTY_CHECKED_KINDS = (Kind.DATA_TYPE, Kind.POLICY_TYPE)


class KnownEntities:
    """The payload's entities, and the store's, fetched by name when first asked for."""

    def __init__(self, repository: Repository, payload: Iterable[Entity] = (), *, lock: bool = False) -> None:
        self.repository = repository
        self.lock = lock
        self._versions: dict[tuple[Kind, str], dict[str, Entity]] = {}
        self._fetched: set[tuple[Kind, str]] = set()
        for entity in payload:
            self._versions.setdefault((entity.kind, entity.name), {})[entity.version] = entity

    def fetch(self, kind: Kind, names: Iterable[str]) -> None:
        """Load the stored versions of ``names`` in one query (payload entities take precedence)."""
        missing = {name for name in names if (kind, name) not in self._fetched}
        for entity in self.repository.named(kind, missing, share_lock=self.lock):
            self._versions.setdefault((kind, entity.name), {}).setdefault(entity.version, entity)
        self._fetched.update((kind, name) for name in missing)

    def remember(self, kind: Kind, stored: Iterable[Entity]) -> None:
        """Take ``stored`` as every stored version of their names (no query for those names)."""
        for entity in stored:
            self._versions.setdefault((kind, entity.name), {}).setdefault(entity.version, entity)
            self._fetched.add((kind, entity.name))

    def versions(self, kind: Kind, name: str) -> dict[str, Entity]:
        self.fetch(kind, [name])
        return self._versions.get((kind, name), {})

    def resolve(self, kind: Kind, reference: Reference) -> Entity | None:
        """The exact version named, or the newest one when the reference names no version."""
        versions = self.versions(kind, reference.name)
        if reference.version is not None:
            return versions.get(reference.version)
        return newest(versions.values())

    def lineage(self, kind: Kind, entity: Entity) -> Iterator[Entity]:
        """Parent, grandparent, ... up to a ``.Root`` or a missing parent.

        A loop ends the walk after the first repeated entity (yielded, so a caller can see that
        the entity is its own ancestor); stored data has no loops, a payload may.
        """
        seen = {entity.key}
        current = entity
        while (parent := current.parent) is not None and not is_root(parent.name):
            found = self.resolve(kind, parent)
            if found is None:
                return
            yield found
            if found.key in seen:
                return
            seen.add(found.key)
            current = found


def check_references(template: ServiceTemplate, repository: Repository) -> None:
    known = KnownEntities(repository, template, lock=True)
    _prefetch(template, known)
    problems: list[str] = []
    for kind in PARENTED_KINDS:
        for entity in template.of(kind):
            problems.extend(_parent_problems(kind, entity, known))
    for kind in PROPERTY_CHECKED_KINDS:
        for entity in template.of(kind):
            problems.extend(_data_type_problems(entity, known))
    for policy in template.of(Kind.POLICY):
        policy_type = policy.type_reference
        if policy_type is not None and known.resolve(Kind.POLICY_TYPE, policy_type) is None:
            problems.append(item_line("policy type", policy_type, "not found"))
    if problems:
        raise invalid_items(list(dict.fromkeys(problems)))
    for node_template in template.of(Kind.NODE_TEMPLATE):
        node_type = node_template.type_reference
        if node_type is not None and known.resolve(Kind.NODE_TYPE, node_type) is None:
            raise NotAcceptable(
                f"NODE_TYPE PfConceptKey(name={node_type.name}, version={node_type.version}) "
                f"for toscaNodeTemplate {node_template.id} does not exist"
            )


def _prefetch(template: ServiceTemplate, known: KnownEntities) -> None:
    """One query per kind for everything the payload names directly."""
    for kind in PARENTED_KINDS:
        known.fetch(kind, {parent.name for entity in template.of(kind) if (parent := entity.parent)})
    known.fetch(
        Kind.DATA_TYPE,
        {
            ref.name
            for kind in PROPERTY_CHECKED_KINDS
            for entity in template.of(kind)
            for ref in entity.property_types()
        },
    )
    for kind, type_kind in ((Kind.POLICY, Kind.POLICY_TYPE), (Kind.NODE_TEMPLATE, Kind.NODE_TYPE)):
        known.fetch(type_kind, {ref.name for entity in template.of(kind) if (ref := entity.type_reference)})


def _parent_problems(kind: Kind, entity: Entity, known: KnownEntities) -> list[str]:
    parent = entity.parent
    if parent is None or is_root(parent.name):
        return []
    if known.resolve(kind, parent) is None:
        return [item_line("parent", parent, "not found")]
    if _is_own_ancestor(kind, entity, known):
        return [item_line("entity type", entity.id, "ancestor of itself")]
    return []


def _is_own_ancestor(kind: Kind, entity: Entity, known: KnownEntities) -> bool:
    return any(ancestor.key == entity.key for ancestor in known.lineage(kind, entity))


def _data_type_problems(entity: Entity, known: KnownEntities) -> list[str]:
    return [
        item_line("data type", reference, "not found")
        for reference in entity.property_types()
        if not is_predefined_data_type(reference.name) and known.resolve(Kind.DATA_TYPE, reference) is None
    ]
