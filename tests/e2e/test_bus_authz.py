"""End to end: a bus client naming an identity created through authz lets exactly that identity publish.

One ``netplatform serve`` runs the bus controller, the message router and the authz service
(``--only bus --only router --only authz``) over one database. The identity ``svc-a`` is created
through ``POST /authn/cred``; a topic under the namespace root gets a ``pub`` client naming it as
``clientIdentity``. The bus controller creates the topic's roles in authz, grants them on the
router and makes ``svc-a`` a member of the publisher role: ``svc-a`` publishes at the client's
``topicURL``, ``bob`` (an existing identity with no role) is refused, ``/authz/roles/user/svc-a``
lists the publisher role. Deleting the client removes the membership, and within 2 seconds the
router refuses ``svc-a`` too.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from ..support.servers import ServeProcess, free_port, http_client

USERS = "admin:admin,bob:bob-pw"
SVC_A, BOB = ("svc-a", "svc-a-secret"), ("bob", "bob-pw")
FQTN = "org.example.bus.lab1.alarms"
PUBLISHERS = f"{FQTN}.publisher"
PROPAGATION_S = 2.0  # a membership change applies within this (docs/security.md)


class Platform:
    def __init__(self, ports: dict[str, int]) -> None:
        self.bus_url, self.router_url, self.authz_url = (
            f"http://127.0.0.1:{ports[name]}" for name in ("bus", "router", "authz")
        )
        self.router_port = ports["router"]


@pytest.fixture
def platform(tmp_path: Path, database_url: str | None) -> Iterator[Platform]:
    ports = {name: free_port() for name in ("bus", "router", "authz")}
    env = {
        **{f"NETPLATFORM_{name.upper()}_PORT": str(port) for name, port in ports.items()},
        "NETPLATFORM_DATA_DIR": str(tmp_path / "data"),
        "NETPLATFORM_USERS": USERS,
        "NETPLATFORM_ACCESS_LOG": "false",
        "NETPLATFORM_INSTANCE_NAME": "e2e-bus-authz",
    }
    if database_url:
        env["NETPLATFORM_DATABASE_URL"] = database_url
    args = [arg for name in ports for arg in ("--only", name)]
    process = ServeProcess(env, args, tmp_path / "serve.log")
    process.start(wait_ports=list(ports.values()))
    try:
        yield Platform(ports)
    finally:
        process.stop()


def ok(response: httpx.Response, status: int = 200) -> Any:
    assert response.status_code == status, (response.status_code, response.text)
    return response.json() if response.content else None


def within(seconds: float, check: Callable[[], bool]) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, f"not within {seconds} s"
        time.sleep(0.05)


def publish(url: str, auth: tuple[str, str]) -> int:
    return httpx.post(url, json={"alarm": "link down"}, auth=auth, timeout=30).status_code


def role_names(authz: httpx.Client, user: str) -> list[str]:
    return [role["name"] for role in ok(authz.get(f"/authz/roles/user/{user}"))["role"]]


def provision(bus: httpx.Client, router_port: int) -> dict[str, Any]:
    """Bus settings, a central site with a cluster at the router, and the topic with its client."""
    settings = {
        "busName": "lab1",
        "topicNsRoot": "org.example.bus",
        "drProvUrl": "http://127.0.0.1:9/",
        "bridgeAdminTopic": "org.example.bus.admin",
    }
    ok(bus.put("/bus", json=settings))
    ok(bus.post("/svcLocations", json={"svcLocationName": "dc-central-1", "svcLayer": "central"}))
    cluster = {"fqdn": "127.0.0.1", "topicProtocol": "http", "topicPort": router_port}
    ok(bus.post("/mr_clusters", json={"svcLocationName": "dc-central-1", **cluster}))
    client = {"svcLocationName": "dc-central-1", "clientIdentity": "svc-a", "action": ["pub"]}
    body = {"topicName": "alarms", "topicDescription": "alarm stream", "owner": "noc", "clients": [client]}
    topic: dict[str, Any] = ok(bus.post("/topics", json=body))
    return topic


def test_a_pub_client_naming_an_authz_identity(platform: Platform) -> None:
    with http_client(platform.authz_url) as authz, http_client(platform.bus_url) as bus:
        ok(authz.post("/authn/cred", json={"id": SVC_A[0], "password": SVC_A[1]}), 201)
        assert role_names(authz, "svc-a") == []

        topic = provision(bus, platform.router_port)
        assert topic["status"] == "VALID", topic
        assert topic["publisherRole"] == PUBLISHERS
        (client,) = topic["clients"]
        assert client["status"] == "VALID", client
        url = client["topicURL"]
        assert url == f"http://127.0.0.1:{platform.router_port}/events/{FQTN}"

        assert publish(url, SVC_A) == 200
        assert publish(url, BOB) == 403
        assert role_names(authz, "svc-a") == [PUBLISHERS]
        assert role_names(authz, "bob") == []

        ok(bus.delete(f"/mr_clients/{client['mrClientId']}"), 204)
        assert bus.get(f"/mr_clients/{client['mrClientId']}").status_code == 404
        assert role_names(authz, "svc-a") == []
        within(PROPAGATION_S, lambda: publish(url, SVC_A) == 403)
        # The topic and its roles stay: only what the client added went.
        assert ok(bus.get(f"/topics/{FQTN}"))["status"] == "VALID"
        assert PUBLISHERS in {role["name"] for role in ok(authz.get("/authz/roles"))["role"]}
