"""Enrichment, enrich-and-publish, publish validation and workflow specs, through real HTTP."""

from __future__ import annotations

import json
from typing import Any

import httpx

from .conftest import (
    MODELS,
    SAMPLE_ENTRY,
    assert_error,
    edit_json,
    sample_files,
    unenriched_files,
    unzip,
    upload,
    zip_bytes,
)

TYPE_FILES = [
    "Definitions/data_types.json",
    "Definitions/relationship_types.json",
    "Definitions/artifact_types.json",
    "Definitions/node_types.json",
    "Definitions/policy_types.json",
]


def enriched(client: httpx.Client, files: dict[str, bytes]) -> dict[str, bytes]:
    response = upload(client, "/enrich", zip_bytes(files))
    assert response.status_code == 200, response.text
    assert response.headers["content-disposition"] == 'attachment; filename="enhanced-cba.zip"'
    return unzip(response.content)


def section(files: dict[str, bytes], kind: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(files[f"Definitions/{kind}.json"])
    assert list(document) == [kind]
    found: dict[str, Any] = document[kind]
    return found


def test_enrich_writes_every_type_with_its_derived_chain(bootstrapped: httpx.Client) -> None:
    files = enriched(bootstrapped, unenriched_files())
    node_types = section(files, "node_types")
    assert list(node_types) == sorted(node_types)
    # the used node types, their parents, requirement targets and every source type of the mappings
    assert set(node_types) == {
        "component-netconf-executor",
        "component-resource-resolution",
        "tosca.nodes.Component",
        "vnf-netconf-device",
        "tosca.nodes.Vnf",
        "source-input",
        "source-default",
        "source-db",
        "source-rest",
        "tosca.nodes.ResourceSource",
    }
    assert node_types["vnf-netconf-device"]["derived_from"] == "tosca.nodes.Vnf"
    assert "tosca.nodes.Root" not in node_types
    assert set(section(files, "artifact_types")) == {
        "artifact-template-velocity",
        "artifact-mapping-resource",
        "artifact-script-python",
        "tosca.artifacts.Implementation",
    }
    assert set(section(files, "relationship_types")) == {"tosca.relationships.ConnectsTo"}
    assert section(files, "policy_types") == {}
    data_types = section(files, "data_types")
    assert set(data_types) == {"dt-v4-aggregate", "dt-resource-assignment-properties"}


def test_enrich_adds_the_dynamic_workflow_input_and_data_type(bootstrapped: httpx.Client) -> None:
    files = enriched(bootstrapped, unenriched_files())
    entry = json.loads(files[SAMPLE_ENTRY])
    assert list(entry) == [
        "tosca_definitions_version",
        "description",
        "metadata",
        "imports",
        "dsl_definitions",
        "topology_template",
    ]
    assert entry["imports"] == [{"file": name} for name in TYPE_FILES]
    assert entry["metadata"]["template_type"] == "DEFAULT"
    workflows = entry["topology_template"]["workflows"]
    assert workflows["resource-assignment"]["inputs"]["resource-assignment-properties"] == {
        "description": "Dynamic PropertyDefinition for workflow(resource-assignment).",
        "required": True,
        "type": "dt-resource-assignment-properties",
    }
    assert "config-deploy-properties" not in workflows["config-deploy"]["inputs"]  # no mapping files there
    dynamic = section(files, "data_types")["dt-resource-assignment-properties"]
    assert dynamic["derived_from"] == "tosca.datatypes.Dynamic"
    assert dynamic["description"] == "Dynamic DataType definition for workflow(resource-assignment)."
    assert list(dynamic["properties"]) == [
        "hostname",
        "site-id",
        "mgmt-vlan",
        "mgmt-ip",
        "ntp-server",
        "v4-aggregates",
    ]


def test_enrich_writes_the_resource_definitions_of_the_mapping_files(bootstrapped: httpx.Client) -> None:
    files = enriched(bootstrapped, unenriched_files())
    definitions = json.loads(files["Definitions/resources_definition_types.json"])
    assert list(definitions) == ["hostname", "mgmt-ip", "mgmt-vlan", "ntp-server", "site-id", "v4-aggregates"]
    assert definitions["mgmt-vlan"]["sources"]["processor-db"]["type"] == "source-db"
    assert (
        files["Templates/baseconfig-mapping.json"] == unenriched_files()["Templates/baseconfig-mapping.json"]
    )


def test_enrich_replaces_stale_type_files_and_drops_inline_types(bootstrapped: httpx.Client) -> None:
    files = unenriched_files()
    files["Definitions/stale_types.json"] = b'{"node_types": {}}'

    def add_inline_type(entry: dict[str, Any]) -> None:
        entry["node_types"] = {"inline-only": {"derived_from": "tosca.nodes.Component"}}

    result = enriched(bootstrapped, edit_json(files, SAMPLE_ENTRY, add_inline_type))
    assert "Definitions/stale_types.json" not in result
    assert "node_types" not in json.loads(result[SAMPLE_ENTRY])
    assert "inline-only" not in section(result, "node_types")


def test_enrich_uses_a_dictionary_added_through_the_api(bootstrapped: httpx.Client) -> None:
    def assign_from_a_new_dictionary(mapping: list[dict[str, Any]]) -> None:
        mapping.append(
            {
                "name": "loopback-ip",
                "property": {"type": "string"},
                "dictionary-name": "loopback-ip",
                "dictionary-source": "capability",
                "dependencies": ["hostname"],
            }
        )

    files = edit_json(unenriched_files(), "Templates/baseconfig-mapping.json", assign_from_a_new_dictionary)
    missing = upload(bootstrapped, "/enrich", zip_bytes(files))
    assert_error(
        missing, 400, "INVALID_REQUEST_FORMAT", "failed to get resource dictionary (loopback-ip) from repo"
    )
    assert missing.json()["subErrors"] == [
        {
            "domainId": "platform.blueprints.designer.api",
            "message": "Error while enriching the CBA package.",
            "cause": "Wrong blueprint definitions or resource definitions.",
        }
    ]
    definition = {
        "name": "loopback-ip",
        "updated-by": "tester",
        "tags": "loopback",
        "property": {"type": "string", "description": "loopback address"},
        "sources": {
            "capability": {
                "type": "source-capability",
                "properties": {
                    "script-type": "python",
                    "script-class-reference": "x.py",
                    "key-dependencies": [],
                },
            }
        },
    }
    assert bootstrapped.post("/api/v1/dictionary/definition", json=definition).status_code == 200
    result = enriched(bootstrapped, files)
    definitions = json.loads(result["Definitions/resources_definition_types.json"])
    assert definitions["loopback-ip"]["sources"]["capability"]["type"] == "source-capability"
    assert "source-capability" in section(result, "node_types")
    assert upload(bootstrapped, "/publish", zip_bytes(result)).status_code == 200


def test_enrich_and_publish_failure_is_503_and_stores_nothing(bootstrapped: httpx.Client) -> None:
    def use_unknown_type(entry: dict[str, Any]) -> None:
        entry["topology_template"]["node_templates"]["edge-router-device"]["type"] = "no-such-node-type"

    archive = zip_bytes(edit_json(unenriched_files(), SAMPLE_ENTRY, use_unknown_type))
    response = upload(bootstrapped, "/enrichandpublish", archive)
    assert_error(
        response,
        503,
        "IO_FILE_INTERRUPT",
        "failed to get model definition (no-such-node-type) from repo",
        "Action : Please reload your file and make sure it is in the right format.",
    )
    assert_error(upload(bootstrapped, "/enrich", archive), 400, "INVALID_REQUEST_FORMAT", "no-such-node-type")
    assert bootstrapped.get(MODELS).json() == []


def test_enrich_before_bootstrap_names_the_missing_type(client: httpx.Client) -> None:
    response = upload(client, "/enrich", zip_bytes(unenriched_files()))
    assert_error(response, 400, "INVALID_REQUEST_FORMAT", "failed to get model definition (")


def test_publish_reports_every_validation_problem(bootstrapped: httpx.Client) -> None:
    def break_twice(entry: dict[str, Any]) -> None:
        templates = entry["topology_template"]["node_templates"]
        templates["edge-router-device"]["properties"] = {"undeclared": 1}
        entry["topology_template"]["workflows"]["config-deploy"]["outputs"]["deploy-status"].pop("value")

    response = upload(
        bootstrapped, "/publish", zip_bytes(edit_json(sample_files(), SAMPLE_ENTRY, break_twice))
    )
    body = assert_error(response, 400, "INVALID_REQUEST_FORMAT", "failed in blueprint validation : ")
    assert (
        "validatePropertyAssignments failed to get definition for the property (undeclared)"
        in body["message"]
    )
    assert "couldn't get 'value' property from PropertyDefinition(deploy-status)" in body["message"]
    assert body["subErrors"] == [
        {
            "domainId": "platform.blueprints.designer.api",
            "message": "Error in Publishing CBA.",
            "cause": "Wrong CBA provided, please verify and enrich your CBA.",
        }
    ]
    assert bootstrapped.get(MODELS).json() == []


def test_publish_of_an_unenriched_archive_fails_validation(bootstrapped: httpx.Client) -> None:
    response = upload(bootstrapped, "/publish", zip_bytes(unenriched_files()))
    assert_error(
        response, 400, "INVALID_REQUEST_FORMAT", "Failed to get NodeType(component-resource-resolution)"
    )


def test_publish_checks_mapping_files(bootstrapped: httpx.Client) -> None:
    def tangle(mapping: list[dict[str, Any]]) -> None:
        mapping[0]["dependencies"] = ["site-id"]
        mapping[1]["dependencies"] = ["hostname", "nowhere"]
        mapping.append(dict(mapping[4]))

    files = edit_json(sample_files(), "Templates/baseconfig-mapping.json", tangle)
    text = assert_error(upload(bootstrapped, "/publish", zip_bytes(files)), 400, "INVALID_REQUEST_FORMAT")[
        "message"
    ]
    assert "Resource Assignment Validation :" in text
    assert "Duplicate Assignment Template Keys ([ntp-server]) is Present" in text
    assert "No assignments for Dictionary Keys ([nowhere])" in text
    assert "Cyclic Dependency :" in text


def test_workflow_spec_lists_inputs_outputs_and_data_types(bootstrapped: httpx.Client) -> None:
    assert upload(bootstrapped, "/enrichandpublish", zip_bytes(unenriched_files())).status_code == 200
    request = {"blueprintName": "edge-router-cfg", "version": "1.0.0", "workflowName": "resource-assignment"}
    response = bootstrapped.post(f"{MODELS}/workflow-spec", json=request)
    assert response.status_code == 200, response.text
    spec = response.json()
    assert spec["blueprintName"] == "edge-router-cfg" and spec["version"] == "1.0.0"
    data = spec["workFlowData"]
    assert data["workFlowName"] == "resource-assignment"
    assert set(data["inputs"]) == {"resolution-key", "resource-assignment-properties"}
    assert data["outputs"]["meshed-template"]["value"] == {
        "get_attribute": ["resource-assignment", "assignment-params"]
    }
    dynamic = spec["dataTypes"]["dt-resource-assignment-properties"]["properties"]
    assert dynamic["hostname"]["input-param"] is True
    assert "input-param" not in dynamic["mgmt-vlan"]
    assert spec["dataTypes"]["dt-v4-aggregate"]["properties"]["ipv4-plen"] == {"type": "integer"}
    unknown = bootstrapped.post(f"{MODELS}/workflow-spec", json={**request, "workflowName": "nope"})
    assert_error(unknown, 404, "RESOURCE_NOT_FOUND", "could't get workflow(nope)")
    absent = bootstrapped.post(f"{MODELS}/workflow-spec", json={**request, "blueprintName": "ghost"})
    assert_error(absent, 404, "RESOURCE_NOT_FOUND")
    assert_error(
        bootstrapped.post(f"{MODELS}/workflow-spec", json={"version": "1"}), 400, "INVALID_REQUEST_FORMAT"
    )


def test_bootstrap_loads_each_kind_only_when_asked(client: httpx.Client) -> None:
    assert client.post(f"{MODELS}/bootstrap", json={}).status_code == 200
    assert_error(client.get("/api/v1/model-type/source-db"), 404, "RESOURCE_NOT_FOUND")
    response = client.post(
        f"{MODELS}/bootstrap", json={"loadModelType": True, "loadResourceDictionary": True}
    )
    assert response.status_code == 200 and response.content == b""
    assert (
        client.get("/api/v1/model-type/source-db").json()["tags"]
        == "source-db,tosca.nodes.ResourceSource,node_type"
    )
    assert client.get("/api/v1/dictionary/mgmt-vlan").status_code == 200
    assert client.get(MODELS).json() == []
    assert client.post(f"{MODELS}/bootstrap", json={"loadCBA": True}).status_code == 200
    models = client.get(MODELS).json()
    assert [m["blueprintModel"]["artifactName"] for m in models] == ["edge-router-cfg"]
    assert models[0]["blueprintModel"]["published"] == "Y"
