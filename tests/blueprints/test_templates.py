"""Resolved templates: stored and read by resolution key or by resource."""

from __future__ import annotations

import httpx

from .conftest import assert_error

TEMPLATE = "/api/v1/template"


def test_by_resolution_key(client: httpx.Client) -> None:
    response = client.post(
        f"{TEMPLATE}/edge-router-cfg/1.0.0/baseconfig/key-1", content=b"<config>a</config>"
    )
    assert response.status_code == 200, response.text
    record = response.json()
    assert list(record) == [
        "blueprintName",
        "blueprintVersion",
        "artifactName",
        "result",
        "resolutionKey",
        "resourceType",
        "resourceId",
        "occurrence",
        "id",
        "createdDate",
    ]
    assert (record["resolutionKey"], record["resourceType"], record["resourceId"]) == ("key-1", "", "")
    assert record["occurrence"] == 1 and record["result"] == "<config>a</config>"
    fetched = client.get(f"{TEMPLATE}/edge-router-cfg/1.0.0/baseconfig/key-1")
    assert fetched.status_code == 200 and fetched.text == "<config>a</config>"
    assert client.get(
        f"{TEMPLATE}/edge-router-cfg/1.0.0/baseconfig/key-1", params={"format": "json"}
    ).json() == {"config": "a"}


def test_by_resource(client: httpx.Client) -> None:
    path = f"{TEMPLATE}/edge-router-cfg/1.0.0/baseconfig/router/r1"
    record = client.post(path, content=b'{"hostname": "r1"}').json()
    assert (record["resolutionKey"], record["resourceType"], record["resourceId"]) == ("", "router", "r1")
    assert client.get(path, params={"format": "json"}).json() == {"hostname": "r1"}
    assert client.get(path, params={"format": "xml"}).text == "<hostname>r1</hostname>"
    # the two key forms never see each other's results
    assert_error(client.get(f"{TEMPLATE}/edge-router-cfg/1.0.0/baseconfig/r1"), 404, "RESOURCE_NOT_FOUND")


def test_storing_again_replaces(client: httpx.Client) -> None:
    path = f"{TEMPLATE}/bp/1/art/key"
    first = client.post(path, content=b"one").json()
    second = client.post(path, content=b"two").json()
    assert first["id"] != second["id"]
    assert client.get(path).text == "two"


def test_unknown_and_bad_requests(client: httpx.Client) -> None:
    assert_error(client.get(f"{TEMPLATE}/bp/1/art/none"), 404, "RESOURCE_NOT_FOUND")
    client.post(f"{TEMPLATE}/bp/1/art/key", content=b"plain text")
    assert_error(
        client.get(f"{TEMPLATE}/bp/1/art/key", params={"format": "xml"}), 406, "INVALID_REQUEST_FORMAT"
    )
    assert_error(
        client.get(f"{TEMPLATE}/bp/1/art/key", params={"format": "image/png"}), 400, "INVALID_REQUEST_FORMAT"
    )
    assert_error(
        client.post(f"{TEMPLATE}/bp/1/%20/key", content=b"x"), 400, "INVALID_REQUEST_FORMAT", "artifactName"
    )
