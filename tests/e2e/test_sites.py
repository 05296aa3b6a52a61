"""Distribution nodes at two edge sites (spec 1.3), each on its own store (issue 38): egress
forwarding, a node down, ingress redirects, the bus controller's provisioning across sites.

Three ``netplatform serve`` processes, joined only by HTTP: central (authz and distribution, on
the test database; with the bus controller where a test needs it), and two edge nodes, edge-a
and edge-b, each on SQLite in its own data directory, set up as docs/operations.md ("Sites")
says (tests/support/sites.py). Feeds, subscriptions and routes are made at central; the edges
follow its provisioning and ship their log records there, so a hop's records (the publish at A,
A's forward, B's delivery) are read from central's log API; what a node holds is read from its
own database. The edges forward to each other as a node identity made at central (holding only
``platform.node``), or as the platform's own ``svc.node``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import pytest

from ..distribution.edge_sites import egress_known, node_env, records, wait_known, wait_node_known
from ..support.answers import ok
from ..support.distribution_calls import (
    PUBLISHER,
    PublisherAuth,
    create_feed,
    create_subscription,
    files_held,
    owner_headers,
    publish,
    sub_log,
)
from ..support.receiver import Receiver
from ..support.sites import Site, SiteLauncher, site_launcher
from ..support.tls import TlsFiles
from ..support.waiting import wait_until

# The edges forward to each other as an identity of their own that holds platform.node only,
# made at central (as every identity is) before the edges start: they present it to central too.
NODE_IDENTITY = ("node", "node-pw-sites")
CENTRAL_SERVICES = ("authz", "distribution")


class Sites:
    """A central site and edge nodes on their own stores; stopped at the end by the launcher."""

    def __init__(self, launcher: SiteLauncher, tls: TlsFiles) -> None:
        self.launcher = launcher
        self.tls = tls
        self._central: Site | None = None

    def central(self, *, bus: bool = False) -> Site:
        services = (*CENTRAL_SERVICES, *(("bus",) if bus else ()))
        self._central = self.launcher.central(services, env=node_env(self.tls))
        with self._central.client("authz") as authz:
            ok(authz.post("/authn/cred", json={"id": NODE_IDENTITY[0], "password": NODE_IDENTITY[1]}), 201)
            ok(authz.post("/authz/userRole", json={"user": NODE_IDENTITY[0], "role": "platform.node"}), 201)
        return self._central

    def edge(self, name: str, *, configured_identity: bool = True) -> Site:
        """An edge node following central; without ``configured_identity`` it forwards as the
        platform's own ``svc.node`` (no NETPLATFORM_NODE_USER) and writes an access log."""
        central = self._central or self.central()
        identity = {"NETPLATFORM_NODE_USER": NODE_IDENTITY[0], "NETPLATFORM_NODE_PASSWORD": NODE_IDENTITY[1]}
        env = node_env(
            self.tls,
            NETPLATFORM_ACCESS_LOG="false" if configured_identity else "true",
            **(identity if configured_identity else {}),
        )
        edge = self.launcher.edge(name, ("distribution",), env=env, central=central)
        wait_node_known(central, name)
        return edge


@pytest.fixture
def sites(tmp_path: Path, tls: TlsFiles) -> Iterator[Sites]:
    with site_launcher(tmp_path) as launcher:
        yield Sites(launcher, tls)


def url(site: Site) -> str:
    return site.url("distribution")


def known_everywhere(sub_id: int, node: str, *edges: Site) -> None:
    """Wait until every edge knows the subscription and its egress route to ``node``."""
    for edge in edges:
        wait_known(edge, f"/subs/{sub_id}", "the subscription", **owner_headers())
        wait_until(partial(egress_known, edge, sub_id, node), 30, f"{sub_id} -> {node} at {edge.name}")
        wait_node_known(edge, node)


def feed_bound_to(central: Site, via: Site, target: Site, receiver: Receiver) -> tuple[int, int]:
    """A feed and a subscription delivered by ``target`` (egress route set at central), known at
    both edges."""
    with central.client("distribution") as http:
        feed_id, _ = create_feed(http)
        sub_id, _ = create_subscription(http, feed_id, url=f"{receiver.url}/in")
        bound = http.put(f"/internal/route/egress/{sub_id}", json={"node": target.name})
        assert bound.status_code == 200, bound.text
        assert bound.json() == {"subId": sub_id, "node": target.name}
    known_everywhere(sub_id, target.name, via, target)
    return feed_id, sub_id


