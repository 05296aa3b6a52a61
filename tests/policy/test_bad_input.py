"""Bad input through real HTTP: a clear ErrorResponse, never a 500, and nothing stored."""

from __future__ import annotations

import json

import httpx
import pytest

from .conftest import API, error_of, policy_type_template

SAMPLE = "test.policies.Sample"
JSON = {"Content-Type": "application/json"}
YAML = {"Content-Type": "application/yaml"}


@pytest.fixture
def client(shared_client: httpx.Client) -> httpx.Client:
    return shared_client


def assert_nothing_stored(client: httpx.Client) -> None:
    listing = client.get(f"{API}/policytypes").json()["policy_types"]
    assert not [name for name in listing if not name.startswith("platform.")]


@pytest.mark.parametrize(
    ("body", "headers"),
    [
        (b'{"policy_types": ', JSON),
        (b"", JSON),
        (b"\xff\xfe\x00garbage", JSON),
        (b'{"policy_types": {"a": {"version": NaN}}}', JSON),
        (b"policy_types: [unclosed", YAML),
        (b"a: 1\n---\nb: 2\n", YAML),
        (b"[1, 2]", JSON),
        (b'"just a string"', JSON),
    ],
)
def test_unparsable_bodies_are_400(client: httpx.Client, body: bytes, headers: dict[str, str]) -> None:
    response = client.post(f"{API}/policytypes", content=body, headers=headers)
    assert response.status_code == 400, response.text
    assert response.json()["code"] == "BAD_REQUEST"
    assert error_of(response).startswith("Invalid Body")


def test_unsupported_media_type_is_415(client: httpx.Client) -> None:
    response = client.post(
        f"{API}/policytypes", content=b"<xml/>", headers={"Content-Type": "application/xml"}
    )
    assert response.status_code == 415
    assert response.json()["code"] == "UNSUPPORTED_MEDIA_TYPE"


def test_wrong_tosca_definitions_version_is_406(client: httpx.Client) -> None:
    template = policy_type_template()
    template["tosca_definitions_version"] = "tosca_simple_yaml_1_0_0"
    response = client.post(f"{API}/policytypes", json=template)
    assert response.status_code == 406
    assert error_of(response) == (
        'item "service template" value "ToscaServiceTemplateSimple:1.0.0" INVALID, '
        "does not equal existing service template"
    )
    assert_nothing_stored(client)


def test_missing_policy_types_section_is_400(client: httpx.Client) -> None:
    response = client.post(f"{API}/policytypes", json={"data_types": {"d.T": {"properties": {}}}})
    assert response.status_code == 400
    assert error_of(response) == "no policy types specified on service template"
    response = client.post(f"{API}/policytypes", json={"policy_types": {}})
    assert error_of(response) == "An incoming list of concepts must have at least one entry"


@pytest.mark.parametrize(
    ("key", "entity", "message"),
    [
        (
            "bad name!",
            {"version": "1.0.0"},
            'parameter "name": value "bad name!", does not match regular expression',
        ),
        ("a.B", {"version": "1.0"}, 'parameter "version": value "1.0", does not match regular expression'),
        (
            "a.B",
            {"version": "1.0.0-" + "x" * 20},
            'parameter "version": value "1.0.0-xxxxxxxxxxxxxxxxxxxx", is longer',
        ),
        (
            "a.B:1.0.0",
            {"version": "2.0.0"},
            "Key a.B:1.0.0 field 1.0.0 does not match the value 2.0.0 in the concept field",
        ),
        ("a.B", {"name": "a.C", "version": "1.0.0"}, "Key a.B:1.0.0 field a.B does not match the value a.C"),
        ("a.B", {"version": "1.0.0", "properties": {"p": {}}}, 'property "p": Type not specified'),
        ("a.B", {"version": "1.0.0", "properties": {"p": {"type": 5}}}, 'parameter "type": value "5"'),
        ("a.B", {"version": "1.0.0", "properties": []}, 'item "properties" value "[]" INVALID, is not a map'),
        ("a.B", {"version": "1.0.0", "derived_from": "x:y"}, 'parameter "version": value "y"'),
        ("a.B", "not a map", 'item "a.B" value "not a map" INVALID, is not a map'),
        (
            "a.B",
            {"version": "1.0.0", "properties": {"p": {"type": "string", "status": "odd"}}},
            'item "status" value "odd" INVALID',
        ),
        (
            "a.B",
            {"version": "1.0.0", "properties": {"p": {"type": "string", "constraints": [{"in_range": [1]}]}}},
            'item "in_range" value "[1]" INVALID',
        ),
    ],
)
def test_conversion_errors_are_400(client: httpx.Client, key: str, entity: object, message: str) -> None:
    response = client.post(f"{API}/policytypes", json={"policy_types": {key: entity}})
    assert response.status_code == 400, response.text
    assert message in error_of(response)
    assert_nothing_stored(client)


