"""Fixtures of the policy suite: a live policy service and small TOSCA templates to post to it."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from ..conftest import RunningService, ServiceStarter, service_on_fresh_store

API = "/policy/api/v1"


@pytest.fixture
def service(start_service: ServiceStarter) -> RunningService:
    return start_service("policy")


@pytest.fixture
def client(service: RunningService) -> Iterator[httpx.Client]:
    with service.client() as http:
        yield http


@pytest.fixture(scope="module")
def shared_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    """One policy service for a whole module, for tests that leave no state others depend on.

    A fresh database per test costs seconds on PostgreSQL; modules whose tests only read, or
    store entities under names of their own, share this one.
    """
    with (
        service_on_fresh_store("policy", tmp_path_factory.mktemp("policy")) as service,
        service.client() as http,
    ):
        yield http


def policy_type_template(
    name: str = "test.policies.Sample",
    version: str = "1.0.0",
    *,
    derived_from: str = "tosca.policies.Root",
    properties: dict[str, Any] | None = None,
    data_types: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A service template with one policy type (and optional data types)."""
    policy_type: dict[str, Any] = {
        "derived_from": derived_from,
        "version": version,
        "description": "a test type",
    }
    policy_type["properties"] = properties if properties is not None else {"size": {"type": "integer"}}
    template: dict[str, Any] = {
        "tosca_definitions_version": "tosca_simple_yaml_1_1_0",
        "policy_types": {name: policy_type},
    }
    if data_types:
        template["data_types"] = copy.deepcopy(data_types)
    return template


def policy_template(*policies: dict[str, Any]) -> dict[str, Any]:
    """A service template with these policies (each a ``{name: policy}`` map)."""
    return {
        "tosca_definitions_version": "tosca_simple_yaml_1_1_0",
        "topology_template": {"policies": list(policies)},
    }


def policy(
    name: str = "test.policy",
    version: str = "1.0.0",
    *,
    type_name: str = "test.policies.Sample",
    type_version: str = "1.0.0",
    properties: dict[str, Any] | None = None,
    metadata: dict[str, Any] | None = None,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "type": type_name,
        "type_version": type_version,
        "version": version,
        "properties": properties if properties is not None else {"size": 1},
    }
    if metadata is not None:
        body["metadata"] = metadata
    return {name: body}


def create_type(client: httpx.Client, *args: Any, **kwargs: Any) -> httpx.Response:
    response = client.post(f"{API}/policytypes", json=policy_type_template(*args, **kwargs))
    assert response.status_code == 200, response.text
    return response


def create_policies(client: httpx.Client, *policies: dict[str, Any]) -> httpx.Response:
    response = client.post(f"{API}/policies", json=policy_template(*policies))
    assert response.status_code == 200, response.text
    return response


def error_of(response: httpx.Response) -> str:
    """The ``error`` message of an ErrorResponse (after checking the body's shape)."""
    body = response.json()
    assert set(body) <= {"code", "error", "details", "warnings"}
    assert body["details"], body
    return str(body["error"])


def policy_names(document: dict[str, Any]) -> list[str]:
    """``name:version`` of each policy of a template, in answer order."""
    return [
        f"{name}:{body['version']}"
        for entry in document.get("topology_template", {}).get("policies", [])
        for name, body in entry.items()
    ]
