"""Authorization of the config tree (issue 23), over real HTTP: what each built-in role may do.

The tree is served by one route taking every method; GET (and HEAD) read, every other method
writes, including those the route refuses itself (PATCH, OPTIONS, TRACE): a caller who may only
read gets 403 for them before the handler's 405. The refusal comes before the body is parsed.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any, cast

import httpx
import pytest
from fastapi import FastAPI

from ..conftest import ADMIN, RunningService, service_on_fresh_store
from ..support.configtree_paths import ROOT, entry_body, entry_path, error_of, example_entry

READER = ("reader", "reader-pw")
WRITER = ("writer", "writer-pw")
NOBODY = ("nobody", "nobody-pw")
OUTSIDER = ("outsider", "outsider-pw")
USERS = (
    "admin:admin,reader:reader-pw:configtree.reader,writer:writer-pw:configtree.writer,"
    "nobody:nobody-pw,outsider:outsider-pw:policy.writer|blueprints.writer|router.writer"
)
READ_METHODS = {"GET", "HEAD"}
READ = "platform.configtree.api|config|read"
WRITE = "platform.configtree.api|config|write"
METRICS = "platform.configtree.api|metrics|read"


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningService]:
    """One config tree for the module: every test works on an entry of its own."""
    directory = tmp_path_factory.mktemp("configtree-authz")
    with service_on_fresh_store("configtree", directory, users=USERS) as running:
        yield running


def stored_entry(service: RunningService) -> str:
    """The path of a new entry stored by the administrator."""
    resource_id = f"ar-{uuid.uuid4().hex[:8]}"
    with service.client(auth=ADMIN) as admin:
        put = admin.put(entry_path(resource_id), json=entry_body(example_entry(resource_id)))
        assert put.status_code == 201, put.text
    return entry_path(resource_id)


def operations(service: RunningService, node: str) -> list[tuple[str, str]]:
    """Every (method, path) of the app's route table; the tree's catch-all path addresses ``node``."""
    app = cast(FastAPI, service.server.server.config.app)
    found: list[tuple[str, str]] = []
    for route in app.state.route_table.routes:
        if (route.openapi_extra or {}).get("security") == []:
            continue  # public (the kernel's /health)
        path = route.path.replace("/config/{path:any_path}", node.rstrip("/"))
        assert "{" not in path, path
        found.extend((method, path) for method in sorted(route.methods))
    return found


def assert_refused(response: httpx.Response, user: str, permission: str) -> None:
    """403 in the config tree's RESTCONF error body, naming the permission the caller lacks."""
    assert response.status_code == 403, (response.request.method, response.text)
    if response.request.method == "HEAD":
        return  # no body to read
    assert error_of(response) == {
        "error-type": "protocol",
        "error-tag": "access-denied",
        "error-message": f"User {user} does not have permission {permission}",
    }


def test_a_reader_gets_200_on_the_reads(service: RunningService) -> None:
    node = stored_entry(service)
    with service.client(auth=READER) as reader:
        for path in (ROOT, node, node + "GENERIC-RESOURCE-API:allotted-resource-data/"):
            response = reader.get(path)
            assert response.status_code == 200, (path, response.text)


def test_a_reader_passes_every_read_and_is_refused_every_write(service: RunningService) -> None:
    node = stored_entry(service)
    walked = operations(service, node)
    methods = {method for method, path in walked if path.startswith("/config/")}
    assert methods == {"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE"}
    with service.client(auth=READER) as reader:
        for method, path in walked:
            response = reader.request(method, path)  # no body: refused before it is read
            if method in READ_METHODS:
                assert response.status_code not in (401, 403), (method, path, response.text)
            else:
                assert_refused(response, "reader", WRITE)
        # The refused DELETE (and PUT without a body) left the entry as it was.
        assert reader.get(node).status_code == 200


def test_a_writer_creates_replaces_and_deletes(service: RunningService) -> None:
    resource_id = f"ar-{uuid.uuid4().hex[:8]}"
    entry: dict[str, Any] = example_entry(resource_id)
    with service.client(auth=WRITER) as writer:
        created = writer.post(ROOT, json=entry_body(entry))
        assert created.status_code == 201, created.text
        assert writer.get(entry_path(resource_id)).json() == entry_body(entry)
        replaced = writer.put(entry_path(resource_id), json=entry_body({"allotted-resource-id": resource_id}))
        assert replaced.status_code == 204, replaced.text
        assert writer.delete(entry_path(resource_id)).status_code == 204


def test_an_identity_without_roles_is_refused_reads_and_writes(service: RunningService) -> None:
    node = stored_entry(service)
    with service.client(auth=NOBODY) as nobody:
        for method, path in operations(service, node):
            wanted = METRICS if path == "/metrics" else READ if method in READ_METHODS else WRITE
            assert_refused(nobody.request(method, path), "nobody", wanted)


def test_a_policy_writer_may_not_write_the_tree(service: RunningService) -> None:
    node = stored_entry(service)
    resource_id = f"ar-{uuid.uuid4().hex[:8]}"
    with service.client(auth=OUTSIDER) as outsider:
        created = outsider.post(ROOT, json=entry_body(example_entry(resource_id)))
        assert_refused(created, "outsider", WRITE)
        assert_refused(outsider.delete(node), "outsider", WRITE)
        assert_refused(outsider.get(node), "outsider", READ)
    with service.client(auth=ADMIN) as admin:
        assert admin.get(node).status_code == 200
        assert admin.get(entry_path(resource_id)).status_code == 404


def test_the_document_shows_each_operations_permission(service: RunningService) -> None:
    with service.client(auth=READER) as reader:
        document = reader.get("/openapi.json").json()
    node_paths = {path: item for path, item in document["paths"].items() if path.startswith("/config/")}
    assert node_paths
    for path, item in node_paths.items():
        for method, operation in item.items():
            if method == "parameters":
                continue
            expected = READ if method == "get" else WRITE
            assert operation["x-permission"] == expected, (method, path)
    assert document["paths"]["/metrics"]["get"]["x-permission"] == METRICS
