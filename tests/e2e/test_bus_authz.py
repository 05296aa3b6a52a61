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

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from ..support.answers import ok
from ..support.bus_platform import Platform, bus_platform
from ..support.servers import http_client
from ..support.waiting import wait_until

USERS = "admin:admin,bob:bob-pw"
SVC_A, BOB = ("svc-a", "svc-a-secret"), ("bob", "bob-pw")
FQTN = "org.example.bus.lab1.alarms"
PUBLISHERS = f"{FQTN}.publisher"
PROPAGATION_S = 2.0  # a membership change applies within this (docs/security.md)


@pytest.fixture
def platform(tmp_path: Path, database_url: str | None) -> Iterator[Platform]:
    with bus_platform(tmp_path, database_url, USERS, "e2e-bus-authz") as running:
        yield running


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
        wait_until(lambda: publish(url, SVC_A) == 403, timeout=PROPAGATION_S, what="publishing refused")
        # The topic and its roles stay: only what the client added went.
        assert ok(bus.get(f"/topics/{FQTN}"))["status"] == "VALID"
        assert PUBLISHERS in {role["name"] for role in ok(authz.get("/authz/roles"))["role"]}
