"""CBAs built in code for the execution tests: TOSCA.meta, an entry definition, mappings, templates."""

from __future__ import annotations

import io
import json
import uuid
import zipfile
from typing import Any

PROCESS = "/api/v1/execution-service/process"
ENTRY = "Definitions/main.json"


def meta(name: str, version: str) -> str:
    return (
        "TOSCA-Meta-File-Version: 1.0.0\nCSAR-Version: 1.0\nCreated-By: Tester <t@example.net>\n"
        f"Entry-Definitions: {ENTRY}\nTemplate-Name: {name}\nTemplate-Version: {version}\n"
        "Template-Tags: test, execution\n"
    )


def resolution_node(
    prefixes: dict[str, str | None], inputs: dict[str, Any] | None = None, timeout: int | None = None
) -> dict[str, Any]:
    """A resolution node template: ``prefixes`` maps each prefix to its template kind (vtl, jinja, None)."""
    artifacts: dict[str, Any] = {}
    for prefix, kind in prefixes.items():
        artifacts[f"{prefix}-mapping"] = {
            "type": "artifact-mapping-resource",
            "file": f"Templates/{prefix}-mapping.json",
        }
        if kind == "vtl":
            artifacts[f"{prefix}-template"] = {
                "type": "artifact-template-velocity",
                "file": f"Templates/{prefix}-template.vtl",
            }
        elif kind == "jinja":
            artifacts[f"{prefix}-template"] = {
                "type": "artifact-template-jinja",
                "file": f"Templates/{prefix}-template.jinja",
            }
    operation: dict[str, Any] = {
        "inputs": {"artifact-prefix-names": list(prefixes), **(inputs or {})},
    }
    if timeout is not None:
        operation["implementation"] = {"primary": "component-resource-resolution", "timeout": timeout}
    return {
        "type": "component-resource-resolution",
        "interfaces": {"ResourceResolutionComponent": {"operations": {"process": operation}}},
        "artifacts": artifacts,
    }


def component_node(component: str, inputs: dict[str, Any]) -> dict[str, Any]:
    return {"type": component, "interfaces": {"Component": {"operations": {"process": {"inputs": inputs}}}}}


def workflow(
    steps: dict[str, dict[str, Any]],
    outputs: dict[str, Any] | None = None,
    inputs: dict[str, Any] | None = None,
) -> dict[str, Any]:
    found: dict[str, Any] = {"steps": steps}
    if outputs is not None:
        found["outputs"] = {name: {"type": "json", "value": value} for name, value in outputs.items()}
    if inputs is not None:
        found["inputs"] = inputs
    return found


def assignment(
    name: str, source: str = "input", *, required: bool = True, type_: str = "string", **extra: Any
) -> dict[str, Any]:
    prop: dict[str, Any] = {"type": type_, "required": required}
    for key in ("default", "metadata"):
        if key in extra:
            prop[key] = extra.pop(key)
    return {
        "name": name,
        "input-param": source == "input",
        "property": prop,
        "dictionary-name": extra.pop("dictionary", name),
        "dictionary-source": source,
        "dependencies": extra.pop("dependencies", []),
        **extra,
    }


def cba(
    name: str,
    workflows: dict[str, Any],
    nodes: dict[str, Any],
    files: dict[str, Any],
    *,
    version: str = "1.0.0",
    dsl: dict[str, Any] | None = None,
    definitions: dict[str, Any] | None = None,
) -> bytes:
    entry: dict[str, Any] = {
        "tosca_definitions_version": "controller_blueprint_1_0_0",
        "metadata": {
            "template_author": "Tester",
            "template_name": name,
            "template_version": version,
            "template_tags": "test",
        },
        "topology_template": {"workflows": workflows, "node_templates": nodes},
    }
    if dsl is not None:
        entry["dsl_definitions"] = dsl
    content: dict[str, bytes] = {
        "TOSCA-Metadata/TOSCA.meta": meta(name, version).encode(),
        ENTRY: json.dumps(entry).encode(),
    }
    for path, data in files.items():
        content[path] = (data if isinstance(data, str) else json.dumps(data)).encode()
    if definitions is not None:
        content["Definitions/resources_definition_types.json"] = json.dumps(definitions).encode()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path, data in content.items():
            archive.writestr(path, data)
    return buffer.getvalue()


def execution(
    name: str, action: str, request: dict[str, Any], *, version: str = "1.0.0", mode: str = "sync"
) -> dict[str, Any]:
    return {
        "commonHeader": {
            "originatorId": "tests",
            "requestId": str(uuid.uuid4()),
            "subRequestId": str(uuid.uuid4()),
            "timestamp": "2026-11-27T10:00:00.123456Z",
        },
        "actionIdentifiers": {
            "blueprintName": name,
            "blueprintVersion": version,
            "actionName": action,
            "mode": mode,
        },
        "payload": {f"{action}-request": request},
    }
