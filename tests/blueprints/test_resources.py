"""Resolved resource values: stored through the documented POST, read, deleted."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from .conftest import assert_error

RESOURCES = "/api/v1/resources"
BLUEPRINT = {"blueprintName": "edge-router-cfg", "blueprintVersion": "1.0.0", "artifactName": "baseconfig"}


def value(name: str, **changes: Any) -> dict[str, Any]:
    return {**BLUEPRINT, "name": name, "value": f"{name}-value", "resolutionKey": "key-1", **changes}


@pytest.fixture
def stored(client: httpx.Client) -> httpx.Client:
    response = client.post(
        RESOURCES,
        json=[
            value("hostname", dictionaryName="hostname", dictionarySource="input", dictionaryVersion=1),
            value("mgmt-vlan", value=42),
            value("hostname", resolutionKey="key-2"),
            value("hostname", resolutionKey="", resourceType="router", resourceId="r1"),
        ],
    )
    assert response.status_code == 200, response.text
    return client


def test_store_returns_the_records(client: httpx.Client) -> None:
    records = client.post(RESOURCES, json=[value("hostname", status="failure")]).json()
    assert len(records) == 1
    assert list(records[0]) == [
        "blueprintName",
        "blueprintVersion",
        "artifactName",
        "name",
        "value",
        "status",
        "resolutionKey",
        "resourceType",
        "resourceId",
        "occurrence",
        "dictionaryName",
        "dictionarySource",
        "dictionaryVersion",
        "id",
        "createdDate",
    ]
    assert records[0]["status"] == "failure" and records[0]["occurrence"] == 1


def test_read_by_resolution_key_and_by_resource(stored: httpx.Client) -> None:
    by_key = stored.get(
        RESOURCES, params={**_bp(), "artifactName": "baseconfig", "resolutionKey": "key-1"}
    ).json()
    assert {(r["name"], r["value"]) for r in by_key} == {("hostname", "hostname-value"), ("mgmt-vlan", "42")}
    by_resource = stored.get(RESOURCES, params={**_bp(), "resourceType": "router", "resourceId": "r1"}).json()
    assert [(r["name"], r["resourceId"]) for r in by_resource] == [("hostname", "r1")]


def test_read_one_value(stored: httpx.Client) -> None:
    params = {**_bp(), "artifactName": "baseconfig", "resolutionKey": "key-1", "name": "hostname"}
    record = stored.get(f"{RESOURCES}/resource", params=params).json()
    assert record["value"] == "hostname-value" and record["dictionarySource"] == "input"
    missing = stored.get(f"{RESOURCES}/resource", params={**params, "name": "nope"})
    assert_error(missing, 404, "RESOURCE_NOT_FOUND", "No records found")
    stored.post(RESOURCES, json=[value("hostname", occurrence=2)])
    assert_error(stored.get(f"{RESOURCES}/resource", params=params), 409, "DUPLICATE_DATA")


def test_delete_by_resolution_key(stored: httpx.Client) -> None:
    params = {**_bp(), "artifactName": "baseconfig", "resolutionKey": "key-1"}
    assert stored.delete(RESOURCES, params=params).json() == {"deletedEntries": 2}
    assert stored.delete(RESOURCES, params=params).json() == {"deletedEntries": 0}
    assert stored.get(RESOURCES, params=params).json() == []
    other = stored.get(RESOURCES, params={**params, "resolutionKey": "key-2"}).json()
    assert len(other) == 1


def test_storing_again_replaces_the_value(client: httpx.Client) -> None:
    client.post(RESOURCES, json=[value("hostname", dictionarySource="input", dictionaryVersion=1)])
    (again,) = client.post(
        RESOURCES, json=[value("hostname", value="changed", status="failure", dictionarySource="default")]
    ).json()
    found = client.get(
        RESOURCES, params={**_bp(), "artifactName": "baseconfig", "resolutionKey": "key-1"}
    ).json()
    assert found == [again]  # every field the second one's, its id too
    assert (again["value"], again["status"], again["dictionarySource"]) == ("changed", "failure", "default")
    assert again["dictionaryVersion"] is None


def _bp() -> dict[str, str]:
    return {"bpName": "edge-router-cfg", "bpVersion": "1.0.0"}


def test_read_rules(client: httpx.Client) -> None:
    both = {**_bp(), "artifactName": "a", "resolutionKey": "k", "resourceType": "t", "resourceId": "i"}
    assert_error(
        client.get(RESOURCES, params=both),
        400,
        "INVALID_REQUEST_FORMAT",
        "Either retrieve resolved value using artifact name and resolution-key "
        "OR using resource-id and resource-type.",
    )
    assert_error(client.get(RESOURCES, params=_bp()), 400, "INVALID_REQUEST_FORMAT", "Missing param. Either")
    assert_error(client.get(RESOURCES, params={"bpName": "x"}), 400, "INVALID_REQUEST_FORMAT", "bpVersion")
    assert_error(
        client.delete(RESOURCES, params={**_bp(), "artifactName": "a"}),
        400,
        "INVALID_REQUEST_FORMAT",
        "Either use resolutionKey or resourceType + resourceId. Values cannot be blank",
    )
    assert_error(
        client.get(f"{RESOURCES}/resource", params={**_bp(), "artifactName": "a"}),
        400,
        "INVALID_REQUEST_FORMAT",
    )


@pytest.mark.parametrize(
    "body",
    [
        [],
        [value("x", resolutionKey="")],
        [value("x", resourceType="t", resourceId="i")],
        [value("x", status="maybe")],
        [value("x", occurrence=0)],
        [value("a/b", artifactName="a/b")],
        [{"name": "x"}],
        {"not": "a list"},
    ],
)
def test_bad_values_are_400_and_not_stored(client: httpx.Client, body: Any) -> None:
    assert_error(client.post(RESOURCES, json=body), 400, "INVALID_REQUEST_FORMAT")
    params = {**_bp(), "artifactName": "baseconfig", "resolutionKey": "key-1"}
    assert client.get(RESOURCES, params=params).json() == []
