"""Validation before publishing: does the CBA hold together with its own definitions?

It runs on the entry template with its imports merged (after enrichment, the type files), and
collects every problem instead of stopping at the first, so one answer lists them all:
``failed in blueprint validation : `` then one ``<kind> : <path> : <message>`` per line.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from ...web.errors import BadRequest
from ..errors import sub_error
from .cba import Cba
from .expansion import ExpansionLimits, expansion_problems
from .steps import ACYCLIC, step_cycle, unknown_edges
from .tosca import (
    ARTIFACT_IMPLEMENTATION,
    ARTIFACT_ROOT,
    COMPLEX_TYPES,
    DATA_ROOT,
    DYNAMIC_DATA_ROOT,
    LIST_TYPE,
    MAPPING_ARTIFACT_TYPE,
    NODE_ROOT,
    NodeTemplate,
    NodeType,
    Properties,
    PropertyDefinition,
    ResourceAssignment,
    ServiceTemplate,
    is_simple_type,
)

PUBLISH_SUB_ERROR = sub_error(
    "Error in Publishing CBA.", "Wrong CBA provided, please verify and enrich your CBA."
)

NODE_PARENTS = frozenset(
    {
        NODE_ROOT,
        "tosca.nodes.Workflow",
        "tosca.nodes.Component",
        "tosca.nodes.Vnf",
        "tosca.nodes.ResourceSource",
        *(
            f"tosca.nodes.component.{kind}"
            for kind in ("Java", "Bundle", "Script", "Python", "Jython", "JavaScript")
        ),
    }
)
CAPABILITY_TYPES = frozenset(
    f"tosca.capabilities.{name}"
    for name in (
        *("Root", "Node", "Compute", "Network", "Storage", "Attachment", "OperatingSystem"),
        *("Endpoint", "Endpoint.Public", "Endpoint.Admin", "Endpoint.Database", "network.Bindable"),
        *("Content", "Mapping", "Netconf", "Restconf", "Ssh", "Sftp"),
    )
)
REQUIREMENT_RELATIONSHIPS = frozenset(
    f"tosca.relationships.{name}"
    for name in ("Root", "DependsOn", "HostedOn", "ConnectsTo", "AttachesTo", "RoutesTo")
)
STEP_TARGET_PARENTS = frozenset({"tosca.nodes.Workflow", "tosca.nodes.Component"})
EXPRESSION_KEYS = frozenset(
    {
        "get_input",
        "get_attribute",
        "get_property",
        "get_artifact",
        "get_operation_output",
        "get_nodes_of_type",
    }
)
_METADATA_CHECKS = (
    ("template_name", "name"),
    ("template_version", "version"),
    ("template_tags", "tags"),
    ("template_author", "author"),
)


class ValidationFailed(BadRequest):
    """A well-formed CBA that does not hold together (400; 503 on enrichandpublish)."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__(
            "failed in blueprint validation : " + "\n".join(problems),
            extra={"subErrors": [PUBLISH_SUB_ERROR]},
        )
        self.problems = problems


def validate(cba: Cba) -> None:
    """Raise :class:`ValidationFailed` listing every problem, or return quietly."""
    problems = _Validator(cba, cba.resolved()).problems()
    if problems:
        raise ValidationFailed(problems)


