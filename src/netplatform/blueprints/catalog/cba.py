"""A CBA opened for reading: its TOSCA.meta, its entry service template, its mapping files."""

from __future__ import annotations

from .archive import Archive, MalformedArchive
from .tosca import (
    MAPPING_ARTIFACT_TYPE,
    NodeTemplate,
    ResourceAssignment,
    ResourceDefinition,
    ServiceTemplate,
    strict_parse,
)
from .toscameta import ToscaMeta, read_tosca_meta

TYPE_SECTIONS = ("data_types", "relationship_types", "artifact_types", "node_types", "policy_types")
RESOURCE_DEFINITIONS_PATH = "Definitions/resources_definition_types.json"


class Cba:
    """The archive plus what every operation needs first: the meta and the entry template.

    ``entry`` is the entry definition as written (imports not followed), with the TOSCA.meta
    values written over its metadata; :meth:`resolved` follows the imports.
    """

    def __init__(self, archive: Archive) -> None:
        self.archive = archive
        self.meta: ToscaMeta = read_tosca_meta(archive)
        self.entry = self._template(self.meta.entry_definitions)
        self.entry.metadata = {**(self.entry.metadata or {}), **self.meta.as_template_metadata()}
        self._assignments: dict[str, list[ResourceAssignment]] = {}

    def _template(self, path: str) -> ServiceTemplate:
        return strict_parse(ServiceTemplate, self.archive.read_json(path), path)

    @property
    def workflow_names(self) -> list[str]:
        topology = self.entry.topology_template
        return list((topology.workflows or {}) if topology else {})

    def resolved(self) -> ServiceTemplate:
        """The entry template with the type sections and metadata of its imports merged in."""
        template = self.entry.model_copy(deep=True)
        for imported in self.entry.imports or []:
            if not self.archive.has(imported.file):
                raise MalformedArchive(
                    f"couldn't find file ({imported.file}) imported by the entry definition"
                )
            part = self._template(imported.file)
            for section in TYPE_SECTIONS:
                merged = {**(getattr(part, section) or {}), **(getattr(template, section) or {})}
                setattr(template, section, merged or None)
            template.metadata = {**(part.metadata or {}), **(template.metadata or {})}
        return template

    def assignments(self, path: str) -> list[ResourceAssignment]:
        """The resource assignments of a mapping file (read once)."""
        if path not in self._assignments:
            data = self.archive.read_json(path)
            self._assignments[path] = strict_parse(list[ResourceAssignment], data, f"mapping file {path}")
        return self._assignments[path]

    def mapping_files(self, template: NodeTemplate) -> list[str]:
        return [
            artifact.file
            for artifact in (template.artifacts or {}).values()
            if artifact.type == MAPPING_ARTIFACT_TYPE
        ]

    def template_assignments(self, template: NodeTemplate) -> list[ResourceAssignment]:
        """Every assignment of the mapping files of one node template (files present only)."""
        return [
            assignment
            for path in self.mapping_files(template)
            if self.archive.has(path)
            for assignment in self.assignments(path)
        ]

    def resource_definitions(self) -> dict[str, ResourceDefinition] | None:
        if not self.archive.has(RESOURCE_DEFINITIONS_PATH):
            return None
        data = self.archive.read_json(RESOURCE_DEFINITIONS_PATH)
        return strict_parse(dict[str, ResourceDefinition], data, RESOURCE_DEFINITIONS_PATH)
