"""Keys travel percent-encoded in one path segment and are decoded exactly once."""

from __future__ import annotations

import httpx
import pytest

from ..support.configtree_paths import ROOT, M, entry_body, entry_path, error_of

ENTRY_LIST = ROOT + f"{M}:brg-allotted-resource/"


@pytest.mark.parametrize(
    ("encoded", "key"),
    [
        ("a%2Fb", "a/b"),
        ("%252F", "%2F"),
        ("with%20space", "with space"),
        ("caf%C3%A9", "café"),
        ("k%3Dv%2C1", "k=v,1"),
        ("ns:name@x", "ns:name@x"),
        ("%3F%23", "?#"),
    ],
)
def test_a_key_is_decoded_once(client: httpx.Client, encoded: str, key: str) -> None:
    path = ENTRY_LIST + encoded + "/"
    assert client.put(path, json=entry_body({"allotted-resource-id": key})).status_code == 201
    assert client.get(path).json() == entry_body({"allotted-resource-id": key})
    assert client.get(ROOT).json() == {
        f"{M}:brg-allotted-resources": entry_body({"allotted-resource-id": key})[f"{M}:brg-allotted-resource"]
        and {"brg-allotted-resource": [{"allotted-resource-id": key}]}
    }
    status = client.put(path + f"{M}:allotted-resource-status/", json={"allotted-resource-status": {}})
    assert status.status_code == 201
    assert client.delete(path).status_code == 204
    assert client.get(path).status_code == 404


def test_location_carries_the_key_encoded(client: httpx.Client) -> None:
    created = client.post(ENTRY_LIST, json={"brg-allotted-resource": [{"allotted-resource-id": "x/y z"}]})
    assert created.status_code == 201
    assert created.headers["location"].endswith(ENTRY_LIST + "x%2Fy%20z/")
    assert client.get(created.headers["location"]).status_code == 200


def test_messages_name_keys_in_instance_identifier_form(client: httpx.Client) -> None:
    body = entry_body({"allotted-resource-id": "a/b"})
    client.post(ENTRY_LIST + "a%2Fb/", json=body)
    conflict = client.post(ENTRY_LIST + "a%2Fb/", json=body)
    assert error_of(conflict)["error-message"] == (
        f"Data already exists for path: /{M}:brg-allotted-resources/brg-allotted-resource=a%2Fb"
    )


def test_the_body_key_is_compared_with_the_decoded_uri_key(client: httpx.Client) -> None:
    response = client.put(ENTRY_LIST + "a%2Fb/", json=entry_body({"allotted-resource-id": "a%2Fb"}))
    assert response.status_code == 400
    assert "The value 'a/b' for key 'allotted-resource-id'" in error_of(response)["error-message"]


def test_nested_keys_are_decoded_too(client: httpx.Client) -> None:
    param = entry_path("ar-7", "allotted-resource-data", "brg-parameters", "param", "=v/1")
    assert param.endswith("/v%2F1/")
    assert client.put(param, json={"param": [{"name": "v/1", "value": "x"}]}).status_code == 201
    assert client.get(param).json() == {f"{M}:param": [{"name": "v/1", "value": "x"}]}


def test_a_key_longer_than_its_leaf_allows_is_a_bad_uri(client: httpx.Client) -> None:
    param = entry_path("ar-7", "allotted-resource-data", "brg-parameters", "param", "=" + "n" * 256)
    response = client.get(param)
    assert response.status_code == 400
    assert error_of(response)["error-tag"] == "invalid-value"
    assert "[0..255]" in error_of(response)["error-message"]


def test_a_very_long_allotted_resource_id_is_stored(client: httpx.Client) -> None:
    key = "k" * 5000
    path = entry_path(key)
    assert client.put(path, json=entry_body({"allotted-resource-id": key})).status_code == 201
    assert client.get(path).json() == entry_body({"allotted-resource-id": key})


def test_invalid_utf8_in_a_segment_is_a_bad_uri(client: httpx.Client) -> None:
    response = client.get(ENTRY_LIST + "%FF/")
    assert response.status_code == 400
    assert error_of(response)["error-tag"] == "invalid-value"


def test_control_characters_in_keys(client: httpx.Client) -> None:
    path = ENTRY_LIST + "line%0Abreak%09tab/"
    assert client.put(path, json=entry_body({"allotted-resource-id": "line\nbreak\ttab"})).status_code == 201
    assert client.get(path).json() == entry_body({"allotted-resource-id": "line\nbreak\ttab"})
