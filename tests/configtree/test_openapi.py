"""The OpenAPI document lists every node of the spec table with the operations it allows."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from ..support.configtree_paths import M, entry_body, entry_path, example_entry
from .test_nodes import CONTAINERS, ENTRIES

KEY_PARAMETERS = {
    "brg-allotted-resource": "{allotted-resource-id}",
    "param": "{name}",
    "resource-key": "{resource-key-name}",
}


def template(*segments: str) -> str:
    """The documented template of a node path: keys become the spec's path parameters."""
    parts = ["/config", f"{M}:brg-allotted-resources"]
    for segment in segments:
        if segment.startswith("="):
            parts.append(KEY_PARAMETERS[parts[-1].removeprefix(f"{M}:")])
        else:
            parts.append(f"{M}:{segment}")
    return "/".join(parts) + "/"


ENTRY = ("brg-allotted-resource", "=ar")
NODE_TEMPLATES = [template()] + [template(*ENTRY, *segments) for segments in [(), *CONTAINERS, *ENTRIES]]
PARAMETERS = ("allotted-resource-data", "brg-parameters")
TOPOLOGY_PARAMETERS = ("allotted-resource-data", "brg-topology", "brg-parameters")
LIST_TEMPLATES = [template("brg-allotted-resource")] + [
    template(*ENTRY, *parameters, *below)
    for parameters in (PARAMETERS, TOPOLOGY_PARAMETERS)
    for below in [("param",), ("param", "=p", "resource-resolution-data", "resource-key")]
]


@pytest.fixture(scope="module")
def document(config_url: str) -> dict[str, Any]:
    found: dict[str, Any] = httpx.get(config_url + "/openapi.json").json()
    return found


@pytest.mark.parametrize("path", NODE_TEMPLATES)
def test_every_node_has_the_four_operations(document: dict[str, Any], path: str) -> None:
    item = document["paths"][path]
    assert {"get", "post", "put", "delete"} <= set(item)
    assert set(item["get"]["responses"]) >= {"200", "400", "401", "404"}
    assert set(item["post"]["responses"]) >= {"201", "400", "409"}
    assert set(item["put"]["responses"]) >= {"201", "204", "400"}
    assert set(item["delete"]["responses"]) >= {"204", "404"}
    parameters = [parameter["name"] for parameter in item.get("parameters", [])]
    assert parameters == [name.strip("{}") for name in path.split("/") if name.startswith("{")]


@pytest.mark.parametrize("path", LIST_TEMPLATES)
def test_a_list_path_has_post_only(document: dict[str, Any], path: str) -> None:
    assert set(document["paths"][path]) - {"parameters"} == {"post"}


def test_no_other_config_paths(document: dict[str, Any]) -> None:
    documented = {path for path in document["paths"] if path.startswith("/config/")}
    assert documented == set(NODE_TEMPLATES) | set(LIST_TEMPLATES)


def test_leaf_types_come_from_the_model(document: dict[str, Any]) -> None:
    schemas = document["components"]["schemas"]
    header = schemas[
        f"{M}_brg-allotted-resources.brg-allotted-resource.allotted-resource-data"
        ".allotted-resource-operation-information.sdnc-request-header"
    ]
    assert header["additionalProperties"] is False
    assert header["properties"]["svc-request-id"] == {"type": "string", "maxLength": 255}
    assert header["properties"]["svc-action"]["enum"][:3] == ["reserve", "assign", "activate"]
    entry = schemas[f"{M}_brg-allotted-resources.brg-allotted-resource"]
    assert entry["required"] == ["allotted-resource-id"]


def _validator(document: dict[str, Any], schema: dict[str, Any]) -> Any:
    import jsonschema_rs

    return jsonschema_rs.validator_for({**schema, "components": document["components"]})


@pytest.mark.parametrize("segments", [(), *CONTAINERS, *ENTRIES], ids=lambda s: "/".join(s) or "entry")
def test_answers_match_the_documented_schemas(
    document: dict[str, Any], client: httpx.Client, segments: tuple[str, ...]
) -> None:
    client.put(entry_path("ar-7"), json=entry_body(example_entry()))
    operation = document["paths"][template(*ENTRY, *segments)]["get"]
    schema = operation["responses"]["200"]["content"]["application/json"]["schema"]
    answer = client.get(entry_path("ar-7", *segments)).json()
    _validator(document, schema).validate(answer)


def test_the_example_bodies_match_the_documented_request_schemas(document: dict[str, Any]) -> None:
    put = document["paths"][template(*ENTRY)]["put"]
    schema = put["requestBody"]["content"]["application/json"]["schema"]
    _validator(document, schema).validate(entry_body(example_entry()))
    with pytest.raises(ValueError):
        _validator(document, schema).validate(entry_body({**example_entry(), "colour": "red"}))
