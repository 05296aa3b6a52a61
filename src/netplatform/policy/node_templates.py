"""Node templates (metadata sets): policy-type implementation data a policy may name.

A policy names one in its metadata (``metadataSetName``/``metadataSetVersion``); that name is
not checked when the policy is created, but a node template a policy names cannot be deleted.
"""

from __future__ import annotations

from typing import Any

from ..web.errors import Conflict, NotAcceptable, NotFound
from .answer_templates import echo, envelope
from .catalog import Catalog, Document, new_entities
from .model import Entity, Kind, in_listing_order
from .references import check_references
from .repository import Repository
from .tosca import Section, ServiceTemplate, parse_service_template


class NodeTemplates:
    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog

    def create(self, raw: Any) -> Document:
        return self.catalog.create(raw, Section.NODE_TEMPLATES)

    def update(self, raw: Any) -> Document:
        """Replace stored node templates (each must exist); node types in the payload are added."""
        template = parse_service_template(raw, Section.NODE_TEMPLATES)

        def replace(repository: Repository) -> None:
            types = ServiceTemplate(
                {kind: template.of(kind) for kind in Kind if kind is not Kind.NODE_TEMPLATE}
            )
            new = new_entities(types, repository)
            for node_template in template.of(Kind.NODE_TEMPLATE):
                if repository.one(Kind.NODE_TEMPLATE, *node_template.key, lock=True) is None:
                    raise NotAcceptable(
                        f"node template {node_template.name} version {node_template.version} "
                        "does not exist in database"
                    )
            check_references(template, repository)
            repository.insert(new)
            for node_template in template.of(Kind.NODE_TEMPLATE):
                repository.replace_body(node_template)

        self.catalog.store.write(replace)
        return echo(template)

    def all(self) -> list[dict[str, Any]]:
        def read(repository: Repository) -> list[dict[str, Any]]:
            return [entity.body for entity in in_listing_order(repository.all(Kind.NODE_TEMPLATE))]

        return self.catalog.store.read(read)

    def one(self, name: str, version: str) -> list[dict[str, Any]]:
        """A list of zero or one node template (the reference answers this form as a list)."""

        def read(repository: Repository) -> list[dict[str, Any]]:
            found = repository.one(Kind.NODE_TEMPLATE, name, version)
            return [found.body] if found else []

        return self.catalog.store.read(read)

    def delete(self, name: str, version: str) -> Document:
        def delete(repository: Repository) -> Entity:
            found = repository.one(Kind.NODE_TEMPLATE, name, version, lock=True)
            if found is None:
                raise NotFound(f"node template {name}:{version} not found")
            policy = repository.first_policy_naming_metadata_set(name, version)
            if policy is not None:
                raise Conflict(
                    "Node template is in use, it is referenced in Tosca Policy "
                    f"{policy.name} version {policy.version}"
                )
            repository.delete(found)
            return found

        return envelope(node_templates=[self.catalog.store.write(delete)])
