"""Files across three sites on their own stores (issue 38): central, edge A and edge B, three
``netplatform serve`` processes with three databases (central on the test database, the edges on
SQLite), joined only by HTTP.

A file published at edge A is delivered to a subscriber at central (forwarded to central's node)
and to one at edge B (forwarded to B's node), and both deliveries show in central's log API with
the node that delivered. Then a partition: central is SIGKILLed for thirty seconds while both
edges keep taking files (edge B also restarted meanwhile, from its own store); nothing
acknowledged is lost, the forwards to central drain and every log record arrives at central once
it is back; duplicates are counted.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from ..distribution.edge_sites import (
    bind,
    egress_known,
    records,
    start_central,
    start_edge,
    wait_known,
    wait_node_known,
)
from ..support.distribution_calls import create_feed, create_subscription, owner_headers, publish
from ..support.receiver import Receiver
from ..support.sites import Site, SiteLauncher, site_launcher
from ..support.tls import TlsFiles
from ..support.waiting import wait_until

PARTITION_S = 30.0  # how long central stays away (the partition)
PUBLISH_ID = "x-bus-dr-publish-id"


@dataclass
class ThreeSites:
    central: Site
    edge_a: Site
    edge_b: Site
    at_central: Receiver  # subscriber of the subscription central's node delivers
    at_b: Receiver  # subscriber of the subscription edge B's node delivers
    feed_id: int
    sub_central: int
    sub_b: int


@pytest.fixture
def receivers(tls: TlsFiles) -> Iterator[tuple[Receiver, Receiver]]:
    first, second = Receiver(tls).start(), Receiver(tls).start()
    try:
        yield first, second
    finally:
        first.stop()
        second.stop()


@pytest.fixture
def three(tmp_path: Path, tls: TlsFiles, receivers: tuple[Receiver, Receiver]) -> Iterator[ThreeSites]:
    with site_launcher(tmp_path) as sites:
        yield _provisioned(sites, tls, *receivers)


def _provisioned(sites: SiteLauncher, tls: TlsFiles, at_central: Receiver, at_b: Receiver) -> ThreeSites:
    """The three sites; a feed with one subscription bound to central's node, one to edge B's,
    all made at central and known at both edges."""
    central = start_central(sites, tls)
    edge_a = start_edge(sites, central, "edge-a", tls)
    edge_b = start_edge(sites, central, "edge-b", tls)
    wait_node_known(central, edge_b.name)
    with central.client("distribution") as http:
        feed_id, _ = create_feed(http)
        sub_central, _ = create_subscription(http, feed_id, url=f"{at_central.url}/in")
        sub_b, _ = create_subscription(http, feed_id, url=f"{at_b.url}/in")
    bind(central, sub_central, central.name)
    bind(central, sub_b, edge_b.name)
    for edge in (edge_a, edge_b):
        wait_known(edge, f"/subs/{sub_b}", "the subscriptions", **owner_headers())
        for sub_id, node in ((sub_central, central.name), (sub_b, edge_b.name)):
            bound = partial(egress_known, edge, sub_id, node)
            wait_until(bound, 30, f"{sub_id} -> {node} at {edge.name}")
    wait_node_known(edge_a, edge_b.name)
    wait_node_known(edge_b, central.name)
    return ThreeSites(central, edge_a, edge_b, at_central, at_b, feed_id, sub_central, sub_b)


def _publish(edge: Site, feed_id: int, name: str) -> str | None:
    """The publish id of an acknowledged publish; None when the edge did not acknowledge it."""
    answer = publish(edge.url("distribution"), feed_id, name, name.encode())
    return answer.headers["X-BUS-DR-PUBLISH-ID"] if answer.status_code == 204 else None


def _delivered(receiver: Receiver) -> list[str]:
    return [str(request.header(PUBLISH_ID)) for request in receiver.requests]


def _logged(central: Site, sub_id: int, kind: str) -> dict[str, list[dict[str, Any]]]:
    """Central's log records of one type for the subscription, by publish id."""
    found: dict[str, list[dict[str, Any]]] = {}
    for record in records(central, f"/sublog/{sub_id}", type=kind):
        found.setdefault(str(record["publishId"]), []).append(record)
    return found


def test_a_file_published_at_edge_a_is_delivered_at_central_and_at_edge_b_and_logged_at_central(
    three: ThreeSites,
) -> None:
    publish_id = _publish(three.edge_a, three.feed_id, "pm.csv")
    assert publish_id is not None
    [at_central] = three.at_central.wait_for(1)
    [at_b] = three.at_b.wait_for(1)
    assert at_central.body == at_b.body == b"pm.csv"

    def deliveries_logged() -> bool:
        return publish_id in _logged(three.central, three.sub_central, "del") and publish_id in _logged(
            three.central, three.sub_b, "del"
        )

    wait_until(deliveries_logged, 30, "both deliveries in central's log API")
    [by_central] = _logged(three.central, three.sub_central, "del")[publish_id]
    [by_b] = _logged(three.central, three.sub_b, "del")[publish_id]
    assert (by_central["node"], by_central["statusCode"]) == (three.central.name, 204)
    assert (by_b["node"], by_b["statusCode"]) == (three.edge_b.name, 204)
    forwards = records(three.central, f"/feedlog/{three.feed_id}", type="fwd")
    assert {(record["node"], record["statusCode"]) for record in forwards} == {(three.edge_a.name, 204)}
    [published] = records(three.central, f"/feedlog/{three.feed_id}", type="pub")
    assert published["node"] == three.edge_a.name


def test_a_partition_from_central_loses_no_acknowledged_file_and_every_log_arrives_after_it(
    three: ThreeSites,
) -> None:
    three.central.kill()
    acknowledged: list[str] = []
    refused = 0
    ends = time.monotonic() + PARTITION_S
    n = 0
    while time.monotonic() < ends:  # the partition's length: both edges keep taking files
        edge = (three.edge_a, three.edge_b)[n % 2]
        publish_id = _publish(edge, three.feed_id, f"during-{n}.csv")
        n += 1
        if publish_id is None:
            refused += 1
        else:
            acknowledged.append(publish_id)
        time.sleep(0.25)
    assert acknowledged and not refused
    # Edge B restarted while central is away starts from its own store and takes files again.
    three.edge_b.stop()
    three.edge_b.start()
    after_restart = _publish(three.edge_b, three.feed_id, "after-b-restart.csv")
    assert after_restart is not None
    acknowledged.append(after_restart)
    # Edge to edge needs no central: B has every file already.
    wait_until(lambda: set(acknowledged) <= set(_delivered(three.at_b)), 60, "every file at edge B")

    three.central.start()
    wait_until(lambda: set(acknowledged) <= set(_delivered(three.at_central)), 60, "every file at central")

    def every_delivery_logged() -> bool:
        logged_central = _logged(three.central, three.sub_central, "del")
        logged_b = _logged(three.central, three.sub_b, "del")
        return all(p in logged_central and p in logged_b for p in acknowledged)

    wait_until(every_delivery_logged, 60, "every delivery in central's log API")
    published = _logged(three.central, three.sub_b, "pub")
    assert all(len(published[p]) == 1 for p in acknowledged), "a shipped record taken twice"
    duplicates = sum(
        len(receiver.requests) - len(set(_delivered(receiver))) for receiver in (three.at_central, three.at_b)
    )
    print(f"partition {PARTITION_S:g} s: {len(acknowledged)} acknowledged, 0 lost, {duplicates} duplicates")
