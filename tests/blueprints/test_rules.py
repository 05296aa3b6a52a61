"""The catalog's rules on their own, without HTTP: archives, TOSCA.meta, enrichment, validation, formats."""

from __future__ import annotations

import json
from typing import Any

import pytest

from netplatform.blueprints.catalog.archive import Archive, ArchiveLimits, MalformedArchive
from netplatform.blueprints.catalog.cba import Cba
from netplatform.blueprints.catalog.enrich import EnrichmentFailed, enrich
from netplatform.blueprints.catalog.tosca import ResourceAssignment
from netplatform.blueprints.catalog.toscameta import parse_tosca_meta
from netplatform.blueprints.catalog.validate import ValidationFailed, assignment_problems, validate
from netplatform.blueprints.dictionaries import dictionary_from_definition, parse_definition
from netplatform.blueprints.formats import JSON, XML, rendered
from netplatform.blueprints.keywords import keywords_of
from netplatform.blueprints.model_types import starter_model_type
from netplatform.blueprints.repository.dictionaries import DictionaryRecord
from netplatform.blueprints.repository.model_types import ModelTypeRecord
from netplatform.blueprints.starter_catalog import MODEL_TYPE_KINDS, STARTER
from netplatform.web.errors import NotAcceptable

from .conftest import SAMPLE_ENTRY, edit_json, sample_files, unenriched_files, unzip, zip_bytes

LIMITS = ArchiveLimits(max_bytes=1 << 20, max_uncompressed_bytes=1 << 24, max_ratio=200, max_entries=100)


class StarterDefinitions:
    """The starter catalog in memory, standing where the database stands in the service."""

    def __init__(self) -> None:
        self.types: dict[str, ModelTypeRecord] = {}
        for kind in MODEL_TYPE_KINDS:
            for path in (STARTER / "model_type" / kind).glob("*.json"):
                self.types[path.stem] = starter_model_type(path.stem, kind, json.loads(path.read_text()))
        self.dictionaries: dict[str, DictionaryRecord] = {}
        for path in (STARTER / "resource_dictionary").glob("*.json"):
            record = dictionary_from_definition(parse_definition(json.loads(path.read_text())))
            self.dictionaries[record.name] = record

    def model_type(self, name: str) -> ModelTypeRecord | None:
        return self.types.get(name)

    def dictionary(self, name: str) -> DictionaryRecord | None:
        return self.dictionaries.get(name)


def cba_of(files: dict[str, bytes]) -> Cba:
    return Cba(Archive.from_bytes(zip_bytes(files), LIMITS))


def problems_of(files: dict[str, bytes]) -> list[str]:
    with pytest.raises(ValidationFailed) as failure:
        validate(cba_of(files))
    return failure.value.problems


# --- archives and TOSCA.meta -----------------------------------------------------------------


def test_a_corrupt_member_is_a_malformed_archive_not_a_crash() -> None:
    data = bytearray(zip_bytes({**sample_files(), "Templates/big.txt": b"abcdefgh" * 4096}))
    offset = data.index(b"Templates/big.txt") + len("Templates/big.txt") + 40
    data[offset : offset + 8] = b"\xff" * 8  # damage the deflate stream of that member
    with pytest.raises(MalformedArchive, match=r"Templates/big\.txt"):  # refused when opened, now
        Archive.from_bytes(bytes(data), LIMITS).rewritten(drop=lambda name: False, add={})


def test_tosca_meta_values_keep_their_colons_and_unknown_keys_are_ignored() -> None:
    meta = parse_tosca_meta(
        "\ufeffTOSCA-Meta-File-Version: 1.0.0\nCreated-By: Ana Ruiz <ana@example.net>: ops\n"
        "Entry-Definitions: Definitions/x.json\nTemplate-Name: x\nTemplate-Version: 1.0.0\n"
        "Template-Tags: a, b\nSomething-Else: ignored\nnot a key line\n"
    )
    assert meta.created_by == "Ana Ruiz <ana@example.net>: ops"
    assert meta.template_type == "DEFAULT"
    assert meta.as_template_metadata()["template_tags"] == "a, b"


def test_keywords_are_trimmed_lower_cased_comma_items() -> None:
    assert keywords_of("Ana, OPS ", "edge,, router", "x") == {"ana", "ops", "edge", "router", "x"}


# --- enrichment --------------------------------------------------------------------------------


def test_enriched_sample_validates_and_matches_the_shipped_one() -> None:
    enriched = unzip(enrich(cba_of(unenriched_files()), StarterDefinitions()))
    validate(Cba(Archive.from_bytes(zip_bytes(enriched), LIMITS)))
    shipped = sample_files()
    for name in ("Definitions/node_types.json", "Definitions/data_types.json", SAMPLE_ENTRY):
        assert json.loads(enriched[name]) == json.loads(shipped[name])


