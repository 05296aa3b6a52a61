"""Bad URIs, bad bodies, media types and credentials: the RESTCONF error and nothing stored."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from ..support.configtree_paths import ROOT, M, entry_body, entry_path, error_of, example_entry

NS = "(org:platform:sdnc:northbound:generic-resource?revision=2017-08-24)"
PREFIX = "Error parsing input: "


@pytest.mark.parametrize(
    ("path", "tag", "message"),
    [
        ("/config/", "invalid-value", 'First node in URI has to be in format "moduleName:nodeName"'),
        (
            "/config/brg-allotted-resources/",
            "invalid-value",
            'First node in URI has to be in format "moduleName:nodeName"',
        ),
        (
            "/config/NOPE:brg-allotted-resources/",
            "unknown-element",
            "The module named 'NOPE' does not exist.",
        ),
        (
            f"/config/{M}:brg-allotted-resourcez/",
            "unknown-element",
            f'"{M}:brg-allotted-resourcez" in URI was not found in parent data node',
        ),
        (ROOT + "nope/", "unknown-element", '"nope" in URI was not found in parent data node'),
        (
            ROOT + "OTHER:brg-allotted-resource/",
            "unknown-element",
            "The module named 'OTHER' does not exist.",
        ),
        (
            entry_path("ar-7", "allotted-resource-status") + "action/",
            "invalid-value",
            'URI has bad format. Node "action" must be Container or List yang type.',
        ),
        (
            ROOT + f"{M}:brg-allotted-resource//",
            "invalid-value",
            'URI has bad format. List "brg-allotted-resource" cannot contain an empty key.',
        ),
        (
            ROOT + f"{M}:brg-allotted-resource//allotted-resource-data/",
            "invalid-value",
            'URI has bad format. List "brg-allotted-resource" cannot contain an empty key.',
        ),
    ],
)
@pytest.mark.parametrize("method", ["GET", "PUT", "POST", "DELETE"])
def test_bad_uris(client: httpx.Client, method: str, path: str, tag: str, message: str) -> None:
    response = client.request(method, path, json={"x": {}})
    # Naming nothing in the model is 404 (spec 7); a malformed URI is 400.
    assert response.status_code == (404 if tag == "unknown-element" else 400)
    assert error_of(response) == {"error-type": "protocol", "error-tag": tag, "error-message": message}


def test_a_path_below_a_missing_entry_is_404(client: httpx.Client) -> None:
    assert client.get(entry_path("ghost", "allotted-resource-data")).status_code == 404
    deleted = client.delete(entry_path("ghost", "allotted-resource-data"))
    assert deleted.status_code == 404
    assert error_of(deleted)["error-message"] == (
        f"Data does not exist for path: /{M}:brg-allotted-resources"
        "/brg-allotted-resource=ghost/allotted-resource-data"
    )


def _leaf_body(container: str, leaf: str, value: Any) -> tuple[str, dict[str, Any]]:
    """A PUT of one leaf's container inside entry ar-7, at its URI."""
    paths = {
        "sdnc-request-header": ("allotted-resource-data", "allotted-resource-operation-information"),
        "request-information": ("allotted-resource-data", "allotted-resource-operation-information"),
        "brg-request-input": ("allotted-resource-data", "allotted-resource-operation-information"),
        "brg-assignments": ("allotted-resource-data", "brg-topology"),
        "allotted-resource-oper-status": ("allotted-resource-data",),
        "allotted-resource-status": (),
    }
    return entry_path("ar-7", *paths[container], container), {container: {leaf: value}}


SVC_ACTIONS = (
    "reserve, assign, activate, delete, changeassign, changedelete, rollback, deactivate, unassign, create, "
    "disable, enable, update, reoptimize, rebuild"
)


