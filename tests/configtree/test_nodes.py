"""Every node of the spec table (4.5) with each method it allows, through real HTTP."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from ..support.configtree_paths import ROOT, M, entry_body, entry_path, error_of, example_entry

CONTAINERS = [
    ("allotted-resource-data",),
    ("allotted-resource-data", "allotted-resource-oper-status"),
    ("allotted-resource-data", "allotted-resource-operation-information"),
    ("allotted-resource-data", "allotted-resource-operation-information", "allotted-resource-information"),
    (
        "allotted-resource-data",
        "allotted-resource-operation-information",
        "allotted-resource-information",
        "platform-model-information",
    ),
    ("allotted-resource-data", "allotted-resource-operation-information", "brg-request-input"),
    ("allotted-resource-data", "allotted-resource-operation-information", "request-information"),
    ("allotted-resource-data", "allotted-resource-operation-information", "sdnc-request-header"),
    ("allotted-resource-data", "allotted-resource-operation-information", "service-information"),
    (
        "allotted-resource-data",
        "allotted-resource-operation-information",
        "service-information",
        "platform-model-information",
    ),
    ("allotted-resource-data", "brg-parameters"),
    ("allotted-resource-data", "brg-parameters", "param", "=speed", "resource-resolution-data"),
    ("allotted-resource-data", "brg-topology"),
    ("allotted-resource-data", "brg-topology", "allotted-resource-identifiers"),
    ("allotted-resource-data", "brg-topology", "brg-assignments"),
    ("allotted-resource-data", "brg-topology", "platform-model-information"),
    ("allotted-resource-data", "brg-topology", "brg-parameters"),
    (
        "allotted-resource-data",
        "brg-topology",
        "brg-parameters",
        "param",
        "=vlan",
        "resource-resolution-data",
    ),
    ("allotted-resource-status",),
]

ENTRIES = [
    ("allotted-resource-data", "brg-parameters", "param", "=speed"),
    (
        "allotted-resource-data",
        "brg-parameters",
        "param",
        "=speed",
        "resource-resolution-data",
        "resource-key",
        "=profile",
    ),
    ("allotted-resource-data", "brg-topology", "brg-parameters", "param", "=vlan"),
    (
        "allotted-resource-data",
        "brg-topology",
        "brg-parameters",
        "param",
        "=vlan",
        "resource-resolution-data",
        "resource-key",
        "=site",
    ),
]

KEYS = {"param": "name", "resource-key": "name"}


def value_at(entry: dict[str, Any], segments: tuple[str, ...]) -> Any:
    """The example's value at a node path (keys written ``=key``)."""
    value: Any = entry
    position = 0
    while position < len(segments):
        name = segments[position]
        value = value[name]
        if position + 1 < len(segments) and segments[position + 1].startswith("="):
            key = segments[position + 1][1:]
            value = next(item for item in value if item[KEYS[name]] == key)
            position += 1
        position += 1
    return value


def body_for(segments: tuple[str, ...], value: Any) -> dict[str, Any]:
    """The body naming the node itself: an entry travels as a one-element array."""
    if segments[-1].startswith("="):
        return {f"{M}:{segments[-2]}": [value]}
    return {f"{M}:{segments[-1]}": value}


def put_example(client: httpx.Client, resource_id: str = "ar-7") -> dict[str, Any]:
    entry = example_entry(resource_id)
    assert client.put(entry_path(resource_id), json=entry_body(entry)).status_code == 201
    return entry


def test_a_fresh_tree_has_nothing(client: httpx.Client) -> None:
    response = client.get(ROOT)
    assert response.status_code == 404
    assert error_of(response) == {
        "error-type": "application",
        "error-tag": "data-missing",
        "error-message": (
            "Request could not be completed because the relevant data model content does not exist"
        ),
    }


