"""Calls of the config deploy tests: devices added, workflows run, results read."""

from __future__ import annotations

from typing import Any

import httpx

from .cbas import PROCESS, execution

DEVICES = "/api/v1/devices"


def add_device(client: httpx.Client, body: dict[str, Any]) -> dict[str, Any]:
    answer = client.post(DEVICES, json=body)
    assert answer.status_code == 201, answer.text
    found: dict[str, Any] = answer.json()
    return found


def run_workflow(
    client: httpx.Client, blueprint: str, action: str, request: dict[str, Any], status: int = 200
) -> dict[str, Any]:
    answer = client.post(PROCESS, json=execution(blueprint, action, request), timeout=120)
    assert answer.status_code == status, answer.text
    body: dict[str, Any] = answer.json()
    return body


def assign(client: httpx.Client, blueprint: str, key: str, **values: Any) -> None:
    run_workflow(
        client, blueprint, "config-assign", {"resolution-key": key, "config-assign-properties": values}
    )


def deploy(
    client: httpx.Client,
    blueprint: str,
    key: str,
    device: Any,
    status: int = 200,
    action: str = "config-deploy",
) -> dict[str, Any]:
    return run_workflow(client, blueprint, action, {"resolution-key": key, "device": device}, status)


def result_of(body: dict[str, Any], action: str = "config-deploy") -> dict[str, Any]:
    found: dict[str, Any] = body["payload"][f"{action}-response"]["result"]
    return found
