"""The bus controller provisions the REAL message router of a `netplatform serve`; its topicURL works.

One process runs the bus controller, the message router and the authz service (``--only bus
--only router --only authz``). A cluster points at that process's router; a topic with a ``pub``
and a ``sub`` client exists there afterwards, its roles granted there and the clients'
identities members of them in authz; a message POSTed to the pub client's topicURL with its
identity is fetched through the sub client's, a stranger gets 403, and deleting the pub client
removes its membership (its publish is refused within 2 seconds).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from ..support.servers import ServeProcess, free_port, http_client

USERS = "admin:admin,alice:alice-pw,bob:bob-pw,mallory:mallory-pw"
ALICE, BOB, MALLORY = ("alice", "alice-pw"), ("bob", "bob-pw"), ("mallory", "mallory-pw")
FQTN = "org.example.bus.lab1.alarms"
PROPAGATION_S = 2.0  # a membership change applies within this (docs/security.md)


class Platform:
    def __init__(self, bus_port: int, router_port: int, authz_port: int) -> None:
        self.bus_url = f"http://127.0.0.1:{bus_port}"
        self.router_url = f"http://127.0.0.1:{router_port}"
        self.authz_url = f"http://127.0.0.1:{authz_port}"
        self.router_port = router_port


@pytest.fixture
def platform(tmp_path: Path, database_url: str | None) -> Iterator[Platform]:
    bus_port, router_port, authz_port = free_port(), free_port(), free_port()
    env = {
        "NETPLATFORM_BUS_PORT": str(bus_port),
        "NETPLATFORM_ROUTER_PORT": str(router_port),
        "NETPLATFORM_AUTHZ_PORT": str(authz_port),
        "NETPLATFORM_DATA_DIR": str(tmp_path / "data"),
        "NETPLATFORM_USERS": USERS,
        "NETPLATFORM_ACCESS_LOG": "false",
        "NETPLATFORM_INSTANCE_NAME": "e2e-bus-router",
    }
    if database_url:
        env["NETPLATFORM_DATABASE_URL"] = database_url
    args = ["--only", "bus", "--only", "router", "--only", "authz"]
    process = ServeProcess(env, args, tmp_path / "serve.log")
    process.start(wait_ports=[bus_port, router_port, authz_port])
    try:
        yield Platform(bus_port, router_port, authz_port)
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


def roles_of(authz: httpx.Client, user: str) -> set[str]:
    return {role["name"] for role in ok(authz.get(f"/authz/roles/user/{user}"))["role"]}


def test_a_topic_provisioned_by_the_bus_controller_carries_messages(platform: Platform) -> None:
    with http_client(platform.bus_url) as bus:
        ok(
            bus.put(
                "/bus",
                json={
                    "busName": "lab1",
                    "topicNsRoot": "org.example.bus",
                    "drProvUrl": "http://127.0.0.1:9/",
                    "bridgeAdminTopic": "org.example.bus.admin",
                },
            )
        )
        ok(bus.post("/svcLocations", json={"svcLocationName": "dc-central-1", "svcLayer": "central"}))
        cluster = {"fqdn": "127.0.0.1", "topicProtocol": "http", "topicPort": platform.router_port}
        ok(bus.post("/mr_clusters", json={"svcLocationName": "dc-central-1", **cluster}))
        clients = [
            {"svcLocationName": "dc-central-1", "clientIdentity": "alice", "action": ["pub"]},
            {"svcLocationName": "dc-central-1", "clientIdentity": "bob", "action": ["sub"]},
        ]
        body = {"topicName": "alarms", "topicDescription": "alarm stream", "owner": "noc", "clients": clients}
        topic = ok(bus.post("/topics", json=body))
        assert topic["status"] == "VALID", topic
        publisher, subscriber = topic["clients"]
        assert publisher["status"] == subscriber["status"] == "VALID"

        with http_client(platform.router_url) as router:
            assert FQTN in ok(router.get("/topics"))["topics"]
            there = ok(router.get(f"/topics/{FQTN}"))
            assert there["writerAcl"]["users"] == [topic["publisherRole"]]
            assert there["readerAcl"]["users"] == [topic["subscriberRole"]]
        with http_client(platform.authz_url) as authz:
            assert topic["publisherRole"] in roles_of(authz, "alice")
            assert topic["subscriberRole"] in roles_of(authz, "bob")

        published = httpx.post(publisher["topicURL"], json={"alarm": "link down"}, auth=ALICE, timeout=30)
        assert published.status_code == 200, published.text
        fetched = httpx.get(f"{subscriber['topicURL']}/noc/1", params={"timeout": 5000}, auth=BOB, timeout=30)
        assert [json.loads(text) for text in ok(fetched)] == [{"alarm": "link down"}]
        assert httpx.post(publisher["topicURL"], json={}, auth=MALLORY, timeout=30).status_code == 403
        assert httpx.get(f"{subscriber['topicURL']}/x/1", auth=MALLORY, timeout=30).status_code == 403

        ok(bus.delete(f"/mr_clients/{publisher['mrClientId']}"), 204)
        assert bus.get(f"/mr_clients/{publisher['mrClientId']}").status_code == 404
        with http_client(platform.authz_url) as authz:
            assert topic["publisherRole"] not in roles_of(authz, "alice")

        def refused() -> bool:
            again = httpx.post(publisher["topicURL"], json={"alarm": "again"}, auth=ALICE, timeout=30)
            return again.status_code == 403

        within(PROPAGATION_S, refused)
