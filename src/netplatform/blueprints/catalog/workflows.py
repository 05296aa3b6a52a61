"""What a client must send to run one workflow: its inputs, outputs and the data types they use.

An input is marked ``"input-param": true`` when a mapping file of a component the workflow runs
declares an assignment of the same name as an input parameter; data types the inputs use are
listed with their own properties marked the same way (nested types too).
"""

from __future__ import annotations

from typing import Any

from ..errors import resource_not_found
from .cba import Cba
from .tosca import DataType, NodeTemplate, Properties, Workflow


def workflow_spec(cba: Cba, blueprint_name: str, version: str, workflow_name: str) -> dict[str, Any]:
    template = cba.resolved()
    topology = template.topology_template
    workflow = (topology.workflows or {}).get(workflow_name) if topology else None
    if topology is None or workflow is None:
        raise resource_not_found(
            f"could't get workflow({workflow_name}) from blueprint({blueprint_name}:{version})"
        )
    marker = _InputParamMarker(
        input_params=_input_param_names(cba, workflow, topology.node_templates or {}),
        data_types=template.data_types or {},
    )
    data: dict[str, Any] = {"workFlowName": workflow_name}
    if workflow.inputs is not None:
        data["inputs"] = marker.mark(workflow.inputs)
    if workflow.outputs is not None:
        data["outputs"] = marker.mark(workflow.outputs)
    spec: dict[str, Any] = {"blueprintName": blueprint_name, "version": version, "workFlowData": data}
    if marker.collected:
        spec["dataTypes"] = marker.collected
    return spec


def _input_param_names(cba: Cba, workflow: Workflow, node_templates: dict[str, NodeTemplate]) -> set[str]:
    """Assignments marked input-param in the mapping files of the step targets (and their dependencies)."""
    targets: list[str] = []
    for step in (workflow.steps or {}).values():
        template = node_templates.get(step.target or "")
        if template is None:
            continue
        targets.append(step.target or "")
        dependencies = (template.properties or {}).get("dependency-node-templates")
        if isinstance(dependencies, list):
            targets.extend(name for name in dependencies if isinstance(name, str))
    return {
        assignment.name
        for target in targets
        if target in node_templates
        for assignment in cba.template_assignments(node_templates[target])
        if assignment.input_param
    }


class _InputParamMarker:
    def __init__(self, input_params: set[str], data_types: dict[str, DataType]) -> None:
        self.input_params = input_params
        self.data_types = data_types
        self.collected: dict[str, Any] = {}

    def mark(self, properties: Properties) -> dict[str, Any]:
        marked: dict[str, Any] = {}
        for name, prop in properties.items():
            document = prop.dump()
            if not prop.input_param and name in self.input_params:
                document["input-param"] = True
            marked[name] = document
            for type_name in (prop.type, prop.entry_schema.type if prop.entry_schema else None):
                if type_name in self.data_types and type_name not in self.collected:
                    self.collect(type_name)
        return marked

    def collect(self, name: str) -> None:
        data_type = self.data_types[name]
        self.collected[name] = {}  # claimed first, so a type that refers to itself ends the walk
        document = data_type.dump()
        if data_type.properties is not None:
            document["properties"] = self.mark(data_type.properties)
        self.collected[name] = document