@pytest.mark.parametrize("segments", CONTAINERS + ENTRIES, ids="/".join)
def test_node_lifecycle(client: httpx.Client, segments: tuple[str, ...]) -> None:
    entry = put_example(client)
    path = entry_path("ar-7", *segments)
    value = value_at(entry, segments)
    body = body_for(segments, value)

    got = client.get(path)
    assert got.status_code == 200
    assert got.json() == body
    assert got.headers["content-type"] == "application/json"

    exists = client.post(path, json=body)
    assert exists.status_code == 409
    assert error_of(exists)["error-tag"] == "data-exists"

    assert client.delete(path).status_code == 204
    assert client.get(path).status_code == 404
    assert client.delete(path).status_code == 404

    created = client.post(path, json=body)
    assert created.status_code == 201
    assert created.headers["location"] == str(client.base_url).rstrip("/") + path
    assert created.content == b""
    assert client.get(path).json() == body

    emptied = body_for(segments, {KEYS[segments[-2]]: segments[-1][1:]} if segments[-1][0] == "=" else {})
    replaced = client.put(path, json=emptied)
    assert replaced.status_code == 204
    assert replaced.content == b""
    assert client.get(path).json() == emptied

    assert client.delete(path).status_code == 204
    assert client.put(path, json=body).status_code == 201
    assert client.get(entry_path("ar-7")).json() == entry_body(entry)


@pytest.mark.parametrize("segments", CONTAINERS + ENTRIES, ids="/".join)
def test_post_of_a_child_on_its_parent_creates_the_child(
    client: httpx.Client, segments: tuple[str, ...]
) -> None:
    entry = put_example(client)
    path = entry_path("ar-7", *segments)
    assert client.delete(path).status_code == 204
    parent_segments = segments[:-2] if segments[-1].startswith("=") else segments[:-1]
    parent = entry_path("ar-7", *parent_segments)
    value = value_at(entry, segments)
    name = segments[-2] if segments[-1].startswith("=") else segments[-1]
    child_body = {name: [value] if segments[-1].startswith("=") else value}

    created = client.post(parent, json=child_body)
    assert created.status_code == 201, created.text
    assert created.headers["location"] == str(client.base_url).rstrip("/") + path
    assert client.get(entry_path("ar-7")).json() == entry_body(entry)
    assert client.post(parent, json=child_body).status_code == 409


@pytest.mark.parametrize(
    "list_segments",
    [
        ("brg-allotted-resource",),
        ("brg-allotted-resource", "=ar-7", "allotted-resource-data", "brg-parameters", "param"),
        (
            "brg-allotted-resource",
            "=ar-7",
            "allotted-resource-data",
            "brg-topology",
            "brg-parameters",
            "param",
            "=vlan",
            "resource-resolution-data",
            "resource-key",
        ),
    ],
    ids=lambda segments: segments[-1],
)
def test_a_list_without_key_takes_post_only(client: httpx.Client, list_segments: tuple[str, ...]) -> None:
    from ..support.configtree_paths import node

    put_example(client, "ar-7")
    path = node(*list_segments)
    name = list_segments[-1]
    for method in ("GET", "PUT", "DELETE"):
        response = client.request(method, path, json={name: []})
        assert response.status_code == 405, method
        assert error_of(response)["error-tag"] == "operation-not-supported"
        assert error_of(response)["error-message"] == f'Missing key for list "{name}".'
    key = "name" if name != "brg-allotted-resource" else "allotted-resource-id"
    fresh = [{key: "new-1"}, {key: "new-2"}]
    created = client.post(path, json={f"{M}:{name}": fresh})
    assert created.status_code == 201
    assert created.headers["location"].endswith(path + "new-1/")
    for item in fresh:
        assert client.get(path + item[key] + "/").json() == {f"{M}:{name}": [item]}
    again = client.post(path, json={name: [{key: "new-3"}, {key: "new-2"}]})
    assert again.status_code == 409
    assert client.get(path + "new-3/").status_code == 404, "a refused POST writes nothing"


def test_root_put_replaces_the_whole_tree(client: httpx.Client) -> None:
    first = {
        f"{M}:brg-allotted-resources": {"brg-allotted-resource": [example_entry("a"), example_entry("b")]}
    }
    assert client.put(ROOT, json=first).status_code == 201
    assert client.get(ROOT).json() == first
    second = {"brg-allotted-resources": {"brg-allotted-resource": [{"allotted-resource-id": "c"}]}}
    assert client.put(ROOT, json=second).status_code == 204
    assert client.get(ROOT).json() == {f"{M}:brg-allotted-resources": second["brg-allotted-resources"]}
    assert client.get(entry_path("a")).status_code == 404


