"""Async runs and the audit (log-protect masked), who may execute, deletion and snapshot components."""

from __future__ import annotations

import json
from typing import Any

import httpx

from ...conftest import RunningService, ServiceStarter
from ...support.cbas import PROCESS, assignment, cba, component_node, execution, resolution_node, workflow
from ...support.waiting import wait_until
from .conftest import run, save

AUDIT = "/api/v1/workflow/audit-status"


def secret_cba() -> bytes:
    mapping = [
        assignment("user"),
        assignment("password", metadata={"log-protect": "true"}),
    ]
    return cba(
        "secret",
        {
            "login": workflow(
                {"s": {"target": "n"}}, outputs={"map": {"get_attribute": ["n", "assignment-map"]}}
            )
        },
        {"n": resolution_node({"login": None})},
        {"Templates/login-mapping.json": mapping},
    )


def audit_of(client: httpx.Client, request: dict[str, Any]) -> list[dict[str, Any]]:
    header = request["commonHeader"]
    answer = client.get(f"{AUDIT}/{header['requestId']}/{header['subRequestId']}")
    assert answer.status_code == 200
    records: list[dict[str, Any]] = answer.json()
    return records


def test_async_answers_processing_and_the_audit_holds_the_result_masked(client: httpx.Client) -> None:
    save(client, secret_cba())
    request = execution(
        "secret", "login", {"login-properties": {"user": "u1", "password": "s3cret"}}, mode="Async"
    )
    body = run(client, request)
    assert body["status"]["eventType"] == "EVENT_COMPONENT_PROCESSING"
    assert body["status"]["message"] == "processing"

    def finished() -> bool:
        records = audit_of(client, request)
        return not records or records[0]["status"] != "In Progress"

    wait_until(finished, timeout=10, what="the async execution's audit record done")
    (record,) = audit_of(client, request)
    assert record["status"] == "Completed"
    assert record["requestMode"] == "async"
    assert record["blueprintName"] == "secret"
    assert record["workflowName"] == "login"
    assert record["endDate"] is not None
    assert "s3cret" not in record["workflowTaskContent"] + record["workflowResponseContent"]
    assert (
        json.loads(record["workflowTaskContent"])["login-request"]["login-properties"]["password"]
        == "****REDACTED****"
    )
    output = json.loads(record["workflowResponseContent"])
    assert output["payload"]["login-response"]["map"]["login"]["user"] == "u1"
    assert output["status"]["code"] == 200


def test_sync_failures_are_audited_as_failed(client: httpx.Client) -> None:
    save(client, secret_cba())
    request = execution("secret", "login", {"login-properties": {"user": "u1"}})
    run(client, request, 500)
    (record,) = audit_of(client, request)
    assert record["status"] == "Failed"
    assert "Failed to resolve required values: [password]" in record["errorMessage"]
    unknown = execution("nothing", "login", {})
    run(client, unknown, 404)
    assert audit_of(client, unknown)[0]["status"] == "Failed"


def test_a_sync_run_is_recorded_once_it_has_ended_masked(client: httpx.Client) -> None:
    """A sync run's record is written when it ends (no In Progress row first): the same record
    the async path leaves, with the start taken before the run."""
    save(client, secret_cba())
    request = execution("secret", "login", {"login-properties": {"user": "u2", "password": "hidden"}})
    body = run(client, request)
    (record,) = audit_of(client, request)
    assert record["status"] == "Completed"
    assert record["requestMode"] == "sync"
    assert record["errorMessage"] is None
    assert record["startDate"] <= record["endDate"] == record["updatedDate"]
    assert "hidden" not in record["workflowTaskContent"] + record["workflowResponseContent"]
    output = json.loads(record["workflowResponseContent"])
    assert output["payload"]["login-response"]["map"]["login"]["password"] == "****REDACTED****"
    assert output["payload"]["login-response"]["map"]["login"]["user"] == "u2"
    assert output["status"] == body["status"]
    again = run(client, request)  # the same ids again: a second record, after the first
    first, second = audit_of(client, request)
    assert first["id"] == record["id"] < second["id"]
    assert again["status"]["code"] == 200


