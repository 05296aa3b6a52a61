"""The bus controller sets up an edge-to-central mirror between two `netplatform serve` clusters (issue 14).

The central process runs the bus controller and a message router (``--only bus --only router``),
the edge process a router only; each has its own data directory and database. On the bus, one
cluster per site points at its process's router, and a topic has a pub client at the edge and a
sub client at the central site (EDGE_TO_CENTRAL), so the controller creates the topic on both
routers, grants both identities and tells the central router, through its bridge-admin topic, to
mirror the topic from the edge. 500 messages published at the edge with the publisher's identity
are fetched at the central router by the subscriber, in order and none lost although the central
process is killed (SIGKILL) midway and restarted. Duplicates are allowed as at least once permits:
the order of first appearances must be the publish order.
"""

from __future__ import annotations

import time
from contextlib import ExitStack
from pathlib import Path

import httpx

from ..support.answers import ok
from ..support.databases import temporary_database
from ..support.servers import ServeProcess, free_port, http_client
from ..support.waiting import wait_until

# mirror: the identity the central router's agents read the edge with (platform.node there) and
# publish copies as (the bus grants it producer on the central topic). The edge here does not
# follow the central authz (test_three_sites.py runs sites that do, with memberships made at
# central only): the clients name roles each site's NETPLATFORM_USERS gives them (clientRole).
USERS = "admin:admin,alice:alice-pw:lab1.publishers,bob:bob-pw:lab1.subscribers,mirror:m-secret:platform.node"
PUBLISHER, SUBSCRIBER = ("alice", "alice-pw"), ("bob", "bob-pw")
ADMIN_TOPIC = "org.example.bus.admin"
TOTAL = 500
BATCH = 25


def serve(
    name: str, tmp_path: Path, database_url: str | None, ports: dict[str, int], **extra: str
) -> ServeProcess:
    data_dir = tmp_path / f"{name}-data"
    env = {
        **{f"NETPLATFORM_{service.upper()}_PORT": str(port) for service, port in ports.items()},
        "NETPLATFORM_DATA_DIR": str(data_dir),
        "NETPLATFORM_DATABASE_URL": database_url or f"sqlite:///{data_dir / 'netplatform.db'}",
        "NETPLATFORM_USERS": USERS,
        "NETPLATFORM_INSTANCE_NAME": name,
        "NETPLATFORM_ACCESS_LOG": "false",
        **{f"NETPLATFORM_{key.upper()}": value for key, value in extra.items()},
    }
    args = [arg for service in ports for arg in ("--only", service)]
    return ServeProcess(env, args, log_path=tmp_path / f"{name}.log")


def test_the_bus_mirrors_an_edge_topic_to_a_killed_and_restarted_central_router(tmp_path: Path) -> None:
    with ExitStack() as stack:
        edge_db = stack.enter_context(temporary_database())
        central_db = stack.enter_context(temporary_database())
        bus_port, central_port, edge_port = free_port(), free_port(), free_port()
        tuning = {
            "router_bridge_admin_topic": ADMIN_TOPIC,
            "router_mirror_poll_ms": "500",
            "router_mirror_retry_s": "0.5",
            "router_mirror_user": "mirror",
            "router_mirror_password": "m-secret",
        }
        central_ports = {"bus": bus_port, "router": central_port, "authz": free_port()}
        central = serve("central", tmp_path, central_db, central_ports, **tuning)
        central.start(wait_ports=list(central_ports.values()))
        edge = serve("edge", tmp_path, edge_db, {"router": edge_port}).start(wait_ports=[edge_port])
        try:
            fqtn, publish_url, fetch_url = provision(bus_port, edge_port, central_port)
            assert publish_url.startswith(f"http://localhost:{edge_port}/"), publish_url
            assert fetch_url.startswith(f"http://127.0.0.1:{central_port}/"), fetch_url
            run(fqtn, publish_url, fetch_url, central, central_ports)
        finally:
            edge_rc, central_rc = edge.stop(), central.stop()
        assert edge_rc == 0, edge.log()
        assert central_rc == 0, central.log()