class _Validator:
    def __init__(self, cba: Cba, template: ServiceTemplate) -> None:
        self.cba = cba
        self.template = template
        self.data_types = template.data_types or {}
        self.node_types = template.node_types or {}
        self.artifact_types = template.artifact_types or {}
        self.found: list[str] = []

    def report(self, kind: str, path: str, message: str) -> None:
        self.found.append(f"{kind} : {path} : {message}")

    def problems(self) -> list[str]:
        self.metadata()
        for name, data_type in self.data_types.items():
            self.properties("data_type", name, data_type.properties)
        for name, artifact_type in self.artifact_types.items():
            self.properties("artifact_type", name, artifact_type.properties)
        for name, node_type in self.node_types.items():
            self.node_type(name, node_type)
        topology = self.template.topology_template
        if topology is not None:
            self.properties("service_template", "topology_template/inputs", topology.inputs)
            for name, node_template in (topology.node_templates or {}).items():
                self.node_template("node_template", name, node_template)
            for name, workflow in (topology.workflows or {}).items():
                self.workflow(name, workflow)
        self.resource_definitions()
        return self.found

    # --- metadata and property definitions ------------------------------------------------

    def metadata(self) -> None:
        metadata = self.template.metadata or {}
        for key, word in _METADATA_CHECKS:
            value = metadata.get(key)
            if not isinstance(value, str) or not value.strip():
                self.report("service_template", "metadata", f"failed to get template {word} metadata")

    def properties(self, kind: str, path: str, properties: Properties | None) -> None:
        for name, prop in (properties or {}).items():
            message = self.property_problem(name, prop)
            if message:
                self.report(kind, path, message)

    def property_problem(self, name: str, prop: PropertyDefinition) -> str | None:
        entry_type = prop.entry_schema.type if prop.entry_schema else None
        if prop.type == LIST_TYPE and entry_type is None:
            return f"Entry schema for DataType (list) for the property ({name}) not found"
        if prop.type == LIST_TYPE or (prop.type in COMPLEX_TYPES and entry_type is not None):
            if (
                entry_type is not None
                and not is_simple_type(entry_type)
                and not self.is_data_type(entry_type)
            ):
                return f"DataType({entry_type}) for the property({name}) is not valid"
            return None
        if is_simple_type(prop.type):
            return None
        if prop.type not in self.data_types:
            return f"DataType ({prop.type}) for the property ({name}) not found"
        if not self.is_data_type(prop.type):
            return f"DataType({prop.type}) for the property({name}) is not valid"
        return None

    def is_data_type(self, name: str) -> bool:
        """Present, and its derived_from chain ends in a data type root."""
        return _chain_end(self.data_types, name) in (DATA_ROOT, DYNAMIC_DATA_ROOT)

    # --- node types -------------------------------------------------------------------------

    def node_type(self, name: str, node_type: NodeType) -> None:
        parent = node_type.derived_from
        if parent not in NODE_PARENTS:
            self.report(
                "node_type", name, f"Failed to get node type ({name})'s  derivedFrom({parent}) definition "
            )
        elif parent != NODE_ROOT and parent not in self.node_types:
            self.report(
                "node_type", name, f"Failed to get derivedFrom NodeType({parent})'s for NodeType({name})"
            )
        self.properties("node_type", name, node_type.properties)
        self.properties("node_type", f"{name}/attributes", node_type.attributes)
        for capability_name, capability in (node_type.capabilities or {}).items():
            if capability.type not in CAPABILITY_TYPES:
                self.report(
                    "node_type",
                    name,
                    f"Capability type ({capability.type}) of ({capability_name}) is not valid",
                )
            self.properties("node_type", f"{name}/capabilities/{capability_name}", capability.properties)
        for requirement_name, requirement in (node_type.requirements or {}).items():
            self.requirement(
                name, requirement_name, requirement.capability, requirement.node, requirement.relationship
            )
        for interface_name, interface in (node_type.interfaces or {}).items():
            for operation_name, operation in (interface.operations or {}).items():
                path = f"{name}/interfaces/{interface_name}/{operation_name}"
                implementation = operation.implementation
                if implementation is not None and not (implementation.primary or "").strip():
                    self.report("node_type", path, "implementation primary is missing")
                self.properties("node_type", f"{path}/inputs", operation.inputs)
                self.properties("node_type", f"{path}/outputs", operation.outputs)

    def requirement(
        self, type_name: str, name: str, capability: str | None, node: str | None, relationship: str | None
    ) -> None:
        path = f"{type_name}/requirements/{name}"
        if relationship not in REQUIREMENT_RELATIONSHIPS:
            self.report("node_type", path, f"Relationship type ({relationship}) is not valid")
        required_node = self.node_types.get(node or "")
        if required_node is None:
            self.report("node_type", path, f"Failed to get NodeType({node}) for the requirement")
        elif capability not in self.inherited(node or "", "capabilities"):
            self.report("node_type", path, f"NodeType({node}) has no capability ({capability})")

    def inherited(self, type_name: str, section: str) -> dict[str, Any]:
        """A node type's members of one section, its ancestors' included (nearest wins)."""
        chain: list[NodeType] = []
        while type_name in self.node_types and len(chain) < len(self.node_types):
            chain.append(self.node_types[type_name])
            type_name = chain[-1].derived_from or ""
        members: dict[str, Any] = {}
        for node_type in reversed(chain):
            members.update(getattr(node_type, section) or {})
        return members

    # --- node templates ---------------------------------------------------------------------

    def node_template(self, kind: str, name: str, template: NodeTemplate) -> None:
        if template.type not in self.node_types:
            self.report(
                kind, name, f"Failed to get NodeType({template.type}) definition for NodeTemplate({name})"
            )
            return
        declared = self.inherited(template.type, "properties")
        for prop_name, value in (template.properties or {}).items():
            definition = declared.get(prop_name)
            if definition is None:
                self.report(
                    kind,
                    name,
                    f"validatePropertyAssignments failed to get definition for the property ({prop_name})",
                )
            elif not self.compatible(definition, value):
                self.report(
                    kind,
                    name,
                    f"property({prop_name}) defined of type({definition.type}) "
                    f"is not compatible with the value ({json.dumps(value)})",
                )
        self.declared_members(
            kind, name, "capability", template.capabilities, self.inherited(template.type, "capabilities")
        )
        self.declared_members(
            kind, name, "requirement", template.requirements, self.inherited(template.type, "requirements")
        )
        interfaces = self.inherited(template.type, "interfaces")
        self.declared_members(kind, name, "interface", template.interfaces, interfaces)
        for interface_name, interface in (template.interfaces or {}).items():
            operations = (interfaces[interface_name].operations or {}) if interface_name in interfaces else {}
            self.declared_members(kind, name, "operation", interface.operations, operations)
            for operation_name, operation in (interface.operations or {}).items():
                definition = operations.get(operation_name)
                if definition is None:
                    continue
                self.declared_members(
                    kind, name, "operation input", operation.inputs, definition.inputs or {}
                )
                self.declared_members(
                    kind, name, "operation output", operation.outputs, definition.outputs or {}
                )
        for artifact_name, artifact in (template.artifacts or {}).items():
            self.artifact(kind, name, artifact_name, artifact.type, artifact.file)

    def declared_members(
        self, kind: str, name: str, member: str, used: dict[str, Any] | None, declared: dict[str, Any]
    ) -> None:
        for member_name in used or {}:
            if member_name not in declared:
                self.report(kind, name, f"{member} ({member_name}) is not defined by its node type")

    def artifact(self, kind: str, name: str, artifact_name: str, artifact_type: str, path: str) -> None:
        if not self.is_artifact_type(artifact_type):
            self.report(
                kind, name, f"Failed to get ArtifactType({artifact_type}) for artifact ({artifact_name})"
            )
        if not self.cba.archive.has(path):
            self.report(kind, name, f"couldn't find file ({path})")
        elif artifact_type == MAPPING_ARTIFACT_TYPE:
            messages = assignment_problems(self.cba.assignments(path))
            if messages:
                self.report(kind, name, "Resource Assignment Validation :" + "; ".join(messages))

    def is_artifact_type(self, name: str) -> bool:
        return _chain_end(self.artifact_types, name) in (ARTIFACT_ROOT, ARTIFACT_IMPLEMENTATION)

    def compatible(self, definition: PropertyDefinition, value: Any) -> bool:
        if value is None or is_expression(value):
            return True
        return value_matches(definition.type, value, self.data_types)

    # --- workflows and resource definitions -----------------------------------------------

    def workflow(self, name: str, workflow: Any) -> None:
        self.properties("workflow", f"{name}/inputs", workflow.inputs)
        self.properties("workflow", f"{name}/outputs", workflow.outputs)
        for output_name, output in (workflow.outputs or {}).items():
            if output.value is None:
                self.report(
                    "workflow", name, f"couldn't get 'value' property from PropertyDefinition({output_name})"
                )
        node_templates = (
            (self.template.topology_template.node_templates or {}) if self.template.topology_template else {}
        )
        for step_name, step in (workflow.steps or {}).items():
            prefix = (
                f"Failed to validate Workflow({name})'s step({step_name})'s definition : "
                f"{name}/steps/{step_name}"
            )
            target = node_templates.get(step.target or "")
            if target is None:
                self.found.append(f"{prefix} : couldn't get node template ({step.target})")
                continue
            parent = self.node_types[target.type].derived_from if target.type in self.node_types else None
            if parent not in STEP_TARGET_PARENTS:
                self.found.append(
                    f"{prefix} : NodeType({target.type}) derived from ({parent}) "
                    "is neither a workflow nor a component"
                )

    def resource_definitions(self) -> None:
        definitions = self.cba.resource_definitions()
        for name, definition in (definitions or {}).items():
            for source_name, source in definition.sources.items():
                self.node_template("resource_definition", f"{name}/sources/{source_name}", source)


