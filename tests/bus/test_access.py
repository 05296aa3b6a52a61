"""Who may call the bus controller: every operation declares ``platform.bus.api|<segment>|read``
(GET) or ``|write``, or, where it decides where the bus sends its own credential (the settings,
clusters, distribution nodes: issue 36), ``platform.bus.admin|<segment>|write``, which only
administrators hold; the kernel refuses (403, in the bus's ApiError body) whoever lacks it.

Every operation of the OpenAPI document is called over HTTP as each of: a ``bus.reader``, a
``bus.writer``, a ``policy.writer`` (writes another service only) and an identity with no role.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from netplatform.settings import Settings

from ..conftest import RunningService, ServiceStarter, SettingsFactory
from ..support.answers import ok
from ..support.servers import http_client
from .conftest import BUS_SETTINGS, using

USERS = (
    "admin:admin,reader:reader-pw:bus.reader,writer:writer-pw:bus.writer,"
    "pw:pw-pw:policy.writer,plain:plain-pw"
)
READER, WRITER = ("reader", "reader-pw"), ("writer", "writer-pw")
POLICY_WRITER, PLAIN = ("pw", "pw-pw"), ("plain", "plain-pw")
SEGMENTS = {
    "bus",
    "bridge",
    "svcLocations",
    "dr_nodes",
    "dr_pubs",
    "dr_subs",
    "feeds",
    "mr_clients",
    "mr_clusters",
    "topics",
    "info",
}
ADMINISTERED = {"bus", "mr_clusters", "dr_nodes"}
"""Where every write is an administrator's: what decides where the bus sends its credential."""


def declared(method: str, segment: str) -> str:
    if method == "GET":
        return f"platform.bus.api|{segment}|read"
    if segment in ADMINISTERED:
        return f"platform.bus.admin|{segment}|write"
    return f"platform.bus.api|{segment}|write"


@pytest.fixture
def settings(make_settings: SettingsFactory) -> Settings:
    return make_settings(users=USERS)


@pytest.fixture
def service(start_service: ServiceStarter, settings: Settings, authz: RunningService) -> RunningService:
    service = start_service("bus", using(settings, authz))
    with service.client() as admin:
        ok(admin.put("/bus", json=BUS_SETTINGS))
    return service


Operation = tuple[str, str, str]  # method, path with ids filled in, the permission it declares


@pytest.fixture
def operations(service: RunningService) -> list[Operation]:
    """Every bus operation of the document, with ``x`` for each path parameter."""
    with http_client(service.url) as client:
        document = ok(client.get("/openapi.json"))
    found = []
    for path, methods in document["paths"].items():
        if path in ("/health", "/metrics"):
            continue
        for method, operation in methods.items():
            found.append((method.upper(), re.sub(r"\{[^}]+\}", "x", path), operation["x-permission"]))
    return found


@pytest.fixture
def as_user(service: RunningService) -> Iterator[Any]:
    clients: list[httpx.Client] = []

    def make(auth: tuple[str, str]) -> httpx.Client:
        clients.append(http_client(service.url, auth=auth))
        return clients[-1]

    yield make
    for client in clients:
        client.close()


def call(client: httpx.Client, method: str, path: str) -> httpx.Response:
    body: dict[str, Any] | None = None if method in ("GET", "DELETE") else {}
    return client.request(method, path, json=body)


def test_every_operation_declares_its_segment_and_method(operations: list[Operation]) -> None:
    assert len(operations) > 40
    for method, path, permission in operations:
        segment = path.strip("/").split("/")[0]
        segment = "bus" if segment == "bus_v2" else segment
        assert segment in SEGMENTS, path
        assert permission == declared(method, segment), (method, path)


def test_a_reader_reads_everything_and_writes_nothing(operations: list[Operation], as_user: Any) -> None:
    reader = as_user(READER)
    for method, path, permission in operations:
        answer = call(reader, method, path)
        if method == "GET":
            # A collection answers 200; one object by an unknown id 404, after the check.
            assert answer.status_code == (404 if path.endswith("/x") else 200), (path, answer.text)
            continue
        assert answer.status_code == 403, (method, path, answer.text)
        assert answer.json() == {
            "code": 403,
            "message": f"User reader does not have permission {permission}",
            "fields": "Authorization",
            "is2xx": False,
        }


@pytest.mark.parametrize("auth", [POLICY_WRITER, PLAIN], ids=["policy.writer", "no role"])
def test_without_a_bus_role_nothing_passes(
    operations: list[Operation], as_user: Any, auth: tuple[str, str]
) -> None:
    client = as_user(auth)
    for method, path, permission in operations:
        answer = call(client, method, path)
        assert answer.status_code == 403, (method, path, answer.text)
        assert answer.json()["message"] == f"User {auth[0]} does not have permission {permission}"


def test_a_bus_writer_passes_every_check_but_the_administrators(
    operations: list[Operation], as_user: Any
) -> None:
    """What it is answered is the operation's own business (400, 404...), never 403; except where
    an operation decides where the bus sends its own credential: 403 naming the admin permission."""
    writer = as_user(WRITER)
    for method, path, permission in operations:
        answer = call(writer, method, path)
        if permission.startswith("platform.bus.admin|"):
            assert answer.status_code == 403, (method, path, answer.text)
            assert answer.json()["message"] == f"User writer does not have permission {permission}"
            continue
        assert answer.status_code != 403, (method, path)


def test_an_administrator_passes_the_administrators_checks(operations: list[Operation], as_user: Any) -> None:
    admin = as_user(("admin", "admin"))
    for method, path, permission in operations:
        if not permission.startswith("platform.bus.admin|") or path in ("/bus", "/bus_v2"):
            continue  # an empty body would be refused (400), but keep the settings as they are
        assert call(admin, method, path).status_code != 403, (method, path)


def test_the_reference_paths_are_checked_as_their_canonical_form(as_user: Any) -> None:
    reader = as_user(READER)
    assert reader.get("/webapi/topics/").status_code == 200
    refused = reader.post("/webapi/topics/", json={"topicName": "t", "topicDescription": "d", "owner": "o"})
    assert refused.status_code == 403
    assert refused.json()["message"] == "User reader does not have permission platform.bus.api|topics|write"
    assert as_user(WRITER).get("/topics").json() == []  # nothing was created
