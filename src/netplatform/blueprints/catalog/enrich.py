"""Enrichment: complete a CBA with the definitions of every type it uses, from the catalog.

The entry template's own type sections are dropped and rebuilt from the stored model types:
each node template's node type (and its ``derived_from`` chain, requirement node types and
relationship types), the data types of every property, the artifact types of every artifact,
the source node types of every resource assignment, and one dynamic data type per workflow
whose components carry mapping files. The result is written as ``Definitions/*_types.json``
plus ``Definitions/resources_definition_types.json`` (the dictionaries the mapping files name),
and the entry definition imports exactly the type files.
"""

from __future__ import annotations

import json
from pathlib import PurePosixPath
from typing import Any, Protocol, TypeVar

from ...web.errors import BadRequest
from ..errors import sub_error
from ..repository.dictionaries import DictionaryRecord
from ..repository.model_types import ModelTypeRecord
from .cba import RESOURCE_DEFINITIONS_PATH, TYPE_SECTIONS, Cba
from .tosca import (
    DYNAMIC_DATA_ROOT,
    LIST_TYPE,
    MAPPING_ARTIFACT_TYPE,
    ROOT_TYPES,
    ArtifactType,
    DataType,
    EntityType,
    ImportDefinition,
    NodeTemplate,
    NodeType,
    Properties,
    PropertyDefinition,
    RelationshipType,
    ResourceDefinition,
    ServiceTemplate,
    Workflow,
    is_simple_property,
    is_simple_type,
    lenient_parse,
    strict_parse,
)

SOURCE_MAPPING: dict[str, str] = {
    "processor-db": "source-db",
    "input": "source-input",
    "default": "source-default",
    "sdnc": "source-rest",
    "aai-data": "source-rest",
    "capability": "source-capability",
    "rest": "source-rest",
    "vault-data": "source-rest",
    "script": "source-capability",
}
"""Dictionary source name -> the node type that describes that source (the dictionaries'
``resourceSourceMappings``, and what enrichment adds for each source a CBA's dictionaries use)."""

ENRICHMENT_SUB_ERROR = sub_error(
    "Error while enriching the CBA package.", "Wrong blueprint definitions or resource definitions."
)
TYPE_FILES = tuple(f"Definitions/{section}.json" for section in TYPE_SECTIONS)
ENTRY_KEY_ORDER = (
    "tosca_definitions_version",
    "description",
    "metadata",
    "imports",
    "dsl_definitions",
    "repositories",
    "topology_template",
)
_SIMPLE_SOURCES = frozenset({"input", "default"})

Kind = TypeVar("Kind", bound=EntityType)