@pytest.mark.parametrize(
    ("container", "leaf", "value", "cause"),
    [
        (
            "sdnc-request-header",
            "svc-action",
            "Create",
            f"Invalid value 'Create' for enum type. Allowed values are: [{SVC_ACTIONS}]",
        ),
        (
            "allotted-resource-oper-status",
            "order-status",
            "active",
            "Invalid value 'active' for enum type. Allowed values are: [Active, PendingAssignment, "
            "PendingCreate, PendingUpdate, PendingDelete, Deleted, Created]",
        ),
        (
            "allotted-resource-status",
            "request-status",
            "done",
            "Invalid value 'done' for enum type. "
            "Allowed values are: [synccomplete, asynccomplete, notifycomplete]",
        ),
        ("brg-request-input", "vgmux-bearer-ip", "300.1.1.1", 'Invalid value "300.1.1.1" for union type.'),
        ("brg-assignments", "vbrg-wan-ip", "not-an-ip", 'Invalid value "not-an-ip" for union type.'),
        ("brg-assignments", "vbrg-wan-ip", "1.2.3.4\n", 'Invalid value "1.2.3.4\n" for union type.'),
        (
            "request-information",
            "request-id",
            "x" * 256,
            f"Value '{'x' * 256}' does not match allowed length constraint [0..255]",
        ),
        (
            "sdnc-request-header",
            "svc-notification-url",
            "u" * 513,
            f"Value '{'u' * 513}' does not match allowed length constraint [0..512]",
        ),
        (
            "allotted-resource-status",
            "action",
            5,
            "Invalid value 5 for string type: a JSON string is expected.",
        ),
        (
            "allotted-resource-status",
            "action",
            None,
            "Invalid value null for string type: a JSON string is expected.",
        ),
        (
            "allotted-resource-status",
            "action",
            True,
            "Invalid value true for string type: a JSON string is expected.",
        ),
        (
            "allotted-resource-status",
            "action",
            ["a"],
            'Invalid value ["a"] for string type: a JSON string is expected.',
        ),
        (
            "allotted-resource-status",
            "rpc-action",
            1,
            "Invalid value '1' for enum type. Allowed values are: "
            "[assign, activate, create, delete, unassign, deactivate]",
        ),
        (
            "allotted-resource-status",
            "colour",
            "red",
            f"Schema node with name colour was not found under {NS}allotted-resource-status.",
        ),
    ],
    ids=lambda value: value if isinstance(value, str) and len(value) < 40 else None,
)
def test_invalid_leaves_are_refused_naming_the_member(
    client: httpx.Client, container: str, leaf: str, value: Any, cause: str
) -> None:
    client.put(entry_path("ar-7"), json=entry_body({"allotted-resource-id": "ar-7"}))
    path, body = _leaf_body(container, leaf, value)
    response = client.put(path, json=body)
    assert response.status_code == 400
    error = error_of(response)
    assert error["error-tag"] == "malformed-message"
    assert error["error-message"] == PREFIX + cause
    assert error["error-info"] == cause
    if "not found" not in cause:
        assert error["error-path"].endswith(f"/{container}/{leaf}")
    assert client.get(path).status_code == 404, "nothing stored"


def test_valid_addresses_are_kept_as_sent(client: httpx.Client) -> None:
    for address in ("192.0.2.1", "192.0.2.1%eth0", "2001:DB8::1", "::ffff:192.0.2.1", "fe80::1%2"):
        path, body = _leaf_body("brg-assignments", "vbrg-wan-ip", address)
        assert client.put(path, json=body).status_code in (201, 204), address
        assert client.get(path).json() == {f"{M}:brg-assignments": {"vbrg-wan-ip": address}}


def test_a_whole_entry_with_one_bad_leaf_stores_nothing(client: httpx.Client) -> None:
    entry = example_entry("ar-bad")
    entry["allotted-resource-data"]["brg-topology"]["brg-parameters"]["param"][0]["value"] = "v" * 20001
    response = client.put(entry_path("ar-bad"), json=entry_body(entry))
    assert response.status_code == 400
    assert "[0..20000]" in error_of(response)["error-message"]
    assert client.get(ROOT).status_code == 404


@pytest.mark.parametrize(
    ("body", "cause"),
    [
        (b"{", "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"),
        (b"[]", "Expected one top-level member"),
        (b'"text"', "Expected one top-level member"),
        (b"{}", "Expected one top-level member"),
        (
            b'{"GENERIC-RESOURCE-API:allotted-resource-status": {}, "allotted-resource-status": {}}',
            "Expected one top-level member",
        ),
        (
            b'{"allotted-resource-status": {"action": "a", "action": "b"}}',
            'Duplicate member "action" in a JSON object',
        ),
        (
            b'{"allotted-resource-status": {"action": "a", "GENERIC-RESOURCE-API:action": "b"}}',
            "Duplicate member action in allotted-resource-status",
        ),
        (b'{"allotted-resource-status": []}', "Expected a JSON object for allotted-resource-status"),
        (b'{"allotted-resource-status": null}', "Expected a JSON object for allotted-resource-status"),
        (
            b'{"allotted-resource-status": {"action": "\\ud800"}}',
            "A string is not valid Unicode (lone surrogate escape)",
        ),
        (
            b"[" * 100_000,
            "maximum recursion depth exceeded while decoding a JSON array from a unicode string",
        ),
    ],
)
def test_malformed_bodies(client: httpx.Client, body: bytes, cause: str) -> None:
    path = entry_path("ar-7", "allotted-resource-status")
    response = client.put(path, content=body, headers={"content-type": "application/json"})
    assert response.status_code == 400
    error = error_of(response)
    assert error["error-tag"] == "malformed-message"
    assert error["error-message"] == PREFIX + cause