def test_a_directed_graph_workflow_takes_its_components_from_dependency_node_templates() -> None:
    def run_through_a_graph(entry: dict[str, Any]) -> None:
        topology = entry["topology_template"]
        topology["node_templates"]["assign-graph"] = {
            "type": "dg-generic",
            "properties": {"content": "graph.xml", "dependency-node-templates": ["resource-assignment"]},
        }
        topology["workflows"]["resource-assignment"]["steps"] = {"graph": {"target": "assign-graph"}}

    files = edit_json(unenriched_files(), SAMPLE_ENTRY, run_through_a_graph)
    enriched = unzip(enrich(cba_of(files), StarterDefinitions()))
    node_types = json.loads(enriched["Definitions/node_types.json"])["node_types"]
    assert {"dg-generic", "tosca.nodes.Workflow"} <= set(node_types)
    entry = json.loads(enriched[SAMPLE_ENTRY])
    assert (
        "resource-assignment-properties"
        in entry["topology_template"]["workflows"]["resource-assignment"]["inputs"]
    )

    def drop_dependencies(entry: dict[str, Any]) -> None:
        entry["topology_template"]["node_templates"]["assign-graph"]["properties"].pop(
            "dependency-node-templates"
        )

    with pytest.raises(EnrichmentFailed, match=r"couldn't get property\(dependency-node-templates\)"):
        enrich(cba_of(edit_json(files, SAMPLE_ENTRY, drop_dependencies)), StarterDefinitions())


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            lambda e: e["topology_template"]["workflows"]["config-deploy"].update(steps={}),
            "could't get steps",
        ),
        (
            lambda e: e["topology_template"]["workflows"]["config-deploy"]["steps"]["deploy"].update(
                target="edge-router-device"
            ),
            "couldn't execute workflow(config-deploy) step mapped to node template(edge-router-device) "
            "derived from(tosca.nodes.Vnf)",
        ),
        (
            lambda e: e["topology_template"]["workflows"]["config-deploy"]["inputs"].update(
                bad={"type": "list"}
            ),
            "Entry Schema is missing for collection property(bad)",
        ),
    ],
)
def test_enrichment_failures_name_the_cause(edit: Any, message: str) -> None:
    with pytest.raises(EnrichmentFailed) as failure:
        enrich(cba_of(edit_json(unenriched_files(), SAMPLE_ENTRY, edit)), StarterDefinitions())
    assert message in failure.value.message


def test_unknown_dictionary_source_fails_enrichment() -> None:
    def use_unknown_source(mapping: list[dict[str, Any]]) -> None:
        mapping[2]["dictionary-source"] = "carrier-pigeon"

    files = edit_json(unenriched_files(), "Templates/baseconfig-mapping.json", use_unknown_source)
    with pytest.raises(EnrichmentFailed, match=r"failed to get source\(carrier-pigeon\) mapping"):
        enrich(cba_of(files), StarterDefinitions())


# --- validation --------------------------------------------------------------------------------


def test_the_shipped_sample_validates() -> None:
    validate(cba_of(sample_files()))


def test_node_type_problems_are_all_reported() -> None:
    def break_node_types(document: dict[str, Any]) -> None:
        types = document["node_types"]
        types["vnf-netconf-device"]["derived_from"] = "tosca.nodes.Exotic"
        types["vnf-netconf-device"]["capabilities"]["netconf"]["type"] = "tosca.capabilities.Teleport"
        types["component-netconf-executor"]["requirements"]["netconf-connection"]["relationship"] = "x.y"
        del types["tosca.nodes.Component"]

    problems = problems_of(edit_json(sample_files(), "Definitions/node_types.json", break_node_types))
    text = "\n".join(problems)
    assert (
        "node_type : vnf-netconf-device : Failed to get node type (vnf-netconf-device)'s  derivedFrom("
        in text
    )
    assert "Capability type (tosca.capabilities.Teleport) of (netconf) is not valid" in text
    assert "Relationship type (x.y) is not valid" in text
    assert (
        "Failed to get derivedFrom NodeType(tosca.nodes.Component)'s for NodeType(component-netconf-executor)"
        in text
    )


