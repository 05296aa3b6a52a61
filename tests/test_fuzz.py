"""Schemathesis against each service's OpenAPI document, over real HTTP, with credentials.

Each service is held to its own document: no 5xx, no status code the document does not
list, and every response body matching its documented schema and media type.
"""

from __future__ import annotations

import traceback
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from netplatform.settings import SERVICE_NAMES, Settings
from netplatform.store.db import forget_database
from netplatform.web.auth import basic_header

from .conftest import service_on_fresh_store
from .support.examples import example_count
from .support.servers import LiveServer

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
AUTH_HEADERS = {"Authorization": basic_header("admin", "admin")}
MAX_EXAMPLES = example_count("NETPLATFORM_FUZZ_EXAMPLES", 30)
# A service's operations are split into shards, each a test of its own on a server of its own,
# so that xdist spreads the longest documents over the workers (configtree alone took 150 s,
# the tail of the whole suite). Shard k takes every n-th operation, from the k-th on.
SHARDS: dict[str, int] = {"configtree": 6, "distribution": 3, "policy": 2, "blueprints": 2, "bus": 2}
# Operations that connect to the device a request names (the blueprint catalog's device check and
# host key trust): fuzzed, they would reach whatever host a generated device names.
OUTBOUND = {("POST", "/api/v1/devices/{name}/check"), ("POST", "/api/v1/devices/{name}/trust-host-key")}
SHARDED = [(name, shard) for name in SERVICE_NAMES for shard in range(SHARDS.get(name, 1))]


def running_schema(name: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, str]]:
    with service_on_fresh_store(
        name, tmp_path_factory.mktemp(f"fuzz-{name}"), users="admin:admin"
    ) as service:
        yield schemathesis.openapi.from_url(f"{service.url}/openapi.json"), service.url


def fuzz_operation(operation: Any, base_url: str) -> None:
    @given(case=operation.as_strategy())
    @settings(
        max_examples=MAX_EXAMPLES,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        derandomize=True,
        database=None,
    )
    def run(case: Any) -> None:
        case.call_and_validate(base_url=base_url, headers=AUTH_HEADERS, checks=CHECKS)

    run()


@pytest.mark.parametrize(("name", "shard"), SHARDED, ids=[f"{n}-{k}" for n, k in SHARDED])
def test_service_holds_to_its_openapi_document(
    name: str, shard: int, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # schemathesis' own pytest plugin does not run on pytest 9 yet, so the operations are
    # driven here directly; every operation is fuzzed and every failure reported at the end.
    failures: list[str] = []
    for schema, base_url in running_schema(name, tmp_path_factory):
        operations = list(schema.get_all_operations())
        assert operations, f"{name} documents no operation"
        for result in operations[shard :: SHARDS.get(name, 1)]:
            operation = result.ok()
            if (operation.method.upper(), operation.path) in OUTBOUND:
                continue
            try:
                fuzz_operation(operation, base_url)
            except Exception as error:  # collected and reported below
                failures.append(f"{operation.method.upper()} {operation.path}: {error}")
    assert not failures, "\n\n".join(failures)


def test_the_harness_catches_undocumented_statuses_and_server_errors(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """The fuzz test above can fail: a route that breaks its document is caught."""
    from fastapi import APIRouter

    from netplatform.web.app import build_app
    from netplatform.web.errors import plain_text_renderer
    from netplatform.web.service import ServiceSpec

    router = APIRouter()

    @router.get("/teapot/{n}")
    def teapot(n: int) -> dict[str, int]:
        if n % 2:
            raise RuntimeError("odd")  # a 500
        return {"n": n}

    spec = ServiceSpec(name="broken", title="broken", version="0", render_error=plain_text_renderer)
    service_settings = Settings(
        data_dir=tmp_path_factory.mktemp("broken"), users="admin:admin", access_log=False
    )
    with LiveServer(build_app(spec, service_settings, [router])) as server:
        schema = schemathesis.openapi.from_url(f"{server.url}/openapi.json")
        operation = schema["/teapot/{n}"]["GET"]
        with pytest.raises(BaseException) as caught:  # hypothesis may raise a group of failures
            fuzz_operation(operation, server.url)
    assert "Server error" in "".join(traceback.format_exception(caught.value))
    forget_database(service_settings)