@pytest.mark.parametrize("method", ["PUT", "POST"])
def test_a_body_is_required(client: httpx.Client, method: str) -> None:
    response = client.request(method, entry_path("ar-7"), content=b" \n")
    assert response.status_code == 400
    assert error_of(response)["error-message"] == "Input is required."


@pytest.mark.parametrize("method", ["PUT", "POST"])
def test_the_payload_must_name_the_target(client: httpx.Client, method: str) -> None:
    response = client.request(
        method, entry_path("ar-7", "allotted-resource-data"), json={"brg-assignments": {}}
    )
    assert response.status_code == 400
    assert error_of(response)["error-message"] == (
        "Payload name (brg-assignments) is different from identifier name (allotted-resource-data)"
    )


def test_put_names_the_target_itself_not_a_child(client: httpx.Client) -> None:
    response = client.put(entry_path("ar-7", "allotted-resource-data"), json={"brg-topology": {}})
    assert response.status_code == 400
    assert "Payload name (brg-topology)" in error_of(response)["error-message"]


@pytest.mark.parametrize("method", ["PUT", "POST"])
def test_the_body_key_must_match_the_uri_key(client: httpx.Client, method: str) -> None:
    response = client.request(method, entry_path("ar-7"), json=entry_body({"allotted-resource-id": "ar-8"}))
    assert response.status_code == 400
    assert error_of(response) == {
        "error-type": "protocol",
        "error-tag": "invalid-value",
        "error-message": "The value 'ar-7' for key 'allotted-resource-id' specified in the URI doesn't match "
        "the value 'ar-8' specified in the message body.",
    }
    nested = entry_path("ar-7", "allotted-resource-data", "brg-parameters", "param", "=a")
    response = client.request(method, nested, json={"param": [{"name": "b"}]})
    assert response.status_code == 400
    assert "for key 'name'" in error_of(response)["error-message"]
    assert client.get(ROOT).status_code == 404


def test_a_posted_key_leaf_cannot_rename_its_entry(client: httpx.Client) -> None:
    response = client.post(entry_path("ar-7"), json={"allotted-resource-id": "other"})
    assert response.status_code == 400
    assert error_of(response)["error-tag"] == "invalid-value"


@pytest.mark.parametrize(
    ("body", "cause"),
    [
        (
            {"brg-allotted-resource": [{"allotted-resource-data": {}}]},
            "Map entry corresponding to brg-allotted-resource is missing some of required keys "
            "[allotted-resource-id]",
        ),
        (
            {"brg-allotted-resource": [{"allotted-resource-id": "a"}, {"allotted-resource-id": "a"}]},
            "Duplicate entry [allotted-resource-id=a] in list brg-allotted-resource",
        ),
        (
            {"brg-allotted-resource": {"allotted-resource-id": "a"}},
            "Expected a JSON array for list brg-allotted-resource",
        ),
        ({"brg-allotted-resource": []}, "Expected at least one entry of list brg-allotted-resource"),
    ],
)
def test_list_entries_need_unique_keys(client: httpx.Client, body: dict[str, Any], cause: str) -> None:
    response = client.post(ROOT + f"{M}:brg-allotted-resource/", json=body)
    assert response.status_code == 400
    assert error_of(response)["error-message"] == PREFIX + cause


def test_an_entry_uri_takes_exactly_one_entry(client: httpx.Client) -> None:
    two = {"brg-allotted-resource": [{"allotted-resource-id": "ar-7"}, {"allotted-resource-id": "ar-8"}]}
    response = client.put(entry_path("ar-7"), json=two)
    assert response.status_code == 400
    assert (
        error_of(response)["error-message"]
        == PREFIX + "Expected exactly one entry of list brg-allotted-resource"
    )


def test_names_may_be_qualified_or_not_at_any_level(client: httpx.Client) -> None:
    body = {
        "brg-allotted-resource": [
            {
                f"{M}:allotted-resource-id": "q",
                "allotted-resource-data": {
                    f"{M}:brg-topology": {"brg-assignments": {f"{M}:vbrg-wan-ip": "10.1.1.1"}}
                },
            }
        ]
    }
    assert client.put(entry_path("q"), json=body).status_code == 201
    assert client.get(entry_path("q")).json() == {
        f"{M}:brg-allotted-resource": [
            {
                "allotted-resource-id": "q",
                "allotted-resource-data": {"brg-topology": {"brg-assignments": {"vbrg-wan-ip": "10.1.1.1"}}},
            }
        ]
    }


