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
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from ..support.answers import ok
from ..support.bus_platform import Platform, bus_platform
from ..support.servers import http_client
from ..support.waiting import wait_until

USERS = "admin:admin,alice:alice-pw,bob:bob-pw,mallory:mallory-pw"
ALICE, BOB, MALLORY = ("alice", "alice-pw"), ("bob", "bob-pw"), ("mallory", "mallory-pw")
FQTN = "org.example.bus.lab1.alarms"
PROPAGATION_S = 2.0  # a membership change applies within this (docs/security.md)


@pytest.fixture
def platform(tmp_path: Path, database_url: str | None) -> Iterator[Platform]:
    with bus_platform(tmp_path, database_url, USERS, "e2e-bus-router") as running:
        yield running


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
            assert there["writerAcl"]["users"] == [f"role:{topic['publisherRole']}"]  # a role, by kind
            assert there["readerAcl"]["users"] == [f"role:{topic['subscriberRole']}"]
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

        wait_until(refused, timeout=PROPAGATION_S, what="the revoked publisher refused")