def test_who_may_execute(
    service: RunningService, client: httpx.Client, start_service: ServiceStarter
) -> None:
    save(client, secret_cba())
    request = execution("secret", "login", {"login-properties": {"user": "u", "password": "p"}})
    with service.client(auth=("operator", "op-secret")) as operator:
        refused = operator.post(PROCESS, json=request)
        assert refused.status_code == 403
        assert "platform.blueprints.execution|<blueprintName>|execute" in refused.json()["message"]
        authz = start_service("authz", service.settings)
        with authz.client() as admin:
            assert admin.post(
                "/authz/role", json={"name": "exec-secret", "description": "runs secret"}
            ).is_success
            perm = {"type": "platform.blueprints.execution", "instance": "secret", "action": "execute"}
            assert admin.post("/authz/role/perm", json={"role": "exec-secret", "perm": perm}).is_success
            assert admin.post("/authz/userRole", json={"user": "operator", "role": "exec-secret"}).is_success
        answers: list[httpx.Response] = []

        def executed() -> bool:
            answers.append(operator.post(PROCESS, json=request))
            return answers[-1].status_code != 403

        wait_until(executed, timeout=5, what="the operator's new role applied")
        assert answers[-1].status_code == 200, answers[-1].text
        other = execution("other", "login", {})
        refused_other = operator.post(PROCESS, json=other)
        assert refused_other.status_code == 403
        assert "platform.blueprints.execution|other|execute" in refused_other.json()["message"]


def deletion_cba() -> bytes:
    return cba(
        "cleanup",
        {
            "assign": workflow({"s": {"target": "n"}}),
            "delete": workflow(
                {"d": {"target": "del"}}, outputs={"result": {"get_attribute": ["del", "result"]}}
            ),
        },
        {
            "n": resolution_node({"p": None}, {"store-result": True, "resolution-key": "k", "occurrence": 3}),
            "del": component_node(
                "component-resource-deletion",
                {
                    "artifact-prefix-names": ["p"],
                    "resolution-key": "k",
                    "last-n-occurrences": 2,
                    "fail-on-empty": True,
                },
            ),
        },
        {"Templates/p-mapping.json": [assignment("a", "default", default="x")]},
    )


def test_deletion_removes_the_last_occurrences(client: httpx.Client) -> None:
    save(client, deletion_cba())
    run(client, execution("cleanup", "assign", {}))
    body = run(client, execution("cleanup", "delete", {}))
    assert body["payload"]["delete-response"]["result"] == {
        "p": {"nDeletedTemplates": 2, "nDeletedResources": 2}
    }
    left = client.get(
        "/api/v1/resources",
        params={"bpName": "cleanup", "bpVersion": "1.0.0", "artifactName": "p", "resolutionKey": "k"},
    )
    assert [value["occurrence"] for value in left.json()] == [1]
    run(client, execution("cleanup", "delete", {}))
    again = run(client, execution("cleanup", "delete", {}), 500)
    assert "No templates or resources were deleted" in again["status"]["errorMessage"]


def test_config_snapshots_store_fetch_and_diff(client: httpx.Client) -> None:
    def node(operation: str, status: str = "RUNNING", snapshot: Any = None) -> dict[str, Any]:
        inputs = {
            "operation": operation,
            "resource-type": "router",
            "resource-id": "r1",
            "resource-status": status,
            "diff-content-type": "json",
        }
        if snapshot is not None:
            inputs["resource-snapshot"] = snapshot
        return component_node("component-config-snapshots-executor", inputs)

    outputs = {
        "value": {"get_attribute": ["n", "config-snapshot-value"]},
        "status": {"get_attribute": ["n", "config-snapshot-status"]},
    }
    flows = {
        "store-running": node("store", "RUNNING", {"mtu": 1500, "name": "r1"}),
        "store-candidate": node("store", "CANDIDATE", {"mtu": 9000, "name": "r1"}),
        "fetch": node("fetch"),
        "diff": node("diff"),
    }
    archive = cba(
        "snapshots",
        {
            name: workflow(
                {"s": {"target": name}},
                outputs={k: {"get_attribute": [name, v["get_attribute"][1]]} for k, v in outputs.items()},
            )
            for name in flows
        },
        flows,
        {},
    )
    save(client, archive)
    for name in ("store-running", "store-candidate"):
        assert (
            run(client, execution("snapshots", name, {}))["payload"][f"{name}-response"]["status"]
            == "success"
        )
    fetched = run(client, execution("snapshots", "fetch", {}))["payload"]["fetch-response"]
    assert json.loads(fetched["value"]) == {"mtu": 1500, "name": "r1"}
    assert client.get(
        "/api/v1/configs", params={"resourceType": "router", "resourceId": "r1", "status": "CANDIDATE"}
    ).json() == {"mtu": 9000, "name": "r1"}
    diff = run(client, execution("snapshots", "diff", {}))["payload"]["diff-response"]
    assert json.loads(diff["value"]) == [{"op": "replace", "path": "/mtu", "value": 9000}]
