"""Configuration snapshots: store, render in three formats, list newest first, delete."""

from __future__ import annotations

import json

import httpx
import pytest

from .conftest import assert_error

CONFIGS = "/api/v1/configs"
JSON_SNAPSHOT = {
    "interfaces": {"interface": [{"name": "ge-0/0/0", "mtu": 9000}, {"name": "lo0", "enabled": True}]}
}


def save(
    client: httpx.Client, resource_type: str, resource_id: str, status: str, body: str
) -> httpx.Response:
    return client.post(f"{CONFIGS}/{resource_type}/{resource_id}/{status}", content=body.encode())


def test_save_returns_the_record(client: httpx.Client) -> None:
    response = save(client, "router", "r1", "running", "hostname r1")
    assert response.status_code == 200, response.text
    record = response.json()
    assert list(record) == ["resourceType", "resourceId", "status", "config_snapshot", "id", "createdDate"]
    assert record["status"] == "RUNNING"
    assert record["config_snapshot"] == "hostname r1"


def test_get_as_text_json_and_xml(client: httpx.Client) -> None:
    text = json.dumps(JSON_SNAPSHOT)
    save(client, "router", "r1", "RUNNING", text)
    params = {"resourceType": "router", "resourceId": "r1"}
    plain = client.get(CONFIGS, params=params)
    assert plain.status_code == 200 and plain.text == text
    assert plain.headers["content-type"].startswith("text/plain")
    as_json = client.get(CONFIGS, params={**params, "format": "json"})
    assert as_json.headers["content-type"] == "application/json" and as_json.json() == JSON_SNAPSHOT
    as_xml = client.get(CONFIGS, params={**params, "format": "application/xml"})
    assert as_xml.headers["content-type"] == "application/xml"
    assert as_xml.text == (
        "<interfaces><interface><name>ge-0/0/0</name><mtu>9000</mtu></interface>"
        "<interface><name>lo0</name><enabled>true</enabled></interface></interfaces>"
    )


def test_xml_snapshot_asked_for_as_json_is_converted(client: httpx.Client) -> None:
    save(
        client,
        "router",
        "r2",
        "CANDIDATE",
        "<system><host-name>r2</host-name><ntp>a</ntp><ntp>b</ntp></system>",
    )
    params = {"resourceType": "router", "resourceId": "r2", "status": "candidate"}
    assert client.get(CONFIGS, params={**params, "format": "xml"}).text.startswith("<system>")
    assert client.get(CONFIGS, params={**params, "format": "json"}).json() == {
        "system": {"host-name": "r2", "ntp": ["a", "b"]}
    }


def test_content_that_cannot_be_converted_is_406(client: httpx.Client) -> None:
    save(client, "router", "r3", "RUNNING", "hostname r3\n!")
    save(client, "router", "r4", "RUNNING", '{"1-not-an-xml-name": true}')
    for resource_id, format_ in (("r3", "xml"), ("r3", "json"), ("r4", "xml")):
        response = client.get(
            CONFIGS, params={"resourceType": "router", "resourceId": resource_id, "format": format_}
        )
        assert_error(response, 406, "INVALID_REQUEST_FORMAT", "cannot be converted")


def test_a_dtd_is_never_expanded(client: httpx.Client) -> None:
    laughs = '<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaa">]><l>&a;</l>'
    save(client, "router", "r5", "RUNNING", laughs)
    response = client.get(CONFIGS, params={"resourceType": "router", "resourceId": "r5", "format": "json"})
    assert response.status_code == 406


def test_replacing_moves_a_snapshot_to_the_front(client: httpx.Client) -> None:
    first = save(client, "router", "r1", "RUNNING", "one").json()
    save(client, "router", "r1", "CANDIDATE", "two")
    save(client, "switch", "r1", "RUNNING", "three")
    save(client, "router", "r9", "RUNNING", "four")
    replaced = save(client, "router", "r1", "RUNNING", "one again").json()
    assert replaced["id"] != first["id"]
    by_id = client.get(f"{CONFIGS}/allByID", params={"resourceId": "r1"}).json()
    assert [c["config_snapshot"] for c in by_id] == ["one again", "three", "two"]
    running = client.get(f"{CONFIGS}/allByID", params={"resourceId": "r1", "status": "running"}).json()
    assert [c["config_snapshot"] for c in running] == ["one again", "three"]
    by_type = client.get(f"{CONFIGS}/allByType", params={"resourceType": "router"}).json()
    assert [c["config_snapshot"] for c in by_type] == ["one again", "four", "two"]
    assert client.get(f"{CONFIGS}/allByType", params={"resourceType": "nothing"}).json() == []


def test_delete_is_200_even_when_absent(client: httpx.Client) -> None:
    save(client, "router", "r1", "RUNNING", "x")
    assert client.delete(f"{CONFIGS}/router/r1/running").status_code == 200
    assert client.delete(f"{CONFIGS}/router/r1/running").status_code == 200
    params = {"resourceType": "router", "resourceId": "r1"}
    assert_error(client.get(CONFIGS, params=params), 404, "RESOURCE_NOT_FOUND", "No config snapshot found")


@pytest.mark.parametrize("method", ["POST", "DELETE"])
def test_unknown_status_is_400_and_nothing_stored(client: httpx.Client, method: str) -> None:
    response = client.request(method, f"{CONFIGS}/router/r1/STAGED", content=b"x")
    assert_error(response, 400, "INVALID_REQUEST_FORMAT", "status (STAGED) must be one of RUNNING, CANDIDATE")
    assert client.get(f"{CONFIGS}/allByID", params={"resourceId": "r1"}).json() == []


@pytest.mark.parametrize(
    ("path", "params"),
    [
        ("", {"resourceType": "router"}),
        ("", {"resourceId": "r1"}),
        ("", {"resourceType": "router", "resourceId": "r1", "status": "ANY"}),
        ("", {"resourceType": "router", "resourceId": "r1", "format": "text/html"}),
        ("/allByID", {}),
        ("/allByType", {"status": "RUNNING"}),
        ("/allByID", {"resourceId": "r1", "status": "STAGED"}),
    ],
)
def test_missing_or_bad_query_parameters_are_400(
    client: httpx.Client, path: str, params: dict[str, str]
) -> None:
    assert_error(client.get(f"{CONFIGS}{path}", params=params), 400, "INVALID_REQUEST_FORMAT")


def test_blank_names_and_non_utf8_bodies_are_400(client: httpx.Client) -> None:
    assert_error(save(client, "%20", "r1", "RUNNING", "x"), 400, "INVALID_REQUEST_FORMAT", "resourceType")
    response = client.post(f"{CONFIGS}/router/r1/RUNNING", content=b"\xff\xfe\xfa")
    assert_error(response, 400, "INVALID_REQUEST_FORMAT", "UTF-8")
    assert client.get(f"{CONFIGS}/allByType", params={"resourceType": "router"}).json() == []
