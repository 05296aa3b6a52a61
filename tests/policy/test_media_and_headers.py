"""YAML in and out, and the spec 9.2 headers on every answer (errors and 401s included)."""

from __future__ import annotations

import uuid

import httpx
import pytest
import yaml

from ..support.servers import http_client
from .conftest import API, create_type

SAMPLE = "media.policies.Yaml"
VERSION_HEADERS = {"x-latestversion": "1.0.0", "x-minorversion": "0", "x-patchversion": "0"}
YAML_TEMPLATE = """
tosca_definitions_version: tosca_simple_yaml_1_1_0
policy_types:
  media.policies.Yaml:
    derived_from: tosca.policies.Root
    version: 1.0.0
    properties:
      size:
        type: integer
        required: true
"""


@pytest.fixture
def client(shared_client: httpx.Client) -> httpx.Client:
    return shared_client


def assert_spec_headers(response: httpx.Response) -> None:
    for name, value in VERSION_HEADERS.items():
        assert response.headers[name] == value, name
    assert response.headers["x-platform-requestid"]


def test_yaml_body_in_and_yaml_answer_out(client: httpx.Client) -> None:
    response = client.post(
        f"{API}/policytypes",
        content=YAML_TEMPLATE,
        headers={"Content-Type": "application/yaml", "Accept": "application/yaml"},
    )
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/yaml")
    answer = yaml.safe_load(response.text)
    assert answer["policy_types"][SAMPLE]["properties"]["size"]["required"] is True
    as_json = client.get(f"{API}/policytypes/{SAMPLE}/versions/1.0.0").json()
    assert as_json["policy_types"] == answer["policy_types"]


@pytest.mark.parametrize(
    ("accept", "expected"),
    [
        ("application/yaml", "application/yaml"),
        ("application/json;q=0.5, application/yaml", "application/yaml"),
        ("application/json, application/yaml", "application/json"),
        ("*/*", "application/json"),
        ("application/yaml;q=0.1, application/json;q=0.9", "application/json"),
        (None, "application/json"),
    ],
)
def test_accept_header_negotiation(client: httpx.Client, accept: str | None, expected: str) -> None:
    headers = {"Accept": accept} if accept else {}
    response = client.get(f"{API}/policytypes/platform.policies.Naming/versions/1.0.0", headers=headers)
    assert response.headers["content-type"].startswith(expected)


def test_errors_follow_the_accept_header_too(client: httpx.Client) -> None:
    response = client.get(f"{API}/policytypes/no.such.Type", headers={"Accept": "application/yaml"})
    assert response.status_code == 404
    assert yaml.safe_load(response.text)["code"] == "NOT_FOUND"


def test_headers_on_success_error_and_401(client: httpx.Client) -> None:
    assert_spec_headers(client.get(f"{API}/policytypes"))
    assert_spec_headers(client.get(f"{API}/policytypes/none.Such"))
    assert_spec_headers(
        client.post(f"{API}/policytypes", content=b"{", headers={"Content-Type": "application/json"})
    )
    assert_spec_headers(client.get(f"{API}/unknown/path"))
    with http_client(str(client.base_url), auth=None) as anonymous:
        unauthenticated = anonymous.get(f"{API}/policytypes")
    assert unauthenticated.status_code == 401
    assert unauthenticated.json()["code"] == "UNAUTHORIZED"
    assert_spec_headers(unauthenticated)
    with http_client(str(client.base_url), auth=("admin", "wrong")) as wrong:
        assert wrong.get(f"{API}/healthcheck").status_code == 401


def test_request_id_is_echoed_or_generated(client: httpx.Client) -> None:
    given = "my-request-42"
    echoed = client.get(f"{API}/healthcheck", headers={"X-PLATFORM-RequestID": given})
    assert echoed.headers["x-platform-requestid"] == given
    generated = client.get(f"{API}/healthcheck").headers["x-platform-requestid"]
    assert uuid.UUID(generated)


def test_unknown_path_and_method_use_the_error_body(client: httpx.Client) -> None:
    assert client.get(f"{API}/nothing").json()["code"] == "NOT_FOUND"
    response = client.put(f"{API}/policytypes")
    assert response.status_code == 405
    assert response.json()["code"] == "METHOD_NOT_ALLOWED"


def test_yaml_policy_with_json_answer(client: httpx.Client) -> None:
    create_type(client, "media.policies.Typed")
    body = (
        "topology_template:\n  policies:\n    - p.yaml:\n        type: media.policies.Typed\n"
        "        type_version: 1.0.0\n        version: 1.0.0\n        properties: {size: 3}\n"
    )
    response = client.post(f"{API}/policies", content=body, headers={"Content-Type": "application/x-yaml"})
    assert response.status_code == 200, response.text
    assert response.json()["topology_template"]["policies"][0]["p.yaml"]["properties"] == {"size": 3}