def test_root_post_creates_the_root_or_its_entries(client: httpx.Client) -> None:
    empty_root: dict[str, dict[str, Any]] = {f"{M}:brg-allotted-resources": {}}
    created = client.post(ROOT, json=empty_root)
    assert created.status_code == 201
    assert created.headers["location"].endswith(ROOT)
    assert client.get(ROOT).json() == empty_root
    assert client.post(ROOT, json=empty_root).status_code == 409

    entries = {"brg-allotted-resource": [example_entry("ar-1")]}
    created = client.post(ROOT, json=entries)
    assert created.status_code == 201
    assert created.headers["location"].endswith(entry_path("ar-1"))
    assert client.post(ROOT, json=entries).status_code == 409
    assert client.get(ROOT).json() == {f"{M}:brg-allotted-resources": entries}


def test_root_delete_removes_everything(client: httpx.Client) -> None:
    put_example(client, "x")
    put_example(client, "y")
    assert client.delete(ROOT).status_code == 204
    assert client.get(ROOT).status_code == 404
    assert client.get(entry_path("x")).status_code == 404
    missing = client.delete(ROOT)
    assert missing.status_code == 404
    assert error_of(missing) == {
        "error-type": "protocol",
        "error-tag": "data-missing",
        "error-message": f"Data does not exist for path: /{M}:brg-allotted-resources",
    }


def test_put_creates_missing_ancestors(client: httpx.Client) -> None:
    path = entry_path("ar-9", "allotted-resource-data", "brg-topology", "brg-assignments")
    created = client.put(path, json={"brg-assignments": {"vbrg-wan-ip": "2001:db8::9"}})
    assert created.status_code == 201
    assert client.get(ROOT).json() == {
        f"{M}:brg-allotted-resources": {
            "brg-allotted-resource": [
                {
                    "allotted-resource-id": "ar-9",
                    "allotted-resource-data": {
                        "brg-topology": {"brg-assignments": {"vbrg-wan-ip": "2001:db8::9"}}
                    },
                }
            ]
        }
    }
    assert client.put(path, json={"brg-assignments": {}}).status_code == 204


def test_nested_put_in_an_existing_entry_is_201_until_the_node_exists(client: httpx.Client) -> None:
    client.put(entry_path("ar-7"), json=entry_body({"allotted-resource-id": "ar-7"}))
    path = entry_path("ar-7", "allotted-resource-status")
    assert client.put(path, json={"allotted-resource-status": {"action": "a"}}).status_code == 201
    assert client.put(path, json={"allotted-resource-status": {"action": "b"}}).status_code == 204


def test_the_root_outlives_its_last_entry(client: httpx.Client) -> None:
    put_example(client, "only")
    assert client.delete(entry_path("only")).status_code == 204
    assert client.get(ROOT).json() == {f"{M}:brg-allotted-resources": {}}


def test_an_empty_container_stays(client: httpx.Client) -> None:
    path = entry_path("ar-7", "allotted-resource-data", "brg-topology")
    assert client.put(path, json={"brg-topology": {}}).status_code == 201
    assert client.get(path).json() == {f"{M}:brg-topology": {}}
    emptied = entry_path("ar-7", "allotted-resource-data", "brg-topology", "brg-assignments")
    client.put(emptied, json={"brg-assignments": {"vbrg-wan-ip": "10.0.0.1"}})
    client.delete(emptied)
    assert client.get(path).json() == {f"{M}:brg-topology": {}}


def test_posting_the_entry_itself_on_its_entry_uri(client: httpx.Client) -> None:
    body = entry_body(example_entry("ar-5"))
    created = client.post(entry_path("ar-5"), json=body)
    assert created.status_code == 201
    assert created.headers["location"].endswith(entry_path("ar-5"))
    assert client.post(entry_path("ar-5"), json=body).status_code == 409


def test_post_inside_a_missing_entry_creates_it(client: httpx.Client) -> None:
    parent = entry_path("ar-new", "allotted-resource-data")
    created = client.post(parent, json={"allotted-resource-oper-status": {"order-status": "Active"}})
    assert created.status_code == 201
    assert client.get(entry_path("ar-new")).json() == entry_body(
        {
            "allotted-resource-id": "ar-new",
            "allotted-resource-data": {"allotted-resource-oper-status": {"order-status": "Active"}},
        }
    )
