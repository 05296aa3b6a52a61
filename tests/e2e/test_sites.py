"""Two distribution nodes at two sites (spec 1.3): egress forwarding, a node down, ingress redirects.

Each node is a `netplatform serve --only distribution` process with its own data directory; both
use one database (the test's PostgreSQL database, or one SQLite file outside both data dirs).
The nodes forward to each other as a node identity holding only ``platform.node``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from ..distribution.conftest import FAST_DELIVERY
from ..support.distribution_calls import (
    PUBLISHER,
    PublisherAuth,
    create_feed,
    create_subscription,
    files_held,
    publish,
    sub_log,
)
from ..support.receiver import Receiver
from ..support.servers import ServeProcess, free_port
from ..support.tls import TlsFiles
from ..support.waiting import wait_until

NODE_TIMING = {"NETPLATFORM_NODE_HEARTBEAT_S": "0.3", "NETPLATFORM_NODE_DOWN_AFTER_S": "2"}
# The nodes forward to each other as an identity of their own that holds platform.node only.
NODE_IDENTITY = ("node", "node-pw")
NODE_USERS = f"admin:admin,{NODE_IDENTITY[0]}:{NODE_IDENTITY[1]}:platform.node"


@dataclass
class Node:
    name: str
    site: str
    port: int
    data_dir: Path
    process: ServeProcess
    bus_port: int | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def fqdn(self) -> str:
        return f"127.0.0.1:{self.port}"

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=self.url, auth=("admin", "admin"), timeout=30)

    def bus(self) -> httpx.Client:
        """The bus controller this node's process also runs (``start(..., bus=True)``)."""
        assert self.bus_port is not None
        return httpx.Client(base_url=f"http://127.0.0.1:{self.bus_port}", auth=("admin", "admin"), timeout=60)

    def spooled(self) -> list[Path]:
        blobs = self.data_dir / "blobs"
        return [path for path in blobs.rglob("*") if path.is_file()] if blobs.exists() else []

    def restart(self) -> None:
        self.process.start(wait_ports=[self.port, *([self.bus_port] if self.bus_port else [])])


class Sites:
    """Starts nodes over one database; stops them at the end."""

    def __init__(self, tmp_path: Path, database_url: str | None, tls: TlsFiles) -> None:
        self.tmp_path = tmp_path
        self.database_url = database_url or f"sqlite:///{tmp_path / 'sites.db'}"
        self.tls = tls
        self.nodes: list[Node] = []

    def start(self, name: str, site: str, *, bus: bool = False, configured_identity: bool = True) -> Node:
        """A node; with ``bus``, its process runs the bus controller too (on a port of its own).
        Without ``configured_identity`` it forwards as the platform's own ``svc.node`` (no
        NETPLATFORM_NODE_USER) and writes an access log."""
        port = free_port()
        bus_port = free_port() if bus else None
        only = ["--only", "distribution", *(["--only", "bus"] if bus else [])]
        identity = {"NETPLATFORM_NODE_USER": NODE_IDENTITY[0], "NETPLATFORM_NODE_PASSWORD": NODE_IDENTITY[1]}
        env = {
            "NETPLATFORM_DISTRIBUTION_PORT": str(port),
            "NETPLATFORM_DATA_DIR": str(self.tmp_path / f"{name}-data"),
            "NETPLATFORM_DATABASE_URL": self.database_url,
            "NETPLATFORM_USERS": NODE_USERS,
            **(identity if configured_identity else {}),
            "NETPLATFORM_INSTANCE_NAME": name,
            "NETPLATFORM_SITE": site,
            "NETPLATFORM_NODE_URL": f"http://127.0.0.1:{port}",
            "NETPLATFORM_DELIVERY_CA_BUNDLE": str(self.tls.ca_bundle),
            "NETPLATFORM_ACCESS_LOG": "false" if configured_identity else "true",
            **NODE_TIMING,
            **{f"NETPLATFORM_{key.upper()}": str(value) for key, value in FAST_DELIVERY.items()},
            **({"NETPLATFORM_BUS_PORT": str(bus_port)} if bus_port else {}),
        }
        process = ServeProcess(env, only, log_path=self.tmp_path / f"{name}.log")
        ports = [port, *([bus_port] if bus_port else [])]
        node = Node(
            name, site, port, self.tmp_path / f"{name}-data", process.start(wait_ports=ports), bus_port
        )
        self.nodes.append(node)
        return node

    def stop(self) -> None:
        for node in self.nodes:
            if node.process.process is not None and node.process.process.poll() is None:
                assert node.process.stop() == 0, node.process.log()


