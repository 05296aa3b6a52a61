"""POST /api/v1/execution-service/process: the answer's shape and codes, steps and edges, components."""

from __future__ import annotations

import httpx

from ...conftest import ServiceStarter, SettingsFactory
from ...support.cbas import PROCESS, assignment, cba, component_node, execution, resolution_node, workflow
from .conftest import run, save
from .test_render_bounds import SLOW_VELOCITY

HOST_TEMPLATE = "hostname ${hostname}\n#if($enabled)enabled#else disabled#end\n"


def hostname_cba(name: str = "hello", template: str = HOST_TEMPLATE, **node_inputs: object) -> bytes:
    mapping = [assignment("hostname"), assignment("enabled", type_="boolean", required=False)]
    return cba(
        name,
        {
            "config-assign": workflow(
                {"assign": {"target": "resolve"}},
                outputs={"dry-run": {"get_attribute": ["resolve", "assignment-params"]}},
                inputs={"resolution-key": {"type": "string", "required": False}},
            )
        },
        {
            "resolve": resolution_node(
                {"hostname": "vtl"}, {"resolution-key": {"get_input": "resolution-key"}, **node_inputs}
            )
        },
        {"Templates/hostname-mapping.json": mapping, "Templates/hostname-template.vtl": template},
    )


def test_single_step_success_echoes_and_answers_the_outputs(client: httpx.Client) -> None:
    save(client, hostname_cba())
    request = execution(
        "hello", "config-assign", {"config-assign-properties": {"hostname": "r1", "enabled": True}}
    )
    request["actionIdentifiers"]["mode"] = "SYNC"  # onapsdk's spelling
    body = run(client, request)
    assert body["status"]["eventType"] == "EVENT_COMPONENT_EXECUTED"
    assert body["status"]["message"] == "success"
    assert body["status"]["errorMessage"] is None
    assert body["correlationUUID"] is None
    assert body["commonHeader"]["requestId"] == request["commonHeader"]["requestId"]
    assert body["commonHeader"]["timestamp"] == "2026-11-27T10:00:00.123Z"
    assert body["actionIdentifiers"]["blueprintName"] == "hello"
    rendered = body["payload"]["config-assign-response"]["dry-run"]["hostname"]
    assert rendered == "hostname r1\nenabled"


def test_a_missing_required_value_is_a_500_with_the_message(client: httpx.Client) -> None:
    save(client, hostname_cba())
    body = run(client, execution("hello", "config-assign", {"config-assign-properties": {}}), 500)
    assert body["status"]["eventType"] == "EVENT_COMPONENT_FAILURE"
    assert body["status"]["message"] == "failure"
    assert "Failed to resolve required values: [hostname]" in body["status"]["errorMessage"]


def test_an_unresolved_optional_value_renders_as_written(client: httpx.Client) -> None:
    save(client, hostname_cba())
    body = run(client, execution("hello", "config-assign", {"config-assign-properties": {"hostname": "r2"}}))
    assert body["payload"]["config-assign-response"]["dry-run"]["hostname"] == "hostname r2\nenabled"
    # $enabled printed as the text "${enabled}" is truthy in #if: the reference's Velocity does the same


def test_bad_requests_are_400_in_the_output_shape(client: httpx.Client) -> None:
    save(client, hostname_cba())
    answer = client.post(PROCESS, content=b"{not json", headers={"Content-Type": "application/json"})
    assert answer.status_code == 400
    assert answer.json()["status"]["code"] == 400
    missing_block = execution("hello", "config-assign", {})
    missing_block["payload"] = {"other-request": {}}
    body = run(client, missing_block, 400)
    assert "config-assign-request" in body["status"]["errorMessage"]
    assert body["commonHeader"]["requestId"] == missing_block["commonHeader"]["requestId"]
    no_header = execution("hello", "config-assign", {})
    del no_header["commonHeader"]["requestId"]
    assert run(client, no_header, 400)["status"]["eventType"] == "EVENT_COMPONENT_FAILURE"
    bad_mode = execution("hello", "config-assign", {}, mode="later")
    assert run(client, bad_mode, 400)["status"]["message"] == "failure"


def test_unknown_blueprint_version_or_workflow_is_404_in_the_output_shape(client: httpx.Client) -> None:
    save(client, hostname_cba())
    for request in (
        execution("nothing", "config-assign", {}),
        execution("hello", "config-assign", {}, version="9.9.9"),
        execution("hello", "xyz", {}),
    ):
        body = run(client, request, 404)
        assert body["status"]["eventType"] == "EVENT_COMPONENT_FAILURE"
        assert body["payload"] == request["payload"]
    assert "could't get workflow(xyz)" in body["status"]["errorMessage"]


def test_a_model_saved_or_deleted_on_one_instance_is_what_the_next_run_on_another_finds(
    start_service: ServiceStarter, make_settings: SettingsFactory
) -> None:
    """Each instance keeps the models its runs looked up (per catalog generation): a model saved
    again or deleted through another instance over the same database is never run stale."""
    first = start_service("blueprints", make_settings(instance_name="first"))
    second = start_service("blueprints", make_settings(instance_name="second"))
    request = execution("hello", "config-assign", {"config-assign-properties": {"hostname": "r1"}})
    with first.client() as one, second.client() as other:
        save(one, hostname_cba(template="first ${hostname}\n"))
        dry_run = run(other, request)["payload"]["config-assign-response"]["dry-run"]
        assert dry_run == {"hostname": "first r1\n"}
        save(one, hostname_cba(template="second ${hostname}\n"))
        dry_run = run(other, request)["payload"]["config-assign-response"]["dry-run"]
        assert dry_run == {"hostname": "second r1\n"}
        deleted = one.delete("/api/v1/blueprint-model/name/hello/version/1.0.0")
        assert deleted.status_code == 200, deleted.text
        assert "failed to get blueprint model" in run(other, request, 404)["status"]["errorMessage"]


