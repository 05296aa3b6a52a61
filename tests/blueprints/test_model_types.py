"""Model types: upsert, read, search, delete, and the checks on what is stored."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from .conftest import assert_error

TYPES = "/api/v1/model-type"


def model_type(name: str = "dt-site", **changes: Any) -> dict[str, Any]:
    body = {
        "modelName": name,
        "derivedFrom": "tosca.datatypes.Root",
        "definitionType": "data_type",
        "definition": {
            "description": "a site",
            "version": "1.0.0",
            "derived_from": "tosca.datatypes.Root",
            "properties": {"site-id": {"type": "string", "required": True}},
        },
        "description": "a site",
        "version": "1.0.0",
        "tags": "site, Location",
        "updatedBy": "tester",
    }
    body.update(changes)
    return body


@pytest.mark.parametrize("path", [TYPES, f"{TYPES}/"])
def test_save_with_or_without_trailing_slash(client: httpx.Client, path: str) -> None:
    response = client.post(path, json=model_type())
    assert response.status_code == 200, response.text
    saved = response.json()
    assert list(saved) == [
        "modelName",
        "derivedFrom",
        "definitionType",
        "definition",
        "description",
        "version",
        "tags",
        "creationDate",
        "updatedBy",
    ]
    assert saved["definition"] == model_type()["definition"]
    assert re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$", saved["creationDate"])
    assert client.get(f"{TYPES}/dt-site").json() == saved


def test_save_replaces_by_name(client: httpx.Client) -> None:
    client.post(TYPES, json=model_type())
    client.post(TYPES, json=model_type(description="a better site", tags=None))
    stored = client.get(f"{TYPES}/dt-site").json()
    assert stored["description"] == "a better site"
    assert stored["tags"] is None


def test_search_by_tags_and_by_definition_type(client: httpx.Client) -> None:
    client.post(TYPES, json=model_type("dt-site"))
    client.post(TYPES, json=model_type("dt-rack", tags="rack"))
    artifact = {"description": "x", "derived_from": "tosca.artifacts.Implementation", "file_ext": ["txt"]}
    client.post(
        TYPES,
        json=model_type(
            "artifact-text",
            definitionType="artifact_type",
            derivedFrom="tosca.artifacts.Implementation",
            definition=artifact,
            tags="text",
        ),
    )
    assert [t["modelName"] for t in client.get(f"{TYPES}/search/LOCAT").json()] == ["dt-site"]
    assert client.get(f"{TYPES}/search/nothing").json() == []
    data_types = client.get(f"{TYPES}/by-definition/data_type").json()
    assert sorted(t["modelName"] for t in data_types) == ["dt-rack", "dt-site"]
    assert [t["modelName"] for t in client.get(f"{TYPES}/by-definition/artifact_type").json()] == [
        "artifact-text"
    ]
    assert client.get(f"{TYPES}/by-definition/nonsense").json() == []


def test_delete_is_200_even_when_absent(client: httpx.Client) -> None:
    client.post(TYPES, json=model_type())
    assert client.delete(f"{TYPES}/dt-site").status_code == 200
    assert client.delete(f"{TYPES}/dt-site").status_code == 200
    assert_error(client.get(f"{TYPES}/dt-site"), 404, "RESOURCE_NOT_FOUND", "couldn't get modelType(dt-site)")


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        (model_type(definitionType="policy_type"), "Not Valid Model Root Type(policy_type), It should be ["),
        (model_type(definition={"derived_from": "x", "bogus": 1}), "unknown key(s) bogus"),
        (model_type(definition={"properties": {"p": {"required": True}}}), "type"),
        ({k: v for k, v in model_type().items() if k != "updatedBy"}, "updatedBy"),
        ({k: v for k, v in model_type().items() if k != "definition"}, "definition"),
        (model_type(modelName=""), "modelName"),
        (model_type(modelName="a/b"), "path separator"),
        (model_type(modelName="m" * 300), "longer than 255"),
        (model_type(definition=[1, 2]), "definition"),
    ],
)
def test_bad_model_types_are_400_and_not_stored(
    client: httpx.Client, body: dict[str, Any], fragment: str
) -> None:
    assert_error(client.post(TYPES, json=body), 400, "INVALID_REQUEST_FORMAT", fragment)
    assert client.get(f"{TYPES}/by-definition/data_type").json() == []