def test_unqualified_and_prefixless_path_segments(client: httpx.Client) -> None:
    client.put(entry_path("ar-7"), json=entry_body(example_entry()))
    plain = ROOT + "brg-allotted-resource/ar-7/allotted-resource-data/brg-topology"
    assert client.get(plain).json()[f"{M}:brg-topology"]["brg-assignments"] == {
        "vbrg-wan-ip": "198.51.100.40"
    }


@pytest.mark.parametrize(
    ("content_type", "status"),
    [
        ("application/json", 201),
        ("application/yang-data+json", 201),
        ("application/yang.data+json; charset=utf-8", 201),
        ("application/xml", 415),
        ("text/plain", 415),
    ],
)
def test_request_media_types(client: httpx.Client, content_type: str, status: int) -> None:
    response = client.put(
        entry_path("m"),
        content=b'{"brg-allotted-resource":[{"allotted-resource-id":"m"}]}',
        headers={"content-type": content_type},
    )
    assert response.status_code == status
    if status == 415:
        assert error_of(response)["error-tag"] == "operation-not-supported"


@pytest.mark.parametrize(
    ("accept", "status", "media_type"),
    [
        (None, 200, "application/json"),
        ("application/json", 200, "application/json"),
        ("application/yang-data+json", 200, "application/yang-data+json"),
        ("application/yang-data+xml, application/yang-data+json;q=0.5", 200, "application/yang-data+json"),
        ("*/*", 200, "application/json"),
        ("application/xml", 406, None),
        ("application/yang-data+xml", 406, None),
        # A weight that is not a number is no preference (the kernel's one rule for every service).
        ("application/json;q=abc", 406, None),
        ("application/json;q=abc, application/yang-data+json", 200, "application/yang-data+json"),
    ],
)
def test_response_media_types(
    client: httpx.Client, accept: str | None, status: int, media_type: str | None
) -> None:
    client.put(entry_path("m"), json=entry_body({"allotted-resource-id": "m"}))
    headers = {"accept": accept} if accept else {}
    response = client.get(entry_path("m"), headers=headers)
    assert response.status_code == status
    if media_type:
        assert response.headers["content-type"] == media_type


@pytest.mark.parametrize(
    ("depth", "expected"),
    [
        ("1", {}),
        ("2", {"brg-topology": {}}),
        ("3", {"brg-topology": {"brg-assignments": {}}}),
        ("4", {"brg-topology": {"brg-assignments": {"vbrg-wan-ip": "10.0.0.1"}}}),
        ("unbounded", {"brg-topology": {"brg-assignments": {"vbrg-wan-ip": "10.0.0.1"}}}),
    ],
)
def test_depth(client: httpx.Client, depth: str, expected: dict[str, Any]) -> None:
    body = {"allotted-resource-data": {"brg-topology": {"brg-assignments": {"vbrg-wan-ip": "10.0.0.1"}}}}
    client.put(entry_path("d", "allotted-resource-data"), json=body)
    response = client.get(
        entry_path("d", "allotted-resource-data"), params={"depth": depth, "other": "ignored"}
    )
    assert response.status_code == 200
    assert response.json() == {f"{M}:allotted-resource-data": expected}


def test_depth_keeps_list_keys(client: httpx.Client) -> None:
    client.put(entry_path("d"), json=entry_body(example_entry("d")))
    response = client.get(ROOT, params={"depth": "2"})
    assert response.json() == {
        f"{M}:brg-allotted-resources": {"brg-allotted-resource": [{"allotted-resource-id": "d"}]}
    }


@pytest.mark.parametrize("depth", ["0", "-1", "x", "1.5", "65536", "9" * 5000, ""])
def test_bad_depth(client: httpx.Client, depth: str) -> None:
    client.put(entry_path("d"), json=entry_body({"allotted-resource-id": "d"}))
    response = client.get(entry_path("d"), params={"depth": depth})
    assert response.status_code == 400
    assert error_of(response) == {
        "error-type": "protocol",
        "error-tag": "invalid-value",
        "error-message": f"Invalid depth parameter: {depth}",
    }


@pytest.mark.parametrize("auth", [None, ("admin", "wrong")])
def test_credentials_are_required(config_url: str, auth: tuple[str, str] | None) -> None:
    response = httpx.get(config_url + ROOT, auth=auth)
    assert response.status_code == 401
    assert "WWW-Authenticate" in response.headers
    assert error_of(response)["error-tag"] == "access-denied"


def test_other_methods_are_405(client: httpx.Client) -> None:
    response = client.patch(ROOT, json={})
    assert response.status_code == 405
    assert error_of(response)["error-tag"] == "operation-not-supported"