def test_deeply_nested_json_is_400(client: httpx.Client) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    body = '{"policy_types": {"a.B": {"version": "1.0.0", "metadata": {"x": ' + deep + "}}}}"
    response = client.post(f"{API}/policytypes", content=body, headers=JSON)
    assert response.status_code == 400
    assert "nested deeper than" in error_of(response)


def test_deeply_nested_yaml_is_400(client: httpx.Client) -> None:
    body = "policy_types: " + "[" * 100_000 + "]" * 100_000
    response = client.post(f"{API}/policytypes", content=body, headers=YAML)
    assert response.status_code == 400
    assert "nested deeper than" in error_of(response)


def test_yaml_alias_bomb_is_refused_quickly(client: httpx.Client) -> None:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for level in range(1, 10):
        previous = f"*a{level - 1}"
        lines.append(f"a{level}: &a{level} [{', '.join([previous] * 9)}]")
    lines.append("policy_types: {a.B: {version: 1.0.0, metadata: {bomb: *a9}}}")
    response = client.post(f"{API}/policytypes", content="\n".join(lines), headers=YAML, timeout=30)
    assert response.status_code == 400
    assert "more than" in error_of(response)
    assert_nothing_stored(client)


def test_huge_body_is_413(client: httpx.Client) -> None:
    body = json.dumps({"policy_types": {"a.B": {"version": "1.0.0", "description": "x" * (9 * 1024 * 1024)}}})
    response = client.post(f"{API}/policytypes", content=body, headers=JSON)
    assert response.status_code == 413
    assert response.json()["code"] in {"REQUEST_ENTITY_TOO_LARGE", "CONTENT_TOO_LARGE"}


def test_nul_characters_lone_surrogates_and_repeated_keys_elsewhere_are_400(client: httpx.Client) -> None:
    response = client.post(f"{API}/policytypes", json=policy_type_template(SAMPLE + "\x00"))
    assert response.status_code == 400
    surrogate = b'{"policy_types": {"a.B": {"version": "1.0.0", "description": "\\ud800"}}}'
    response = client.post(f"{API}/policytypes", content=surrogate, headers=JSON)
    assert response.status_code == 400
    assert "lone surrogate" in error_of(response)
    repeated = '{"policy_types": {"a.B": {"version": "1.0.0", "description": "a", "description": "b"}}}'
    response = client.post(f"{API}/policytypes", content=repeated, headers=JSON)
    assert response.status_code == 400
    assert 'key "description" appears more than once' in error_of(response)


def test_yaml_timestamps_and_odd_keys_become_strings(client: httpx.Client) -> None:
    body = (
        "policy_types:\n  a.B:\n    version: 1.0.0\n    metadata:\n      created: 2020-01-01\n      1: one\n"
        "    properties:\n      p:\n        type: string\n        default: 2021-02-03 04:05:06\n"
    )
    response = client.post(f"{API}/policytypes", content=body, headers=YAML)
    assert response.status_code == 200, response.text
    created = response.json()["policy_types"]["a.B"]
    assert client.delete(f"{API}/policytypes/a.B/versions/1.0.0").status_code == 200
    assert created["metadata"] == {"created": "2020-01-01", "1": "one"}
    assert created["properties"]["p"]["default"] == "2021-02-03 04:05:06"


def test_bad_path_parameters_are_400_not_500(client: httpx.Client) -> None:
    for path in (
        f"{API}/policytypes/bad%00name",
        f"{API}/policytypes/{'x' * 200}",
        f"{API}/policies/a/versions/1.0.0.0",
        f"{API}/nodetemplates/a/versions/latest",
    ):
        response = client.get(path)
        assert response.status_code == 400, (path, response.text)