def refuse_expansion_bombs(cba: Cba, limits: ExpansionLimits) -> None:
    """400 when an expression of the CBA would expand past the run's bounds (a fan-out through
    ``dsl_definitions``): checked on every save and enrichment, without expanding anything."""
    problems = expansion_problems(cba.entry, limits)
    if problems:
        raise ValidationFailed(problems)


def refuse_step_cycles(cba: Cba) -> None:
    """400 when a workflow's on_success/on_failure edges form a cycle or name no step: checked on
    every save, since such a workflow can never run (reference execution.md 2.4)."""
    topology = cba.entry.topology_template
    problems = []
    for name, workflow in ((topology.workflows or {}) if topology else {}).items():
        steps = workflow.steps or {}
        cycle = step_cycle(steps)
        if cycle is not None:
            problems.append(f"workflow({name}): {ACYCLIC} ({' -> '.join(cycle)})")
        unknown = unknown_edges(steps)
        if unknown:
            problems.append(f"workflow({name}): on_success/on_failure name unknown steps {unknown}")
    if problems:
        raise ValidationFailed(problems)


def _chain_end(types: dict[str, Any], name: str) -> str | None:
    """Where a present type's derived_from chain leaves ``types`` (None: the type is absent)."""
    if name not in types:
        return None
    seen: set[str] = set()
    while name in types and name not in seen:
        seen.add(name)
        name = types[name].derived_from or ""
    return name