def provision(bus_port: int, edge_port: int, central_port: int) -> tuple[str, str, str]:
    """Sites, clusters and the topic on the bus; its fqtn and pub and sub topicURLs once VALID."""
    with http_client(f"http://127.0.0.1:{bus_port}") as bus:
        settings = {
            "busName": "lab1",
            "topicNsRoot": "org.example.bus",
            "drProvUrl": "http://127.0.0.1:9/",
            "bridgeAdminTopic": ADMIN_TOPIC,
        }
        ok(bus.put("/bus", json=settings))
        sites = {"edge": ("edge", "localhost", edge_port), "central": ("central", "127.0.0.1", central_port)}
        for site, (layer, fqdn, port) in sites.items():
            ok(bus.post("/svcLocations", json={"svcLocationName": site, "svcLayer": layer}))
            cluster = {"svcLocationName": site, "fqdn": fqdn, "topicProtocol": "http", "topicPort": port}
            ok(bus.post("/mr_clusters", json=cluster))
        clients = [
            {"svcLocationName": "edge", "clientRole": "lab1.publishers", "action": ["pub"]},
            {"svcLocationName": "central", "clientRole": "lab1.subscribers", "action": ["sub"]},
        ]
        body = {
            "topicName": "alarms",
            "topicDescription": "alarm stream",
            "owner": "noc",
            "replicationCase": "REPLICATION_EDGE_TO_CENTRAL",
            "clients": clients,
        }
        fqtn = ok(bus.post("/topics", json=body))["fqtn"]

        def valid() -> bool:
            topic = ok(bus.get(f"/topics/{fqtn}"))
            return topic["status"] == "VALID" and all(c["status"] == "VALID" for c in topic["clients"])

        wait_until(valid, 20, "a VALID topic and clients")
        publisher, subscriber = ok(bus.get(f"/topics/{fqtn}"))["clients"]
        assert publisher["action"] == ["pub"] and subscriber["action"] == ["sub"]
        agents = ok(
            bus.get("/bridge", params={"source": "localhost", "target": "127.0.0.1", "detail": "true"})
        )
        assert fqtn in agents["topics"] and agents.get("status", "VALID") == "VALID", agents
        return fqtn, str(publisher["topicURL"]), str(subscriber["topicURL"])


def copied(fqtn: str, central_port: int) -> int:
    """How many messages the central router holds, through the read route (which consumes nothing)."""
    url = f"http://127.0.0.1:{central_port}/internal/mirror/{fqtn}"
    return len(ok(httpx.get(url, params={"limit": 10000}, auth=("admin", "admin"), timeout=30)))


def run(
    fqtn: str, publish_url: str, fetch_url: str, central: ServeProcess, central_ports: dict[str, int]
) -> None:
    sent = [f"message {i:03d}" for i in range(TOTAL)]
    with httpx.Client(auth=PUBLISHER, timeout=30) as publisher:
        for start in range(0, TOTAL, BATCH):
            if start == TOTAL // 2:
                # The agent the bus set up is copying before the central process dies.
                wait_until(lambda: copied(fqtn, central_ports["router"]) >= BATCH, 20, "the first copies")
                central.kill()  # SIGKILL, midway: whatever was read but not yet recorded is copied again
            body = "".join(f"{message}\n" for message in sent[start : start + BATCH])
            response = publisher.post(publish_url, content=body, headers={"content-type": "text/plain"})
            assert response.status_code == 200 and response.json()["count"] == BATCH, response.text
    central.start(wait_ports=list(central_ports.values()))
    received: list[str] = []
    deadline = time.monotonic() + 60
    with httpx.Client(auth=SUBSCRIBER, timeout=30) as subscriber:
        while len(set(received)) < TOTAL and time.monotonic() < deadline:
            fetched = subscriber.get(f"{fetch_url}/noc/1", params={"timeout": 2000, "limit": 1000})
            received += ok(fetched)
    assert len(set(received)) == TOTAL, f"{len(set(received))} of {TOTAL} arrived"
    assert list(dict.fromkeys(received)) == sent  # none lost, in order


def test_the_edge_to_central_mirror_needs_no_router_setting(tmp_path: Path) -> None:
    """Issue 24, 6, as a new user tries it: two instances on their defaults (no bridge-admin topic,
    no mirror credential set on either router). The bus tells the central router its bridge-admin
    topic and the credential to read the edge with; 200 messages published at the edge arrive at
    the central router, in order."""
    with ExitStack() as stack:
        edge_db = stack.enter_context(temporary_database())
        central_db = stack.enter_context(temporary_database())
        bus_port, central_port, edge_port = free_port(), free_port(), free_port()
        central_ports = {"bus": bus_port, "router": central_port, "authz": free_port()}
        central = serve("central", tmp_path, central_db, central_ports)
        central.start(wait_ports=list(central_ports.values()))
        edge = serve("edge", tmp_path, edge_db, {"router": edge_port}).start(wait_ports=[edge_port])
        try:
            _fqtn, publish_url, fetch_url = provision(bus_port, edge_port, central_port)
            sent = [f"message {i:03d}" for i in range(200)]
            with httpx.Client(auth=PUBLISHER, timeout=30) as publisher:
                for start in range(0, len(sent), BATCH):
                    body = "".join(f"{message}\n" for message in sent[start : start + BATCH])
                    answer = publisher.post(publish_url, content=body, headers={"content-type": "text/plain"})
                    assert answer.status_code == 200, answer.text
            received: list[str] = []
            deadline = time.monotonic() + 60
            with httpx.Client(auth=SUBSCRIBER, timeout=30) as subscriber:
                while len(received) < len(sent) and time.monotonic() < deadline:
                    fetched = subscriber.get(f"{fetch_url}/noc/1", params={"timeout": 2000, "limit": 1000})
                    received += ok(fetched)
            assert received == sent, f"{len(received)} of {len(sent)} arrived"
        finally:
            edge_rc, central_rc = edge.stop(), central.stop()
        assert edge_rc == 0, edge.log()
        assert central_rc == 0, central.log()