@pytest.fixture
def sites(tmp_path: Path, database_url: str | None, tls: TlsFiles) -> Iterator[Sites]:
    started = Sites(tmp_path, database_url, tls)
    try:
        yield started
    finally:
        started.stop()


def feed_bound_to(via: Node, target: Node, receiver: Receiver) -> tuple[int, int]:
    """A feed and a subscription delivered by ``target`` (egress route set through ``via``)."""
    with via.client() as http:
        feed_id, _ = create_feed(http)
        sub_id, _ = create_subscription(http, feed_id, url=f"{receiver.url}/in")
        bound = http.put(f"/internal/route/egress/{sub_id}", json={"node": target.name})
        assert bound.status_code == 200, bound.text
        assert bound.json() == {"subId": sub_id, "node": target.name}
    return feed_id, sub_id


def records_of(node: Node, sub_id: int, publish_id: str) -> list[dict[str, Any]]:
    with node.client() as http:
        return sub_log(http, sub_id, publishId=publish_id)


def one_of_each(records: list[dict[str, Any]], *types: str) -> list[dict[str, Any]]:
    """The one record of each type, in the order of ``types``; no other record.

    Not the log's order: the log lists by each record's date, and the receiving node records its
    ``del`` as it delivers, which may be before the sending node records its ``fwd`` (after the
    receiver's 204: the file is queued there when it answers)."""
    assert sorted(record["type"] for record in records) == sorted(types), records
    return [next(record for record in records if record["type"] == kind) for kind in types]


def test_a_file_published_at_site_a_is_forwarded_to_and_delivered_by_the_node_of_site_b(
    sites: Sites, receiver: Receiver
) -> None:
    node_a = sites.start("node-a", "site-a")
    node_b = sites.start("node-b", "site-b")
    feed_id, sub_id = feed_bound_to(node_a, node_b, receiver)
    data = os.urandom(300_000)

    answer = publish(node_a.url, feed_id, "counters.bin", data, headers={"X-BUS-DR-META": '{"k":"v"}'})
    assert answer.status_code == 204, answer.text
    publish_id = answer.headers["X-BUS-DR-PUBLISH-ID"]
    assert publish_id.endswith(".node-a")

    [delivered] = receiver.wait_for(1, timeout=30)
    assert delivered.body == data
    assert delivered.header("X-BUS-DR-PUBLISH-ID") == publish_id
    assert delivered.header("X-BUS-DR-META") == '{"k":"v"}'
    wait_until(lambda: node_a.spooled() == [] and node_b.spooled() == [], timeout=30, what="spools emptied")
    # A fixed wait on purpose: an absence has no condition to await.
    time.sleep(1)  # room for a duplicate
    assert len(receiver.requests) == 1

    # One publish id across both hops: pub at A, the forward to B, the delivery by B.
    pub, forward, delivery = one_of_each(records_of(node_b, sub_id, publish_id), "pub", "fwd", "del")
    assert pub["requestURI"].startswith(node_a.url)
    assert forward["requestURI"] == f"{node_b.url}/internal/forward/{publish_id}"
    assert forward["statusCode"] == 204 and forward["contentLength"] == len(data)
    assert delivery["requestURI"] == f"{receiver.url}/in/counters.bin" and delivery["statusCode"] == 204
    assert f"holding {publish_id} from node node-a" in node_b.process.log()
    # The forward went as the node identity, which may do nothing else.
    with httpx.Client(base_url=node_b.url, auth=NODE_IDENTITY, timeout=30) as as_node:
        assert as_node.get(f"/feed/{feed_id}", headers={"X-BUS-DR-ON-BEHALF-OF": "ops"}).status_code == 403


def test_nodes_sharing_the_platform_key_forward_as_svc_node_without_any_configured_identity(
    sites: Sites, receiver: Receiver
) -> None:
    node_a = sites.start("node-a", "site-a", configured_identity=False)
    node_b = sites.start("node-b", "site-b", configured_identity=False)
    feed_id, sub_id = feed_bound_to(node_a, node_b, receiver)
    answer = publish(node_a.url, feed_id, "counters.csv", b"a,b\n1,2\n")
    assert answer.status_code == 204, answer.text
    publish_id = answer.headers["X-BUS-DR-PUBLISH-ID"]
    [delivered] = receiver.wait_for(1, timeout=30)
    assert delivered.body == b"a,b\n1,2\n"
    _pub, forward, _delivery = one_of_each(records_of(node_b, sub_id, publish_id), "pub", "fwd", "del")
    assert forward["statusCode"] == 204
    # Node B's access log names who forwarded: the platform's node identity, not the administrator.
    hop = f"PUT /internal/forward/{publish_id} svc.node 204"
    wait_until(lambda: hop in node_b.process.log(), timeout=30, what="the forward in node-b's access log")
    assert f"/internal/forward/{publish_id} admin" not in node_b.process.log()