def logged_at_central(central: Site, sub_id: int, publish_id: str, *types: str) -> list[dict[str, Any]]:
    """Central's records of the publish for the subscription, once one of each of ``types`` has
    arrived there (each edge ships its own)."""

    def kinds() -> list[str]:
        return sorted(r["type"] for r in records(central, f"/sublog/{sub_id}", publishId=publish_id))

    wait_until(lambda: set(types) <= set(kinds()), 30, lambda: f"{types} at central, not {kinds()}")
    return records(central, f"/sublog/{sub_id}", publishId=publish_id)


def one_of_each(records: list[dict[str, Any]], *types: str) -> list[dict[str, Any]]:
    """The one record of each type, in the order of ``types``; no other record.

    Not the log's order: the log lists by each record's date, and the receiving node records its
    ``del`` as it delivers, which may be before the sending node records its ``fwd`` (after the
    receiver's 204: the file is queued there when it answers)."""
    assert sorted(record["type"] for record in records) == sorted(types), records
    return [next(record for record in records if record["type"] == kind) for kind in types]


def spooled(site: Site) -> list[Path]:
    blobs = site.data_dir / "blobs"
    return [path for path in blobs.rglob("*") if path.is_file()] if blobs.exists() else []


def test_a_file_published_at_site_a_is_forwarded_to_and_delivered_by_the_node_of_site_b(
    sites: Sites, receiver: Receiver
) -> None:
    central = sites.central()
    node_a, node_b = sites.edge("edge-a"), sites.edge("edge-b")
    feed_id, sub_id = feed_bound_to(central, node_a, node_b, receiver)
    data = os.urandom(300_000)

    answer = publish(url(node_a), feed_id, "counters.bin", data, headers={"X-BUS-DR-META": '{"k":"v"}'})
    assert answer.status_code == 204, answer.text
    publish_id = answer.headers["X-BUS-DR-PUBLISH-ID"]
    assert publish_id.endswith(".edge-a")

    [delivered] = receiver.wait_for(1, timeout=30)
    assert delivered.body == data
    assert delivered.header("X-BUS-DR-PUBLISH-ID") == publish_id
    assert delivered.header("X-BUS-DR-META") == '{"k":"v"}'
    wait_until(lambda: spooled(node_a) == [] and spooled(node_b) == [], timeout=30, what="spools emptied")
    # A fixed wait on purpose: an absence has no condition to await.
    time.sleep(1)  # room for a duplicate
    assert len(receiver.requests) == 1

    # One publish id across both hops, each recorded by its node and shipped to central: pub and
    # forward by A, delivery by B.
    found = logged_at_central(central, sub_id, publish_id, "pub", "fwd", "del")
    pub, forward, delivery = one_of_each(found, "pub", "fwd", "del")
    assert pub["requestURI"].startswith(url(node_a)) and pub["node"] == "edge-a"
    assert forward["requestURI"] == f"{url(node_b)}/internal/forward/{publish_id}"
    assert forward["statusCode"] == 204 and forward["contentLength"] == len(data)
    assert forward["node"] == "edge-a"
    assert delivery["requestURI"] == f"{receiver.url}/in/counters.bin" and delivery["statusCode"] == 204
    assert delivery["node"] == "edge-b"
    assert f"holding {publish_id} from node edge-a" in node_b.log()
    # The forward went as the node identity, which may do nothing else.
    with httpx.Client(base_url=url(node_b), auth=NODE_IDENTITY, timeout=30) as as_node:
        assert as_node.get(f"/feed/{feed_id}", headers={"X-BUS-DR-ON-BEHALF-OF": "ops"}).status_code == 403


def test_nodes_sharing_the_platform_key_forward_as_svc_node_without_any_configured_identity(
    sites: Sites, receiver: Receiver
) -> None:
    central = sites.central()
    node_a = sites.edge("edge-a", configured_identity=False)
    node_b = sites.edge("edge-b", configured_identity=False)
    feed_id, sub_id = feed_bound_to(central, node_a, node_b, receiver)
    answer = publish(url(node_a), feed_id, "counters.csv", b"a,b\n1,2\n")
    assert answer.status_code == 204, answer.text
    publish_id = answer.headers["X-BUS-DR-PUBLISH-ID"]
    [delivered] = receiver.wait_for(1, timeout=30)
    assert delivered.body == b"a,b\n1,2\n"
    found = logged_at_central(central, sub_id, publish_id, "pub", "fwd", "del")
    _pub, forward, _delivery = one_of_each(found, "pub", "fwd", "del")
    assert forward["statusCode"] == 204
    # Node B's access log names who forwarded: the platform's node identity, not the administrator.
    hop = f"PUT /internal/forward/{publish_id} svc.node 204"
    wait_until(lambda: hop in node_b.log(), timeout=30, what="the forward in edge-b's access log")
    assert f"/internal/forward/{publish_id} admin" not in node_b.log()


