"""The audit cannot be skipped and does not leak: bodies nested too deeply are refused in the
output's shape, masking takes every name an input is accepted under and JSON text too, and a
run refused before it started keeps its header, not its body."""

from __future__ import annotations

import json
from typing import Any

import httpx

from netplatform.blueprints.execution.audit import REDACTED, masked

from ...support.cbas import PROCESS, assignment, cba, execution, resolution_node, workflow
from .conftest import run, save
from .test_audit_and_components import audit_of, secret_cba


def nested(depth: int, leaf: Any) -> Any:
    value = leaf
    for _ in range(depth):
        value = {"n": value}
    return value


def test_a_body_nested_too_deeply_is_400_in_the_output_shape_and_runs_nothing(client: httpx.Client) -> None:
    save(client, secret_cba())
    request = execution("secret", "login", {"login-properties": {"user": "u", "password": "p"}})
    request["payload"]["login-request"]["deep"] = nested(600, "x")
    answer = client.post(PROCESS, content=json.dumps(request))
    assert answer.status_code == 400, answer.text
    body = answer.json()
    assert body["status"]["code"] == 400
    assert body["status"]["eventType"] == "EVENT_COMPONENT_FAILURE"
    assert "more than 64 deep" in body["status"]["errorMessage"]
    assert audit_of(client, request) == []  # refused before it was read: nothing ran
    # Far deeper than the JSON decoder goes: the same answer, not a 500.
    deepest = client.post(PROCESS, content=b"[" * 200_000 + b"]" * 200_000)
    assert deepest.status_code == 400, deepest.text
    assert deepest.json()["status"]["code"] == 400


def test_nan_is_not_json(client: httpx.Client) -> None:
    request = json.dumps(execution("secret", "login", {"x": 1})).replace("1}", "NaN}")
    answer = client.post(PROCESS, content=request)
    assert answer.status_code == 400, answer.text
    assert "NaN is not a JSON value" in answer.json()["status"]["errorMessage"]


def test_a_body_at_the_depth_bound_runs_and_is_recorded(client: httpx.Client) -> None:
    save(client, secret_cba())
    request = execution("secret", "login", {"login-properties": {"user": "u", "password": "deep-pw"}})
    request["payload"]["login-request"]["deep"] = nested(60, {"password": "deeper-pw"})
    run(client, request)
    (record,) = audit_of(client, request)
    assert "-pw" not in record["workflowTaskContent"] + record["workflowResponseContent"]


def test_an_input_given_under_its_dictionary_name_is_masked(client: httpx.Client) -> None:
    mapping = [
        assignment("user"),
        assignment("password", dictionary="device-password", metadata={"log-protect": "true"}),
    ]
    steps = workflow({"s": {"target": "n"}}, outputs={"map": {"get_attribute": ["n", "assignment-map"]}})
    save(
        client,
        cba(
            "by-dictionary",
            {"login": steps},
            {"n": resolution_node({"login": None})},
            {"Templates/login-mapping.json": mapping},
        ),
    )
    request = execution(
        "by-dictionary", "login", {"login-properties": {"user": "u1", "device-password": "dict-s3cret"}}
    )
    body = run(client, request)
    assert body["payload"]["login-response"]["map"]["login"]["password"] == "dict-s3cret"
    (record,) = audit_of(client, request)
    assert "dict-s3cret" not in record["workflowTaskContent"] + record["workflowResponseContent"]
    task = json.loads(record["workflowTaskContent"])
    assert task["login-request"]["login-properties"]["device-password"] == REDACTED


def test_values_stored_as_json_text_are_masked_in_the_audit(client: httpx.Client) -> None:
    """With no template, a prefix's content is its values as JSON text: masked there too."""
    mapping = [assignment("user"), assignment("password", metadata={"log-protect": "true"})]
    steps = workflow(
        {"s": {"target": "n"}}, outputs={"params": {"get_attribute": ["n", "assignment-params"]}}
    )
    save(
        client,
        cba(
            "as-json",
            {"login": steps},
            {"n": resolution_node({"login": None})},
            {"Templates/login-mapping.json": mapping},
        ),
    )
    request = execution("as-json", "login", {"login-properties": {"user": "u1", "password": "json-s3cret"}})
    body = run(client, request)
    content = body["payload"]["login-response"]["params"]["login"]
    assert json.loads(content) == {"password": "json-s3cret", "user": "u1"}  # the caller's answer
    (record,) = audit_of(client, request)
    assert "json-s3cret" not in record["workflowResponseContent"]
    recorded = json.loads(
        json.loads(record["workflowResponseContent"])["payload"]["login-response"]["params"]["login"]
    )
    assert recorded == {"password": REDACTED, "user": "u1"}


def test_a_refused_run_keeps_its_header_not_its_body(client: httpx.Client) -> None:
    request = execution("no-such-blueprint", "login", {"bulk": "x" * 500_000})
    run(client, request, 404)
    (record,) = audit_of(client, request)
    assert record["status"] == "Failed"
    assert record["blueprintName"] == "no-such-blueprint"
    assert record["workflowName"] == "login"
    assert "failed to get blueprint model by name(no-such-blueprint)" in record["errorMessage"]
    assert json.loads(record["workflowTaskContent"]) == {}


def test_masking_takes_any_depth_and_shape() -> None:
    """Iterative: a value nested far past the interpreter's recursion limit is masked."""
    deep = nested(50_000, {"password": "x", "kept": [1, {"password": "y"}]})
    copied = masked(deep, frozenset({"password"}))
    for _ in range(50_000):
        copied = copied["n"]
    assert copied == {"password": REDACTED, "kept": [1, {"password": REDACTED}]}
    escaped = masked({"text": '{"pass\\u0077ord": "z"}'}, frozenset({"password"}))
    assert "z" not in json.dumps(escaped)
