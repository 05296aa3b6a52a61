"""The bus controller provisions the REAL message router of a `netplatform serve`; its topicURL works.

One process runs the bus controller and the message router (``--only bus --only router``). A
cluster points at that process's router; a topic with a ``pub`` and a ``sub`` client exists
there afterwards, a message POSTed to the pub client's topicURL with its identity is fetched
through the sub client's, a stranger gets 403, and deleting the pub client revokes its grant.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from ..support.servers import ServeProcess, free_port, http_client

USERS = "admin:admin,alice:alice-pw,bob:bob-pw,mallory:mallory-pw"
ALICE, BOB, MALLORY = ("alice", "alice-pw"), ("bob", "bob-pw"), ("mallory", "mallory-pw")
FQTN = "org.example.bus.lab1.alarms"


class Platform:
    def __init__(self, bus_port: int, router_port: int) -> None:
        self.bus_url = f"http://127.0.0.1:{bus_port}"
        self.router_url = f"http://127.0.0.1:{router_port}"
        self.router_port = router_port


@pytest.fixture
def platform(tmp_path: Path, database_url: str | None) -> Iterator[Platform]:
    bus_port, router_port = free_port(), free_port()
    env = {
        "NETPLATFORM_BUS_PORT": str(bus_port),
        "NETPLATFORM_ROUTER_PORT": str(router_port),
        "NETPLATFORM_DATA_DIR": str(tmp_path / "data"),
        "NETPLATFORM_USERS": USERS,
        "NETPLATFORM_ACCESS_LOG": "false",
        "NETPLATFORM_INSTANCE_NAME": "e2e-bus-router",
    }
    if database_url:
        env["NETPLATFORM_DATABASE_URL"] = database_url
    process = ServeProcess(env, ["--only", "bus", "--only", "router"], tmp_path / "serve.log")
    process.start(wait_ports=[bus_port, router_port])
    try:
        yield Platform(bus_port, router_port)
    finally:
        process.stop()


def ok(response: httpx.Response, status: int = 200) -> Any:
    assert response.status_code == status, (response.status_code, response.text)
    return response.json() if response.content else None


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

        published = httpx.post(publisher["topicURL"], json={"alarm": "link down"}, auth=ALICE, timeout=30)
        assert published.status_code == 200, published.text
        fetched = httpx.get(f"{subscriber['topicURL']}/noc/1", params={"timeout": 5000}, auth=BOB, timeout=30)
        assert [json.loads(text) for text in ok(fetched)] == [{"alarm": "link down"}]
        assert httpx.post(publisher["topicURL"], json={}, auth=MALLORY, timeout=30).status_code == 403
        assert httpx.get(f"{subscriber['topicURL']}/x/1", auth=MALLORY, timeout=30).status_code == 403

        ok(bus.delete(f"/mr_clients/{publisher['mrClientId']}"), 204)
        assert bus.get(f"/mr_clients/{publisher['mrClientId']}").status_code == 404
        revoked = httpx.post(publisher["topicURL"], json={"alarm": "again"}, auth=ALICE, timeout=30)
        assert revoked.status_code == 403