def test_a_forward_to_a_node_that_is_down_is_retried_until_it_is_back(
    sites: Sites, receiver: Receiver
) -> None:
    central = sites.central()
    node_a, node_b = sites.edge("edge-a"), sites.edge("edge-b")
    feed_id, sub_id = feed_bound_to(central, node_a, node_b, receiver)
    node_b.kill()

    answer = publish(url(node_a), feed_id, "late.csv", b"a,b\n1,2\n")
    assert answer.status_code == 204, answer.text
    publish_id = answer.headers["X-BUS-DR-PUBLISH-ID"]

    def failed_forwards() -> list[dict[str, Any]]:  # A's own log, at A
        with node_a.client("distribution") as http:
            return [r for r in sub_log(http, sub_id, publishId=publish_id) if r["type"] == "fwd"]

    wait_until(lambda: len(failed_forwards()) >= 2, timeout=30, what="two failed forwards")
    assert {record["statusCode"] for record in failed_forwards()} == {-1}
    # What each node holds, in its own database.
    assert files_held(node_a.database_url) == [publish_id], "A keeps the file while B is down"
    assert files_held(node_b.database_url) == []
    assert receiver.requests == [], "nobody delivers for B meanwhile"

    def up() -> dict[str, bool]:
        with central.client("distribution") as http:
            return {node["name"]: node["up"] for node in http.get("/internal/nodes").json()}

    wait_until(
        lambda: up() == {"central": True, "edge-a": True, "edge-b": False},
        timeout=30,
        what=lambda: f"edge-b seen down at central (no heartbeat), not {up()}",
    )

    node_b.start()
    [delivered] = receiver.wait_for(1, timeout=30)
    assert delivered.body == b"a,b\n1,2\n" and delivered.header("X-BUS-DR-PUBLISH-ID") == publish_id
    wait_until(
        lambda: files_held(node_a.database_url) == files_held(node_b.database_url) == [],
        timeout=30,
        what="both nodes let go of the file",
    )
    # A fixed wait on purpose: an absence has no condition to await: room for a duplicate.
    time.sleep(1)
    assert len(receiver.requests) == 1
    found = logged_at_central(central, sub_id, publish_id, "pub", "fwd", "del")
    forwards = sorted((r for r in found if r["type"] == "fwd"), key=lambda r: r["date"])  # A's alone
    # The hop ends at its first success: the last of A's forwards.
    assert [record["statusCode"] // 100 == 2 for record in forwards] == [False] * (len(forwards) - 1) + [True]
    assert len(forwards) >= 3
    others = [record for record in found if record["type"] != "fwd"]
    _pub, delivery = one_of_each(others, "pub", "del")
    assert delivery["requestURI"] == f"{receiver.url}/in/late.csv" and delivery["statusCode"] == 204
    assert delivery["node"] == "edge-b"


def test_a_publish_at_an_excluded_node_is_redirected_and_a_following_client_completes_it(
    sites: Sites, receiver: Receiver, tmp_path: Path
) -> None:
    central = sites.central()
    node_a, node_b = sites.edge("edge-a"), sites.edge("edge-b")
    with central.client("distribution") as http:
        feed_id, _ = create_feed(http)
        sub_id, _ = create_subscription(http, feed_id, url=f"{receiver.url}/in")
        route = http.put(f"/internal/route/ingress/{feed_id}/{PUBLISHER[0]}", json={"sites": ["edge-b"]})
        assert route.status_code == 200, route.text
    for edge in (node_a, node_b):
        wait_known(edge, f"/subs/{sub_id}", "the subscription", **owner_headers())
        wait_known(edge, f"/internal/route/ingress/{feed_id}/{PUBLISHER[0]}", "the ingress route")
    wait_node_known(node_a, "edge-b")

    plain = publish(url(node_a), feed_id, "one.txt", b"one")
    assert plain.status_code == 307
    assert plain.headers["Location"] == f"{url(node_b)}/publish/{feed_id}/one.txt"

    with httpx.Client(auth=PublisherAuth(*PUBLISHER), follow_redirects=True, timeout=30) as client:
        followed = client.put(
            f"{url(node_a)}/publish/{feed_id}/one.txt",
            content=b"one",
            headers={"Content-Type": "text/plain"},
        )
    assert followed.status_code == 204, followed.text
    assert followed.headers["X-BUS-DR-PUBLISH-ID"].endswith(".edge-b")

    if shutil.which("curl") is None:
        return  # the httpx client above has shown the redirect is followable
    body = tmp_path / "two.txt"
    body.write_bytes(b"two")
    curl = subprocess.run(
        ["curl", "-sS", "--location-trusted", "-u", ":".join(PUBLISHER), "-T", str(body),
         "-H", "Content-Type: text/plain", "-o", "/dev/null", "-w", "%{http_code}",
         f"{url(node_a)}/publish/{feed_id}/two.txt"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert curl.stdout == "204", curl.stderr

    delivered = receiver.wait_for(2, timeout=30)
    assert sorted(request.body for request in delivered) == [b"one", b"two"]
    # A fixed wait on purpose: an absence has no condition to await: room for a duplicate.
    time.sleep(1)
    assert len(receiver.requests) == 2
    assert all((request.header("X-BUS-DR-PUBLISH-ID") or "").endswith(".edge-b") for request in delivered)


BUS_SETTINGS = {
    "busName": "lab1",
    "topicNsRoot": "org.example.bus",
    "bridgeAdminTopic": "org.example.bus.admin",
}

FEED = {"feedName": "pm", "feedVersion": "1", "owner": "ops", "asprClassification": "unclassified"}


def fqdn(site: Site) -> str:
    """The host and port of the site's distribution node, as the bus's ``dr_nodes`` take it."""
    return url(site).removeprefix("http://")


def valid(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    assert body["status"] == "VALID", body
    return body


def test_through_the_bus_controller_a_publisher_at_site_a_reaches_a_subscriber_at_site_b(
    sites: Sites, receiver: Receiver
) -> None:
    central = sites.central(bus=True)  # the bus controller is central, provisioning every site
    node_a, node_b = sites.edge("edge-a"), sites.edge("edge-b")
    with central.client("bus", timeout=60) as bus:
        ok(bus.put("/bus", json={**BUS_SETTINGS, "drProvUrl": url(central)}))
        for node in (node_a, node_b):
            valid(bus.post("/dr_nodes", json={"svcLocationName": node.name, "fqdn": fqdn(node)}))
        feed = valid(bus.post("/feeds", json=FEED))
        feed_id = feed["feedId"]
        pub = valid(bus.post("/dr_pubs", json={"feedId": feed_id, "svcLocationName": "edge-a"}))
        sub = valid(
            bus.post(
                "/dr_subs",
                json={"feedId": feed_id, "svcLocationName": "edge-b", "deliveryURL": f"{receiver.url}/in",
                      "username": "rx", "userpwd": "rx-pass"},
            )
        )  # fmt: skip
    assert pub["publishURL"] == f"{url(node_a)}/publish/{feed_id}"
    sub_id = int(sub["subId"])
    known_everywhere(sub_id, "edge-b", node_a, node_b)
    ingress = f"/internal/route/ingress/{feed_id}/{pub['username']}"
    for edge in (node_a, node_b):
        wait_known(edge, ingress, "the publisher's ingress route")
        with edge.client("distribution") as http:
            assert http.get(ingress).json()["sites"] == ["edge-a"]
    wait_node_known(node_b, "edge-a")

    data = os.urandom(200_000)
    credentials = PublisherAuth(pub["username"], pub["userpwd"])
    octets = {"Content-Type": "application/octet-stream"}
    with httpx.Client(auth=credentials, follow_redirects=True, timeout=30, headers=octets) as publisher:
        answer = publisher.put(f"{pub['publishURL']}/pm.bin", content=data)
        assert answer.status_code == 204, answer.text
        publish_id = answer.headers["X-BUS-DR-PUBLISH-ID"]
        assert publish_id.endswith(".edge-a")
        [delivered] = receiver.wait_for(1, timeout=30)
        assert delivered.body == data and delivered.header("X-BUS-DR-PUBLISH-ID") == publish_id
        wait_until(lambda: spooled(node_a) == [] and spooled(node_b) == [], timeout=30, what="spools emptied")
        found = logged_at_central(central, sub_id, publish_id, "pub", "fwd", "del")
        _pub, forward, delivery = one_of_each(found, "pub", "fwd", "del")
        assert forward["statusCode"] == 204 and forward["contentLength"] == len(data)
        assert delivery["requestURI"] == f"{receiver.url}/in/pm.bin" and delivery["statusCode"] == 204
        assert delivery["node"] == "edge-b"

        # At node B the publisher is sent to its own site's node, and a following client gets there.
        again = f"{url(node_b)}/publish/{feed_id}/again.bin"
        wrong = httpx.put(again, content=b"x", auth=credentials, headers=octets)
        assert wrong.status_code == 307
        assert wrong.headers["Location"] == f"{url(node_a)}/publish/{feed_id}/again.bin"
        followed = publisher.put(again, content=b"again")
        assert followed.status_code == 204, followed.text
        assert followed.headers["X-BUS-DR-PUBLISH-ID"].endswith(".edge-a")
    delivered_twice = receiver.wait_for(2, timeout=30)
    assert sorted(request.body for request in delivered_twice) == sorted([data, b"again"])
    # A fixed wait on purpose: an absence has no condition to await.
    time.sleep(1)  # room for a duplicate
    assert len(receiver.requests) == 2