def is_expression(value: Any) -> bool:
    if isinstance(value, str):
        return value.startswith("*")
    return isinstance(value, dict) and any(key in EXPRESSION_KEYS for key in value)


def value_matches(type_name: str, value: Any, data_types: dict[str, Any]) -> bool:
    """Whether a literal value fits a property type (data types: any object)."""
    if type_name in ("string", "timestamp"):
        return isinstance(value, str)
    if type_name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if type_name in ("float", "double"):
        return isinstance(value, int | float) and not isinstance(value, bool)
    if type_name == "boolean":
        return isinstance(value, bool)
    if type_name == "map":
        return isinstance(value, dict)
    if type_name == LIST_TYPE:
        return isinstance(value, list)
    if type_name in data_types:
        return isinstance(value, dict)
    return True  # json, null, and unknown types (reported as such elsewhere)


def assignment_problems(assignments: Iterable[ResourceAssignment]) -> list[str]:
    """Duplicate names, dependencies on nothing, and dependency cycles of one mapping file."""
    assignments = list(assignments)
    names = [assignment.name for assignment in assignments]
    problems = []
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        problems.append(f"Duplicate Assignment Template Keys ([{', '.join(duplicates)}]) is Present")
    known = set(names)
    graph = {assignment.name: list(assignment.dependencies or []) for assignment in assignments}
    missing = sorted({dep for deps in graph.values() for dep in deps if dep not in known})
    if missing:
        problems.append(f"No assignments for Dictionary Keys ([{', '.join(missing)}])")
    cycle = _find_cycle(graph)
    if cycle:
        problems.append("Cyclic Dependency :" + " -> ".join(cycle))
    return problems


def _find_cycle(graph: dict[str, list[str]]) -> list[str] | None:
    """One dependency cycle as a path (``a -> b -> a``), found without recursion."""
    done: set[str] = set()
    for start in graph:
        if start in done:
            continue
        path = [start]
        pending = [iter(graph[start])]
        while pending:
            dependency = next(pending[-1], None)
            if dependency is None:
                done.add(path.pop())
                pending.pop()
            elif dependency in path:
                return [*path[path.index(dependency) :], dependency]
            elif dependency in graph and dependency not in done:
                path.append(dependency)
                pending.append(iter(graph[dependency]))
    return None