def test_an_unsupported_component_fails_and_nothing_runs(client: httpx.Client) -> None:
    archive = cba(
        "scripted",
        {
            "deploy": workflow(
                {"run": {"target": "script", "on_success": ["assign"]}, "assign": {"target": "resolve"}},
                outputs={"out": {"get_attribute": ["resolve", "assignment-params"]}},
            )
        },
        {
            "script": component_node("component-script-executor", {"script-type": "jython"}),
            "resolve": resolution_node({"hostname": None}, {"store-result": True, "resolution-key": "k1"}),
        },
        {"Templates/hostname-mapping.json": [assignment("hostname", "default", default="h")]},
    )
    save(client, archive)
    body = run(client, execution("scripted", "deploy", {}), 500)
    assert "component type component-script-executor is not supported" in body["status"]["errorMessage"]
    assert body["payload"]["deploy-response"]["out"] is None  # the next step never ran
    stored = client.get(
        "/api/v1/resources",
        params={
            "bpName": "scripted",
            "bpVersion": "1.0.0",
            "artifactName": "hostname",
            "resolutionKey": "k1",
        },
    )
    assert stored.json() == []


def multi_step(first_fails: bool, with_failure_edge: bool) -> bytes:
    first = {"target": "first", "on_success": ["second"]}
    if with_failure_edge:
        first["on_failure"] = ["recover"]
    return cba(
        f"multi-{first_fails}-{with_failure_edge}",
        {
            "go": workflow(
                {"one": first, "second": {"target": "second"}, "recover": {"target": "recover"}},
                outputs={
                    "first": {"get_attribute": ["first", "assignment-map"]},
                    "second": {"get_attribute": ["second", "assignment-map"]},
                    "recover": {"get_attribute": ["recover", "assignment-map"]},
                },
            )
        },
        {
            "first": resolution_node({"a": None}),
            "second": resolution_node({"b": None}),
            "recover": resolution_node({"c": None}),
        },
        {
            "Templates/a-mapping.json": [assignment("a", required=first_fails)],
            "Templates/b-mapping.json": [assignment("b", "default", default="B")],
            "Templates/c-mapping.json": [assignment("c", "default", default="C")],
        },
    )


def test_multi_step_success_follows_on_success(client: httpx.Client) -> None:
    save(client, multi_step(first_fails=False, with_failure_edge=True))
    body = run(client, execution("multi-False-True", "go", {}))
    outputs = body["payload"]["go-response"]
    assert outputs["second"] == {"b": {"b": "B"}}
    assert outputs["recover"] is None


def test_multi_step_failure_follows_on_failure_and_completes(client: httpx.Client) -> None:
    save(client, multi_step(first_fails=True, with_failure_edge=True))
    body = run(client, execution("multi-True-True", "go", {}))
    outputs = body["payload"]["go-response"]
    assert outputs["recover"] == {"c": {"c": "C"}}
    assert outputs["second"] is None
    assert body["status"]["errorMessage"] is None  # handled by the on_failure edge


def test_multi_step_failure_without_an_edge_fails_the_workflow(client: httpx.Client) -> None:
    save(client, multi_step(first_fails=True, with_failure_edge=False))
    body = run(client, execution("multi-True-False", "go", {}), 500)
    message = body["status"]["errorMessage"]
    assert "step(one): Failed to resolve required values: [a]" in message
    assert "node(one) outgoing edge(FAILURE) is missing." in message


def test_a_step_cycle_is_refused_when_saved(client: httpx.Client) -> None:
    archive = cba(
        "cyclic",
        {
            "go": workflow(
                {"a": {"target": "n", "on_success": ["b"]}, "b": {"target": "n", "on_failure": ["a"]}}
            )
        },
        {"n": resolution_node({"a": None})},
        {"Templates/a-mapping.json": [assignment("a")]},
    )
    answer = client.post("/api/v1/blueprint-model", files={"file": ("cba.zip", archive, "application/zip")})
    assert answer.status_code == 400
    assert "acyclic" in answer.json()["message"]


def test_a_step_timeout_fails_it_naming_the_step(client: httpx.Client) -> None:
    archive = cba(
        "slow",
        {"go": workflow({"slow-step": {"target": "n"}})},
        {"n": resolution_node({"a": "vtl"}, timeout=1)},
        {
            "Templates/a-mapping.json": [assignment("a", "default", default="x")],
            "Templates/a-template.vtl": SLOW_VELOCITY,
        },
    )
    save(client, archive)
    body = run(client, execution("slow", "go", {}), 500)
    assert "step(slow-step): timed out after 1.0 s" in body["status"]["errorMessage"]


def test_expressions_get_input_property_and_dsl(client: httpx.Client) -> None:
    archive = cba(
        "exprs",
        {
            "go": workflow(
                {"s": {"target": "n"}},
                outputs={
                    "key": {"get_input": "resolution-key"},
                    "prop": {"get_property": ["n", "site"]},
                    "dsl": "*settings",
                    "map": {"get_attribute": ["n", "assignment-map", "p", "v"]},
                },
                inputs={"resolution-key": {"type": "string", "default": "dflt"}},
            )
        },
        {"n": {**resolution_node({"p": None}), "properties": {"site": "*site-name"}}},
        {"Templates/p-mapping.json": [assignment("v", "default", default=7, type_="integer")]},
        dsl={"settings": {"retries": 3}, "site-name": "paris"},
    )
    save(client, archive)
    outputs = run(client, execution("exprs", "go", {}))["payload"]["go-response"]
    assert outputs == {"key": "dflt", "prop": "paris", "dsl": {"retries": 3}, "map": 7}
