"""Policy types and policies: create, read and delete with the version rules of spec 4.4.

The listings and reads of policy types, and the policy listings, answer rendered bodies from
the store's cache of the current generation (:meth:`~.policy_store.PolicyStore.cached`): they
are read far more often than written, and rendering the whole catalog is most of their cost.
They are coroutines: a cached answer is served without a worker thread.

Each operation is one transaction. A create re-runs its rules when another instance stored
one of its entities first (:meth:`~.policy_store.PolicyStore.write`), so two concurrent
creates of the same name:version store exactly one row: the second sees it and answers as a
re-post does (identical content: success; different content: 406).
"""

from __future__ import annotations

from typing import Any

from ..web.errors import Conflict, NotAcceptable, NotFound
from .answer_templates import echo, envelope, policies_document, policy_types_document
from .errors import invalid_items, invalid_property_values, item_line
from .media_types import BodyFormat, Rendered, encode
from .model import Entity, Kind, newest, newest_per_name
from .policy_store import PolicyStore
from .property_validation import policy_problems
from .references import KnownEntities, check_references
from .repository import Repository
from .tosca import Section, ServiceTemplate, parse_service_template
from .versions import Reference

Document = dict[str, Any]


class Catalog:
    def __init__(self, store: PolicyStore) -> None:
        self.store = store

    # --- create -------------------------------------------------------------------------------

    def create(self, raw: Any, section: Section, *, policy_type: Reference | None = None) -> Document:
        """POST of a service template; ``policy_type`` scopes a policy POST to one type version."""
        template = parse_service_template(raw, section)

        def store(repository: Repository) -> None:
            new = new_entities(template, repository)
            check_references(template, repository)
            if policy_type is not None:
                _require_policy_type(template, policy_type)
            check_policy_properties(template, repository)
            repository.insert(new)

        self.store.write(store)
        return echo(template)

    # --- policy types -------------------------------------------------------------------------

    async def policy_types(self, form: BodyFormat) -> Rendered:
        """Every policy type, one per name (its newest version), with ancestors and data types."""

        def answer(repository: Repository) -> Rendered:
            stored = repository.all(Kind.POLICY_TYPE)
            known = KnownEntities(repository)
            known.remember(Kind.POLICY_TYPE, stored)
            return encode(policy_types_document(newest_per_name(stored), known), form)

        return await self.store.cached(("policy types", form), answer)

    async def policy_type_versions(self, name: str, form: BodyFormat) -> Rendered:
        """Every stored version of one policy type (none collapsed: keyed ``name:version``)."""

        def answer(repository: Repository) -> Rendered:
            versions = repository.named(Kind.POLICY_TYPE, [name])
            if not versions:
                raise NotFound(f"policy types for {name}:null do not exist")
            known = KnownEntities(repository)
            known.remember(Kind.POLICY_TYPE, versions)
            return encode(policy_types_document(versions, known), form)

        return await self.store.cached(("policy type versions", name, form), answer)

    async def policy_type(self, name: str, version: str | None, form: BodyFormat) -> Rendered:
        """One version of a policy type; ``None`` selects the newest."""

        def answer(repository: Repository) -> Rendered:
            known = KnownEntities(repository)
            found = known.resolve(Kind.POLICY_TYPE, Reference(name, version))
            if found is None:
                raise NotFound(f"policy types for {name}:{version or 'null'} do not exist")
            return encode(policy_types_document([found], known), form)

        return await self.store.cached(("policy type", name, version, form), answer)

    def delete_policy_type(self, name: str, version: str) -> Document:
        def delete(repository: Repository) -> Entity:
            found = repository.one(Kind.POLICY_TYPE, name, version, lock=True)
            if found is None:
                raise NotFound(f"policy type {name}:{version} not found")
            if found.preloaded:
                raise Conflict(f"policy type {found.id} is pre-defined and cannot be deleted")
            children = [
                child for child in repository.children(Kind.POLICY_TYPE, [name]) if child.key != found.key
            ]
            if children:
                child = min(children, key=lambda entity: entity.key)
                raise Conflict(
                    f"policy type {found.id} is in use, it is referenced in policy type {child.id}"
                )
            policy = repository.first_policy_of_type(name, version)
            if policy is not None:
                raise Conflict(f"policy type {found.id} is in use, it is referenced in policy {policy.id}")
            repository.delete(found)
            return found

        return envelope(types=[self.store.write(delete)])

    # --- policies -----------------------------------------------------------------------------

    async def policies(self, form: BodyFormat, *, referenced: bool) -> Rendered:
        def answer(repository: Repository) -> Rendered:
            stored = repository.all(Kind.POLICY)
            if not stored:
                raise NotFound("No policies found")
            return encode(policies_document(stored, KnownEntities(repository), referenced=referenced), form)

        return await self.store.cached(("policies", referenced, form), answer)

    def policy(self, name: str, version: str | None, *, referenced: bool) -> Document:
        """One version of a policy (any type); ``None`` selects the newest."""

        def read(repository: Repository) -> Document:
            found = _select(repository.named(Kind.POLICY, [name]), version)
            if found is None:
                raise NotFound(f"policies for {name}:{version or 'null'} do not exist")
            return policies_document([found], KnownEntities(repository), referenced=referenced)

        return self.store.read(read)

    async def policies_of_type(
        self, policy_type: Reference, form: BodyFormat, *, referenced: bool
    ) -> Rendered:
        def answer(repository: Repository) -> Rendered:
            found = repository.of_type(Kind.POLICY, policy_type.name, str(policy_type.version))
            if not found:
                raise NotFound(
                    "policies for filter ToscaTypedEntityFilter(name=null, version=null, versionPrefix=null, "
                    f"type={policy_type.name}, typeVersion={policy_type.version}) do not exist"
                )
            return encode(policies_document(found, KnownEntities(repository), referenced=referenced), form)

        return await self.store.cached(("policies of type", policy_type, referenced, form), answer)

    def policy_versions_of_type(self, policy_type: Reference, name: str, *, referenced: bool) -> Document:

        def read(repository: Repository) -> Document:
            found = repository.of_type(Kind.POLICY, policy_type.name, str(policy_type.version), name)
            if not found:
                raise NotFound(f"policies for {name}:null do not exist")
            return policies_document(found, KnownEntities(repository), referenced=referenced)

        return self.store.read(read)

    def policy_of_type(
        self, policy_type: Reference, name: str, version: str | None, *, referenced: bool
    ) -> Document:

        def read(repository: Repository) -> Document:
            candidates = repository.of_type(Kind.POLICY, policy_type.name, str(policy_type.version), name)
            found = _select(candidates, version)
            if found is None:
                raise NotFound(f"policies for {name}:{version or 'null'} do not exist")
            return policies_document([found], KnownEntities(repository), referenced=referenced)

        return self.store.read(read)

    def delete_policy(self, name: str, version: str, *, policy_type: Reference | None = None) -> Document:
        """Delete one policy version; with ``policy_type``, only when it is of that type."""

        def delete(repository: Repository) -> Entity:
            found = repository.one(Kind.POLICY, name, version, lock=True)
            if found is None or (policy_type is not None and found.type_reference != policy_type):
                raise NotFound(f"policy {name}:{version} not found")
            repository.delete(found)
            return found

        return envelope(policies=[self.store.write(delete)])


