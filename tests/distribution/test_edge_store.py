"""A distribution node on its own store (issue 38): provisioning followed from central over HTTP,
writes refused at the edge, queue and logs local, logs shipped to central, and an edge that keeps
taking publishes, and starts, while central is away.

Real processes: central runs authz and distribution on the test database, the edge runs
distribution on SQLite in its own data directory (tests/support/sites.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ..support.distribution_calls import (
    create_feed,
    create_subscription,
    feed_document,
    files_held,
    owner_headers,
    post_feed,
    publish,
)
from ..support.receiver import Receiver
from ..support.sites import Site, SiteLauncher, site_launcher
from ..support.tls import TlsFiles
from ..support.waiting import wait_until
from .edge_sites import central_http, records, start_central, start_edge, wait_known, wait_node_known


@pytest.fixture
def sites(tmp_path: Path) -> Iterator[SiteLauncher]:
    with site_launcher(tmp_path) as launcher:
        yield launcher


@pytest.fixture
def central(sites: SiteLauncher, tls: TlsFiles) -> Site:
    return start_central(sites, tls)


@pytest.fixture
def edge(sites: SiteLauncher, central: Site, tls: TlsFiles) -> Site:
    return start_edge(sites, central, "edge-a", tls)


def feed_and_subscription(central: Site, receiver: Receiver) -> tuple[int, int]:
    with central.client("distribution") as http:
        feed_id, _ = create_feed(http)
        sub_id, _ = create_subscription(http, feed_id, url=f"{receiver.url}/in")
    return feed_id, sub_id


def test_an_edge_follows_central_provisioning_and_refuses_to_change_it(central: Site, edge: Site) -> None:
    with central.client("distribution") as http:
        feed_id, _ = create_feed(http, description="first")
    wait_known(edge, f"/feed/{feed_id}", "the feed made at central", **owner_headers())

    with central.client("distribution") as http:
        changed = http.put(
            f"/feed/{feed_id}",
            json=feed_document(description="second"),
            headers=owner_headers(**{"Content-Type": "application/vnd.bus-dr.feed"}),
        )
    assert changed.status_code == 200, changed.text

    def second() -> bool:
        with edge.client("distribution") as http:
            feed = http.get(f"/feed/{feed_id}", headers=owner_headers()).json()
        return bool(feed["description"] == "second")

    wait_until(second, 30, "the feed's change at the edge")

    refused = post_feed(edge.client("distribution"), feed_document(name="edge-made"))
    assert refused.status_code == 409, refused.text
    assert central.url("distribution") in refused.text
    with edge.client("distribution") as http:
        route = http.put("/internal/route/egress/1", json={"node": edge.name})
    assert route.status_code == 409, route.text
    wait_node_known(central, edge.name)  # the edge announced itself to central


def test_an_edge_delivers_from_its_own_queue_and_ships_its_logs_to_central(
    central: Site, edge: Site, receiver: Receiver
) -> None:
    feed_id, sub_id = feed_and_subscription(central, receiver)
    wait_known(edge, f"/subs/{sub_id}", "the subscription", **owner_headers())

    published = publish(edge.url("distribution"), feed_id, "counters.csv", b"a,b\n1,2\n")
    assert published.status_code == 204, published.text
    publish_id = published.headers["X-BUS-DR-PUBLISH-ID"]
    [delivered] = receiver.wait_for(1)
    assert delivered.body == b"a,b\n1,2\n"

    def shipped() -> list[dict[str, object]]:
        return records(central, f"/sublog/{sub_id}", publishId=publish_id)

    wait_until(lambda: len(shipped()) == 2, 30, "the edge's pub and del records at central")
    seen = {(record["type"], record["node"]) for record in shipped()}
    assert seen == {("pub", edge.name), ("del", edge.name)}


def test_a_subscription_deleted_at_central_takes_its_queued_files_at_the_edge_with_it(
    central: Site, edge: Site, receiver: Receiver
) -> None:
    receiver.answer_with(lambda request: (503, {}))  # the file stays queued at the edge
    feed_id, sub_id = feed_and_subscription(central, receiver)
    wait_known(edge, f"/subs/{sub_id}", "the subscription", **owner_headers())
    published = publish(edge.url("distribution"), feed_id, "big.bin", b"x" * 100_000)
    assert published.status_code == 204, published.text
    receiver.wait_for(1)
    assert files_held(edge.database_url) == [published.headers["X-BUS-DR-PUBLISH-ID"]]

    assert spooled(edge)
    with central.client("distribution") as http:
        assert http.delete(f"/subs/{sub_id}", headers=owner_headers()).status_code == 204
    wait_until(lambda: files_held(edge.database_url) == [], 30, "the edge's queue emptied")
    wait_until(lambda: not spooled(edge), 30, "the edge's spool emptied")


def test_shipped_records_are_taken_once(central: Site) -> None:
    record = {
        "id": 7,
        "type": "pub",
        "date_ms": 1_700_000_000_000,
        "feed_id": 1,
        "publish_id": "1700000000000.edge-x",
        "request_uri": "http://edge-x/publish/1/f",
        "method": "PUT",
        "status_code": 204,
    }
    with central_http(central) as http:
        first = http.post("/internal/logs", json={"node": "edge-x", "records": [record]})
        again = http.post("/internal/logs", json={"node": "edge-x", "records": [record]})
        other = http.post("/internal/logs", json={"node": "edge-y", "records": [record]})
        bad = http.post("/internal/logs", json={"node": "edge-x", "records": [{"id": 8}]})
    assert [first.json(), again.json(), other.json()] == [{"taken": 1}, {"taken": 0}, {"taken": 1}]
    assert bad.status_code == 400, bad.text
    with central.client("distribution") as http:
        refused = http.post("/internal/logs", json={"node": "edge-x", "records": []}, auth=("nobody", "x"))
    assert refused.status_code == 401


def test_an_edge_takes_publishes_and_starts_while_central_is_away_then_ships_every_record_once(
    central: Site, edge: Site, receiver: Receiver
) -> None:
    feed_id, sub_id = feed_and_subscription(central, receiver)
    wait_known(edge, f"/subs/{sub_id}", "the subscription", **owner_headers())
    central.kill()

    ids = [_publish(edge, feed_id, "while-away-1")]
    edge.stop()
    edge.start()  # central is still away: it starts from its own store
    ids.append(_publish(edge, feed_id, "after-restart"))
    receiver.wait_for(2)

    central.start()

    def shipped() -> list[dict[str, object]]:
        return records(central, f"/sublog/{sub_id}")

    wait_until(lambda: len(shipped()) >= 4, 60, "the edge's records at central after it returned")
    kinds = sorted((str(record["publishId"]), str(record["type"])) for record in shipped())
    assert kinds == sorted((publish_id, kind) for publish_id in ids for kind in ("pub", "del"))


def spooled(site: Site) -> list[Path]:
    return [path for path in (site.data_dir / "blobs").rglob("*") if path.is_file()]


def _publish(edge: Site, feed_id: int, name: str) -> str:
    answer = publish(edge.url("distribution"), feed_id, name, b"x")
    assert answer.status_code == 204, answer.text
    return answer.headers["X-BUS-DR-PUBLISH-ID"]
