"""Resource dictionaries: save (two ways), read, search, groups, source mapping, delete."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from .conftest import assert_error

DICTIONARY = "/api/v1/dictionary"


def definition(name: str = "mgmt-vlan", **changes: Any) -> dict[str, Any]:
    body = {
        "name": name,
        "group": "default",
        "updated-by": "ops@example.net",
        "tags": f"{name}, vlan",
        "property": {"description": "management VLAN id", "type": "integer"},
        "sources": {
            "input": {"type": "source-input"},
            "default": {"type": "source-default", "properties": {}},
            "lookup": {
                "type": "source-db",
                "properties": {
                    "type": "SQL",
                    "query": "SELECT vlan FROM sites WHERE site=:site",
                    "input-key-mapping": {"site": "site-id"},
                    "output-key-mapping": {"mgmt-vlan": "vlan"},
                    "key-dependencies": ["site-id"],
                },
            },
        },
    }
    body.update(changes)
    return body


def test_save_a_dictionary_derives_its_fields_from_the_definition(client: httpx.Client) -> None:
    body = {
        "name": "mgmt-vlan",
        "dataType": "ignored",
        "resourceDictionaryGroup": "ignored",
        "description": "ignored",
        "tags": "ignored",
        "updatedBy": "ana@example.net",
        "unknownKey": "ignored too",
        "definition": definition(
            group="network",
            property={"type": "list", "description": "d", "entry_schema": {"type": "integer"}},
        ),
    }
    response = client.post(DICTIONARY, json=body)
    assert response.status_code == 200, response.text
    saved = response.json()
    assert list(saved) == [
        "name",
        "dataType",
        "entrySchema",
        "resourceDictionaryGroup",
        "definition",
        "description",
        "tags",
        "creationDate",
        "updatedBy",
    ]
    assert saved["dataType"] == "list"
    assert saved["entrySchema"] == "integer"
    assert saved["resourceDictionaryGroup"] == "network"
    assert saved["description"] == "d"
    assert saved["tags"] == "mgmt-vlan, vlan"
    assert saved["updatedBy"] == "ana@example.net"
    assert saved["definition"]["updated-by"] == "ana@example.net"
    assert saved["definition"]["sources"]["lookup"]["properties"]["key-dependencies"] == ["site-id"]
    assert client.get(f"{DICTIONARY}/mgmt-vlan").json() == saved


def test_save_from_a_definition(client: httpx.Client) -> None:
    response = client.post(f"{DICTIONARY}/definition", json=definition(tags=""))
    assert response.status_code == 200, response.text
    saved = response.json()
    assert saved["tags"] == "mgmt-vlan, ops@example.net"
    assert saved["dataType"] == "integer" and saved["entrySchema"] is None
    assert saved["updatedBy"] == "ops@example.net"
    assert saved["resourceDictionaryGroup"] == "default"


def test_by_names_search_and_groups(client: httpx.Client) -> None:
    client.post(f"{DICTIONARY}/definition", json=definition("mgmt-vlan"))
    client.post(
        f"{DICTIONARY}/definition", json=definition("site-id", group="site", tags="site-id, Location")
    )
    found = client.post(f"{DICTIONARY}/by-names", json=["site-id", "ghost", "mgmt-vlan"]).json()
    assert sorted(d["name"] for d in found) == ["mgmt-vlan", "site-id"]
    assert_error(
        client.post(f"{DICTIONARY}/by-names", json=[]),
        400,
        "INVALID_REQUEST_FORMAT",
        "No Search Information provide",
    )
    assert [d["name"] for d in client.get(f"{DICTIONARY}/search/locat").json()] == ["site-id"]
    assert client.get(f"{DICTIONARY}/resource_dictionary_group").json() == ["default", "site"]


def test_source_mapping(client: httpx.Client) -> None:
    assert client.get(f"{DICTIONARY}/source-mapping").json() == {
        "resourceSourceMappings": {
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
    }


def test_delete_and_unknown(client: httpx.Client) -> None:
    client.post(f"{DICTIONARY}/definition", json=definition())
    assert client.delete(f"{DICTIONARY}/mgmt-vlan").status_code == 200
    assert client.delete(f"{DICTIONARY}/mgmt-vlan").status_code == 200
    assert_error(
        client.get(f"{DICTIONARY}/mgmt-vlan"),
        404,
        "RESOURCE_NOT_FOUND",
        "couldn't get resource dictionary for name (mgmt-vlan)",
    )


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ({"name": "x", "updatedBy": "me"}, "definition is missing"),
        ({"name": "x", "definition": definition("x")}, "updatedBy is missing"),
        ({"updatedBy": "me", "definition": definition()}, "name"),
        (
            {"name": "x", "updatedBy": "me", "definition": definition(property={"type": "string"})},
            "description",
        ),
        ({"name": "x", "updatedBy": "me", "definition": definition(property={"description": "d"})}, "type"),
        ({"name": "x", "updatedBy": "me", "definition": definition(tags=" ")}, "definition.tags"),
        ({"name": "a/b", "updatedBy": "me", "definition": definition()}, "path separator"),
        ({"name": "x", "updatedBy": "me", "definition": definition(sources={"in": {"nope": 1}})}, "type"),
    ],
)
def test_bad_dictionaries_are_400_and_not_stored(
    client: httpx.Client, body: dict[str, Any], fragment: str
) -> None:
    assert_error(client.post(DICTIONARY, json=body), 400, "INVALID_REQUEST_FORMAT", fragment)
    assert client.get(f"{DICTIONARY}/resource_dictionary_group").json() == []


def test_wrong_media_type_is_400(client: httpx.Client) -> None:
    response = client.post(DICTIONARY, content=b"name=x", headers={"content-type": "text/plain"})
    assert_error(response, 400, "INVALID_REQUEST_FORMAT")