def new_entities(template: ServiceTemplate, repository: Repository) -> list[Entity]:
    """The payload's entities not yet stored; 406 when one is stored with other content (step 7)."""
    new: list[Entity] = []
    problems: list[str] = []
    for kind in Kind:
        incoming = template.of(kind)
        if not incoming:
            continue
        stored = {
            entity.key: entity for entity in repository.named(kind, {entity.name for entity in incoming})
        }
        for entity in incoming:
            existing = stored.get(entity.key)
            if existing is None:
                new.append(entity)
            elif existing.body != entity.body:
                problems.append(item_line("entity", entity.id, "does not equal existing entity"))
    if problems:
        raise invalid_items(problems)
    return new


def check_policy_properties(template: ServiceTemplate, repository: Repository) -> None:
    """406 when a policy's properties do not fit its type (issue 17), every problem listed."""
    policies = template.of(Kind.POLICY)
    if not policies:
        return
    failures = policy_problems(policies, KnownEntities(repository, template))
    if failures:
        raise invalid_property_values(
            [
                (
                    policy.id,
                    [item_line(problem.item, problem.shown_value, problem.reason) for problem in problems],
                )
                for policy, problems in failures
            ]
        )


def _require_policy_type(template: ServiceTemplate, policy_type: Reference) -> None:
    for policy in template.of(Kind.POLICY):
        if policy.type_reference != policy_type:
            raise NotAcceptable(
                f"policy {policy.id} is not of policy type {policy_type.name}:{policy_type.version}"
            )


def _select(versions: list[Entity], version: str | None) -> Entity | None:
    if version is None:
        return newest(versions)
    return next((entity for entity in versions if entity.version == version), None)