class EnrichmentFailed(BadRequest):
    """A well-formed CBA that cannot be completed from the catalog (400; 503 on enrichandpublish)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, extra={"subErrors": [ENRICHMENT_SUB_ERROR]})


class DefinitionSource(Protocol):
    def model_type(self, name: str) -> ModelTypeRecord | None: ...

    def dictionary(self, name: str) -> DictionaryRecord | None: ...


def enrich(cba: Cba, source: DefinitionSource) -> bytes:
    """The enriched archive, as zip bytes."""
    return _Enricher(cba, source).run()


def is_generated_definition(name: str) -> bool:
    path = PurePosixPath(name)
    return str(path.parent) == "Definitions" and path.name.endswith("_types.json")


class _Enricher:
    def __init__(self, cba: Cba, source: DefinitionSource) -> None:
        self.cba = cba
        self.source = source
        self.node_types: dict[str, NodeType] = {}
        self.data_types: dict[str, DataType] = {}
        self.artifact_types: dict[str, ArtifactType] = {}
        self.relationship_types: dict[str, RelationshipType] = {}
        self.dictionaries: dict[str, ResourceDefinition] = {}
        self.enriched_mapping_files: set[str] = set()

    # --- the walk --------------------------------------------------------------------------

    def run(self) -> bytes:
        if not any(name.startswith("Definitions/") for name in self.cba.archive.names):
            raise EnrichmentFailed("couldn't get definition file under path(Definitions)")
        template = self.cba.entry.model_copy(deep=True)
        topology = template.topology_template
        node_templates = (topology.node_templates or {}) if topology else {}
        if topology is not None:
            self.properties(topology.inputs)
            for node_template in node_templates.values():
                self.node_template(node_template)
            for relationship in (topology.relationship_templates or {}).values():
                self.relationship_type(relationship.type)
            for name, workflow in (topology.workflows or {}).items():
                self.workflow(name, workflow, node_templates)
        definitions = self.resource_definitions(node_templates)
        return self.cba.archive.rewritten(
            drop=is_generated_definition,
            add={
                **self.type_files(),
                RESOURCE_DEFINITIONS_PATH: _json_bytes({name: d.dump() for name, d in definitions.items()}),
                self.cba.meta.entry_definitions: _json_bytes(self.entry_document(template)),
            },
        )

    def fetch(self, model: type[Kind], kind: str, name: str) -> Kind:
        record = self.source.model_type(name)
        if record is None or record.definition_type != kind:
            raise EnrichmentFailed(f"failed to get model definition ({name}) from repo")
        return strict_parse(model, record.definition, f"model type ({name})")

    def node_type(self, name: str) -> NodeType:
        if name in self.node_types:
            return self.node_types[name]
        node_type = self.fetch(NodeType, "node_type", name)
        self.node_types[name] = node_type
        if node_type.derived_from and node_type.derived_from not in ROOT_TYPES:
            self.node_type(node_type.derived_from)
        self.properties(node_type.attributes)
        self.properties(node_type.properties)
        for capability in (node_type.capabilities or {}).values():
            self.properties(capability.properties)
        for interface in (node_type.interfaces or {}).values():
            self.properties(interface.inputs)
            for operation in (interface.operations or {}).values():
                self.properties(operation.inputs)
                self.properties(operation.outputs)
        for requirement_name, requirement in (node_type.requirements or {}).items():
            if requirement.node is None:
                continue
            self.node_type(requirement.node)
            if not requirement.relationship:
                raise EnrichmentFailed(
                    f"couldn't get relationship name for the NodeType({name}) Requirement({requirement_name})"
                )
            self.relationship_type(requirement.relationship)
        return node_type

    def relationship_type(self, name: str) -> None:
        if name in ROOT_TYPES or name in self.relationship_types:
            return
        relationship = self.fetch(RelationshipType, "relationship_type", name)
        self.relationship_types[name] = relationship
        if relationship.derived_from:
            self.relationship_type(relationship.derived_from)
        self.properties(relationship.attributes)
        self.properties(relationship.properties)

    def data_type(self, name: str) -> None:
        if name in ROOT_TYPES or name in self.data_types:
            return
        data_type = self.fetch(DataType, "data_type", name)
        self.data_types[name] = data_type
        if data_type.derived_from:
            self.data_type(data_type.derived_from)
        self.properties(data_type.properties)

    def artifact_type(self, name: str) -> None:
        if name in ROOT_TYPES or name in self.artifact_types:
            return
        artifact_type = self.fetch(ArtifactType, "artifact_type", name)
        self.artifact_types[name] = artifact_type
        if artifact_type.derived_from:
            self.artifact_type(artifact_type.derived_from)
        self.properties(artifact_type.properties)

    def properties(self, properties: Properties | None) -> None:
        for name, prop in (properties or {}).items():
            self.property(name, prop)

    def property(self, name: str, prop: PropertyDefinition) -> None:
        entry_type = prop.entry_schema.type if prop.entry_schema else None
        if prop.type == LIST_TYPE:
            if entry_type is None:
                raise EnrichmentFailed(f"Entry Schema is missing for collection property({name})")
            if not is_simple_type(entry_type):
                self.data_type(entry_type)
        elif not is_simple_type(prop.type):
            self.data_type(prop.type)
        elif entry_type is not None and not is_simple_type(entry_type):
            self.data_type(entry_type)  # a map of a data type: its entries need the definition too

    def node_template(self, template: NodeTemplate) -> None:
        self.node_type(template.type)
        for artifact in (template.artifacts or {}).values():
            self.artifact_type(artifact.type)
            if artifact.type == MAPPING_ARTIFACT_TYPE:
                self.mapping_file(artifact.file)

    def mapping_file(self, path: str) -> None:
        if path in self.enriched_mapping_files:
            return
        self.enriched_mapping_files.add(path)
        if not self.cba.archive.has(path):
            raise EnrichmentFailed(f"couldn't find file ({path})")
        source_node_types: list[str] = []
        for assignment in self.cba.assignments(path):
            source = assignment.dictionary_source or ""
            source_node_type = SOURCE_MAPPING.get(source)
            if source_node_type is None:
                raise EnrichmentFailed(f"failed to get source({source}) mapping")
            if source_node_type not in source_node_types:
                source_node_types.append(source_node_type)
            prop = assignment.property
            if source in _SIMPLE_SOURCES and (prop is None or is_simple_property(prop)):
                continue
            if prop is not None:
                self.property(assignment.name, prop)
            definition = self.dictionary(assignment.dictionary_name or "")
            source_template = definition.sources.get(source)
            if source_template is None:
                raise EnrichmentFailed(
                    f"failed to get assigned dictionarySource({source}) "
                    f"from resourceDefinition({assignment.dictionary_name})"
                )
            self.node_type(source_template.type)
        for name in source_node_types:
            self.node_type(name)

    def dictionary(self, name: str) -> ResourceDefinition:
        if name not in self.dictionaries:
            record = self.source.dictionary(name)
            if record is None:
                raise EnrichmentFailed(f"failed to get resource dictionary ({name}) from repo")
            self.dictionaries[name] = lenient_parse(
                ResourceDefinition, record.definition, f"dictionary ({name})"
            )
        return self.dictionaries[name]

    def workflow(self, name: str, workflow: Workflow, node_templates: dict[str, NodeTemplate]) -> None:
        dynamic_input = f"{name}-properties"
        inputs = {key: value for key, value in (workflow.inputs or {}).items() if key != dynamic_input}
        self.properties(inputs)
        self.properties(workflow.outputs)
        assignments = [
            assignment
            for target in self.workflow_targets(name, workflow, node_templates)
            for assignment in self.cba.template_assignments(node_templates[target])
        ]
        if assignments:
            dynamic_type = f"dt-{name}-properties"
            inputs[dynamic_input] = PropertyDefinition.model_validate(
                {
                    "description": f"Dynamic PropertyDefinition for workflow({name}).",
                    "type": dynamic_type,
                    "required": True,
                }
            )
            self.data_types[dynamic_type] = DataType.model_validate(
                {
                    "description": f"Dynamic DataType definition for workflow({name}).",
                    "version": "1.0.0",
                    "derived_from": DYNAMIC_DATA_ROOT,
                    "properties": {a.name: a.property for a in assignments if a.property is not None},
                }
            )
        workflow.inputs = inputs

    def workflow_targets(
        self, name: str, workflow: Workflow, node_templates: dict[str, NodeTemplate]
    ) -> list[str]:
        steps = workflow.steps or {}
        if not steps:
            raise EnrichmentFailed(f"could't get steps for workflow({name})")
        first_target = next(iter(steps.values())).target or ""
        first = _node_template_named(node_templates, first_target, name)
        derived_from = self.node_type(first.type).derived_from or ""
        if derived_from.lower().startswith("tosca.nodes.component"):
            targets = [step.target or "" for step in steps.values()]
        elif derived_from.lower().startswith("tosca.nodes.workflow"):
            dependencies = (first.properties or {}).get("dependency-node-templates")
            if not isinstance(dependencies, list) or not all(isinstance(d, str) for d in dependencies):
                raise EnrichmentFailed("couldn't get property(dependency-node-templates)")
            targets = dependencies
        else:
            raise EnrichmentFailed(
                f"couldn't execute workflow({name}) step mapped to node template({first_target}) "
                f"derived from({derived_from})"
            )
        for target in targets:
            _node_template_named(node_templates, target, name)
        return targets

    def resource_definitions(self, node_templates: dict[str, NodeTemplate]) -> dict[str, ResourceDefinition]:
        names = sorted(
            {
                assignment.dictionary_name
                for template in node_templates.values()
                for assignment in self.cba.template_assignments(template)
                if assignment.dictionary_name
            }
        )
        definitions = {name: self.dictionary(name) for name in names}
        for definition in definitions.values():
            for source in definition.sources.values():
                self.node_type(source.type)
        return definitions

    # --- the output ------------------------------------------------------------------------

    def type_files(self) -> dict[str, bytes]:
        sections: dict[str, dict[str, EntityType]] = {
            "data_types": dict(self.data_types),
            "relationship_types": dict(self.relationship_types),
            "artifact_types": dict(self.artifact_types),
            "node_types": dict(self.node_types),
            "policy_types": {},
        }
        return {
            f"Definitions/{section}.json": _json_bytes(
                {section: {name: types[name].dump() for name in sorted(types)}}
            )
            for section, types in sections.items()
        }

    def entry_document(self, template: ServiceTemplate) -> dict[str, Any]:
        kept_imports = [i for i in template.imports or [] if not i.file.endswith("_types.json")]
        template.imports = [*kept_imports, *(ImportDefinition(file=path) for path in TYPE_FILES)]
        for section in TYPE_SECTIONS:
            setattr(template, section, None)
        document = template.dump()
        return {key: document[key] for key in ENTRY_KEY_ORDER if key in document}


def _node_template_named(node_templates: dict[str, NodeTemplate], name: str, workflow: str) -> NodeTemplate:
    template = node_templates.get(name)
    if template is None:
        raise EnrichmentFailed(f"couldn't get node template ({name}) for workflow({workflow})")
    return template


def _json_bytes(document: Any) -> bytes:
    return json.dumps(document, indent=2).encode()