def test_property_and_artifact_problems() -> None:
    def break_entry(entry: dict[str, Any]) -> None:
        topology = entry["topology_template"]
        topology["inputs"] = {"a": {"type": "list"}, "b": {"type": "dt-nowhere"}, "c": {"type": "map"}}
        artifacts = topology["node_templates"]["resource-assignment"]["artifacts"]
        artifacts["baseconfig-template"]["file"] = "Templates/missing.vtl"
        artifacts["extra"] = {"type": "artifact-unknown", "file": "Templates/baseconfig-template.vtl"}
        interface = topology["node_templates"]["resource-assignment"]["interfaces"][
            "ResourceResolutionComponent"
        ]
        interface["operations"]["process"]["inputs"]["occurrence"] = "three"

    text = "\n".join(problems_of(edit_json(sample_files(), SAMPLE_ENTRY, break_entry)))
    assert "Entry schema for DataType (list) for the property (a) not found" in text
    assert "DataType (dt-nowhere) for the property (b) not found" in text
    assert "(c)" not in text
    assert "couldn't find file (Templates/missing.vtl)" in text
    assert "Failed to get ArtifactType(artifact-unknown) for artifact (extra)" in text


def test_property_values_are_type_checked_unless_expressions() -> None:
    def assign(definitions: dict[str, Any]) -> None:
        properties = definitions["mgmt-vlan"]["sources"]["processor-db"]["properties"]
        properties.update({"query": 5, "input-key-mapping": "site", "key-dependencies": "*dsl-dependencies"})
        properties["endpoint-selector"] = {"get_input": "selector"}
        properties["teleport"] = True

    files = edit_json(sample_files(), "Definitions/resources_definition_types.json", assign)
    problems = [
        p for p in problems_of(files) if p.startswith("resource_definition : mgmt-vlan/sources/processor-db")
    ]
    assert [p.split(" : ", 2)[2] for p in problems] == [
        "property(query) defined of type(string) is not compatible with the value (5)",
        'property(input-key-mapping) defined of type(map) is not compatible with the value ("site")',
        "validatePropertyAssignments failed to get definition for the property (teleport)",
    ]


def test_unknown_node_type_of_a_template() -> None:
    def retype(entry: dict[str, Any]) -> None:
        entry["topology_template"]["node_templates"]["edge-router-device"]["type"] = "dg-generic"

    text = "\n".join(problems_of(edit_json(sample_files(), SAMPLE_ENTRY, retype)))
    assert "Failed to get NodeType(dg-generic) definition for NodeTemplate(edge-router-device)" in text


def test_metadata_must_not_be_blank() -> None:
    files = {**sample_files()}
    meta = (
        files["TOSCA-Metadata/TOSCA.meta"]
        .decode()
        .replace("Template-Tags: edge, router, day0, starter", "Template-Tags:")
    )
    files["TOSCA-Metadata/TOSCA.meta"] = meta.encode()
    assert "service_template : metadata : failed to get template tags metadata" in problems_of(files)


@pytest.mark.parametrize(
    ("dependencies", "expected"),
    [
        ({"a": ["b"], "b": ["c"], "c": ["a"]}, "Cyclic Dependency :a -> b -> c -> a"),
        ({"a": ["a"]}, "Cyclic Dependency :a -> a"),
        ({"a": ["b"], "b": []}, None),
    ],
)
def test_assignment_dependency_cycles(dependencies: dict[str, list[str]], expected: str | None) -> None:
    assignments = [ResourceAssignment(name=name, dependencies=deps) for name, deps in dependencies.items()]
    assert assignment_problems(assignments) == ([expected] if expected else [])


def test_a_long_dependency_chain_needs_no_recursion() -> None:
    chain = [ResourceAssignment(name=f"r{i}", dependencies=[f"r{i + 1}"]) for i in range(5000)]
    chain.append(ResourceAssignment(name="r5000", dependencies=["r0"]))
    assert assignment_problems(chain)[0].startswith("Cyclic Dependency :r0 -> r1 -> ")


# --- formats -----------------------------------------------------------------------------------


def test_xml_with_attributes_and_text_becomes_json() -> None:
    xml = '<if xmlns="urn:x" name="ge0"><mtu>9000</mtu>up</if>'
    assert json.loads(rendered(xml, JSON, "x")) == {"if": {"@name": "ge0", "mtu": "9000", "#text": "up"}}


def test_json_that_is_not_one_object_goes_under_a_root() -> None:
    assert rendered("[1, 2]", XML, "x") == "<root><item>1</item><item>2</item></root>"
    assert rendered('{"a": 1, "b": null}', XML, "x") == "<root><a>1</a><b /></root>"


def test_conversion_of_very_deep_documents_is_refused() -> None:
    deep = "[" * 5000 + "]" * 5000
    with pytest.raises(NotAcceptable):
        rendered(deep, XML, "x")
    deep_xml = "<a>" * 3000 + "</a>" * 3000
    with pytest.raises(NotAcceptable):
        rendered(deep_xml, JSON, "x")
