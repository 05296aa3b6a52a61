"""A REST source stays under the base path the operator configured, however its url-path is
written: by the CBA or through an input value, with dot segments, percent-encoded, with
backslashes or ``..;``. A path that would leave it fails the step and nothing is sent."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from ...conftest import ServiceStarter, SettingsFactory
from ...support.cbas import assignment, cba, execution, resolution_node, workflow
from .conftest import run, save
from .http_stub import HttpStub

BASE = "/inventory/api"


@pytest.fixture
def stub() -> Iterator[HttpStub]:
    endpoint = HttpStub({"value": "found"}).start()
    yield endpoint
    endpoint.stop()


@pytest.fixture
def catalog(
    stub: HttpStub, start_service: ServiceStarter, make_settings: SettingsFactory
) -> Iterator[httpx.Client]:
    with_auth = stub.url.replace("http://", "http://operator-at-inventory:inv-secret@")
    settings = make_settings(execution_rest_sources=f"inventory={with_auth}{BASE}")
    with start_service("blueprints", settings).client() as client:
        yield client


def rest_cba(name: str, url_path: str) -> bytes:
    """One resolution step whose ``item`` value is read from ``inventory`` at ``url-path``
    (``$p`` in it is the request's ``p``)."""
    definitions = {
        "item": {
            "name": "item",
            "property": {"type": "string", "description": "item"},
            "sources": {
                "inventory": {
                    "type": "source-rest",
                    "properties": {
                        "verb": "GET",
                        "url-path": url_path,
                        "path": "/value",
                        "input-key-mapping": {"p": "p"},
                    },
                }
            },
        }
    }
    mapping = [assignment("p"), assignment("item", "inventory", dependencies=["p"])]
    steps = workflow({"s": {"target": "n"}}, outputs={"map": {"get_attribute": ["n", "assignment-map"]}})
    return cba(
        name,
        {"assign": steps},
        {"n": resolution_node({"rest": None})},
        {"Templates/rest-mapping.json": mapping},
        definitions=definitions,
    )


def run_with(client: httpx.Client, name: str, url_path: str, p: str, status: int) -> dict[str, Any]:
    save(client, rest_cba(name, url_path))
    return run(client, execution(name, "assign", {"assign-properties": {"p": p}}), status)


ESCAPES = [
    ("/../../admin/keys", "x"),
    ("/items/../../../admin/keys", "x"),
    ("/%2e%2e/%2E%2e/admin/keys", "x"),
    ("/%252e%252e/%252e%252e/admin/keys", "x"),
    ("/..%2f..%2fadmin/keys", "x"),
    ("/..%5c..%5cadmin%5ckeys", "x"),
    ("\\..\\..\\admin\\keys", "x"),
    ("/..;/..;/admin/keys", "x"),
    ("/items/$p", "../../../admin/keys"),
    ("/items/$p", "..\\..\\..\\admin\\keys"),
    ("/items/${p}/x", "%2e%2e/%2e%2e/%2e%2e/admin"),
]


@pytest.mark.parametrize(("url_path", "p"), ESCAPES)
def test_a_path_leaving_the_base_fails_the_step_and_sends_nothing(
    catalog: httpx.Client, stub: HttpStub, url_path: str, p: str
) -> None:
    body = run_with(catalog, "escape", url_path, p, 500)
    assert "leaves the endpoint's base path" in body["status"]["errorMessage"], body
    assert stub.paths == []


def test_paths_under_the_base_are_sent_there_normalised(catalog: httpx.Client, stub: HttpStub) -> None:
    found = run_with(catalog, "inside", "/items/$p", "ge-0/0/1", 200)
    assert found["payload"]["assign-response"]["map"]["rest"]["item"] == "found"
    run_with(catalog, "inside-dots", "/items/./x/../y?depth=1", "-", 200)
    assert stub.paths == [f"{BASE}/items/ge-0%2F0%2F1", f"{BASE}/items/y?depth=1"]
    # The operator's credentials went where the operator configured them, and only there.
    assert all(headers.get("authorization", "").startswith("Basic ") for headers in stub.headers)