def test_a_forward_to_a_node_that_is_down_is_retried_until_it_is_back(
    sites: Sites, receiver: Receiver
) -> None:
    node_a = sites.start("node-a", "site-a")
    node_b = sites.start("node-b", "site-b")
    feed_id, sub_id = feed_bound_to(node_a, node_b, receiver)
    node_b.process.kill()

    answer = publish(node_a.url, feed_id, "late.csv", b"a,b\n1,2\n")
    assert answer.status_code == 204, answer.text
    publish_id = answer.headers["X-BUS-DR-PUBLISH-ID"]

    def failed_forwards() -> list[dict[str, Any]]:
        return [r for r in records_of(node_a, sub_id, publish_id) if r["type"] == "fwd"]

    wait_until(lambda: len(failed_forwards()) >= 2, timeout=30, what="two failed forwards")
    assert {record["statusCode"] for record in failed_forwards()} == {-1}
    assert files_held(sites.database_url, node_a.name) == [publish_id], "A keeps the file while B is down"
    assert files_held(sites.database_url, node_b.name) == []
    assert receiver.requests == [], "nobody delivers for B meanwhile"

    def up() -> dict[str, bool]:
        with node_a.client() as http:
            return {node["name"]: node["up"] for node in http.get("/internal/nodes").json()}

    wait_until(
        lambda: up() == {"node-a": True, "node-b": False}, timeout=30, what="node-b seen down (no heartbeat)"
    )

    node_b.restart()
    [delivered] = receiver.wait_for(1, timeout=30)
    assert delivered.body == b"a,b\n1,2\n" and delivered.header("X-BUS-DR-PUBLISH-ID") == publish_id
    wait_until(lambda: files_held(sites.database_url) == [], timeout=30, what="both nodes let go of the file")
    # A fixed wait on purpose: an absence has no condition to await: room for a duplicate.
    time.sleep(1)
    assert len(receiver.requests) == 1
    records = records_of(node_a, sub_id, publish_id)
    forwards = [record for record in records if record["type"] == "fwd"]  # A's, in A's order
    # The hop ends at its first success: the last of A's forwards, which are in A's order.
    assert [record["statusCode"] // 100 == 2 for record in forwards] == [False] * (len(forwards) - 1) + [True]
    others = [record for record in records if record["type"] != "fwd"]
    _pub, delivery = one_of_each(others, "pub", "del")
    assert delivery["requestURI"] == f"{receiver.url}/in/late.csv" and delivery["statusCode"] == 204


def test_a_publish_at_an_excluded_node_is_redirected_and_a_following_client_completes_it(
    sites: Sites, receiver: Receiver, tmp_path: Path
) -> None:
    node_a = sites.start("node-a", "site-a")
    node_b = sites.start("node-b", "site-b")
    with node_a.client() as http:
        feed_id, _ = create_feed(http)
        create_subscription(http, feed_id, url=f"{receiver.url}/in")
        route = http.put(f"/internal/route/ingress/{feed_id}/{PUBLISHER[0]}", json={"sites": ["site-b"]})
        assert route.status_code == 200, route.text

    plain = publish(node_a.url, feed_id, "one.txt", b"one")
    assert plain.status_code == 307
    assert plain.headers["Location"] == f"{node_b.url}/publish/{feed_id}/one.txt"

    with httpx.Client(auth=PublisherAuth(*PUBLISHER), follow_redirects=True, timeout=30) as client:
        followed = client.put(
            f"{node_a.url}/publish/{feed_id}/one.txt",
            content=b"one",
            headers={"Content-Type": "text/plain"},
        )
    assert followed.status_code == 204, followed.text
    assert followed.headers["X-BUS-DR-PUBLISH-ID"].endswith(".node-b")

    if shutil.which("curl") is None:
        return  # the httpx client above has shown the redirect is followable
    body = tmp_path / "two.txt"
    body.write_bytes(b"two")
    curl = subprocess.run(
        ["curl", "-sS", "--location-trusted", "-u", ":".join(PUBLISHER), "-T", str(body),
         "-H", "Content-Type: text/plain", "-o", "/dev/null", "-w", "%{http_code}",
         f"{node_a.url}/publish/{feed_id}/two.txt"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert curl.stdout == "204", curl.stderr

    delivered = receiver.wait_for(2, timeout=30)
    assert sorted(request.body for request in delivered) == [b"one", b"two"]
    # A fixed wait on purpose: an absence has no condition to await: room for a duplicate.
    time.sleep(1)
    assert len(receiver.requests) == 2
    assert all((request.header("X-BUS-DR-PUBLISH-ID") or "").endswith(".node-b") for request in delivered)


BUS_SETTINGS = {
    "busName": "lab1",
    "topicNsRoot": "org.example.bus",
    "bridgeAdminTopic": "org.example.bus.admin",
}

FEED = {"feedName": "pm", "feedVersion": "1", "owner": "ops", "asprClassification": "unclassified"}


def valid(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    assert body["status"] == "VALID", body
    return body


def test_through_the_bus_controller_a_publisher_at_site_a_reaches_a_subscriber_at_site_b(
    sites: Sites, receiver: Receiver
) -> None:
    node_a = sites.start("node-a", "site-a", bus=True)
    node_b = sites.start("node-b", "site-b")
    with node_a.bus() as bus:
        assert bus.put("/bus", json={**BUS_SETTINGS, "drProvUrl": node_a.url}).status_code == 200
        for node in (node_a, node_b):
            valid(bus.post("/dr_nodes", json={"svcLocationName": node.site, "fqdn": node.fqdn}))
        feed = valid(bus.post("/feeds", json=FEED))
        feed_id = feed["feedId"]
        pub = valid(bus.post("/dr_pubs", json={"feedId": feed_id, "svcLocationName": "site-a"}))
        sub = valid(
            bus.post(
                "/dr_subs",
                json={"feedId": feed_id, "svcLocationName": "site-b", "deliveryURL": f"{receiver.url}/in",
                      "username": "rx", "userpwd": "rx-pass"},
            )
        )  # fmt: skip
    assert pub["publishURL"] == f"{node_a.url}/publish/{feed_id}"
    with node_b.client() as http:
        assert http.get(f"/internal/route/egress/{sub['subId']}").json()["node"] == "node-b"
        route = http.get(f"/internal/route/ingress/{feed_id}/{pub['username']}").json()
        assert route["sites"] == ["site-a"]

    data = os.urandom(200_000)
    credentials = PublisherAuth(pub["username"], pub["userpwd"])
    octets = {"Content-Type": "application/octet-stream"}
    with httpx.Client(auth=credentials, follow_redirects=True, timeout=30, headers=octets) as publisher:
        answer = publisher.put(f"{pub['publishURL']}/pm.bin", content=data)
        assert answer.status_code == 204, answer.text
        publish_id = answer.headers["X-BUS-DR-PUBLISH-ID"]
        assert publish_id.endswith(".node-a")
        [delivered] = receiver.wait_for(1, timeout=30)
        assert delivered.body == data and delivered.header("X-BUS-DR-PUBLISH-ID") == publish_id
        wait_until(
            lambda: node_a.spooled() == [] and node_b.spooled() == [], timeout=30, what="spools emptied"
        )
        _pub, forward, delivery = one_of_each(
            records_of(node_b, int(sub["subId"]), publish_id), "pub", "fwd", "del"
        )
        assert forward["statusCode"] == 204 and forward["contentLength"] == len(data)
        assert delivery["requestURI"] == f"{receiver.url}/in/pm.bin" and delivery["statusCode"] == 204

        # At node B the publisher is sent to its own site's node, and a following client gets there.
        again = f"{node_b.url}/publish/{feed_id}/again.bin"
        wrong = httpx.put(again, content=b"x", auth=credentials, headers=octets)
        assert wrong.status_code == 307
        assert wrong.headers["Location"] == f"{node_a.url}/publish/{feed_id}/again.bin"
        followed = publisher.put(again, content=b"again")
        assert followed.status_code == 204, followed.text
        assert followed.headers["X-BUS-DR-PUBLISH-ID"].endswith(".node-a")
    delivered_twice = receiver.wait_for(2, timeout=30)
    assert sorted(request.body for request in delivered_twice) == sorted([data, b"again"])
    # A fixed wait on purpose: an absence has no condition to await.
    time.sleep(1)  # room for a duplicate
    assert len(receiver.requests) == 2
