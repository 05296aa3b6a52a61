"""Crash loop of a two-site distribution forward: the receiving node killed mid-stream, restarted.

Two `netplatform serve --only distribution` nodes over one SQLite database (a file outside both
data directories, as docs/operations.md allows on one machine): node A at site-a, where files
are published, and node B at site-b, which holds the subscription's egress route and delivers
to a real HTTPS subscriber (uvicorn with a throwaway CA, trusted through
NETPLATFORM_DELIVERY_CA_BUNDLE). Two publishers PUT small files to A without pause; A forwards
each to B, which stores it before answering and then delivers it. Each cycle lets that run,
kills B with SIGKILL (files in flight: some forwarded and not yet delivered, some mid-forward),
starts it again with the same name and data directory, and measures the time from the restart
to the next delivery.

After the last cycle the publishers stop and the script waits until every file A acknowledged
(204, with its publish id) has reached the subscriber, for as long as files keep arriving
(``backlog``: how many were still on their way then; a stall of 60 s ends the wait): ``lost``
counts those that never did,
``duplicates`` the extra deliveries (at least once). ``unexpected``: an answer of A other than
204 (A is never killed), a delivery nobody published, or B not delivering within 60 s of a
restart.

Run: ``PYTHONPATH=src .venv/bin/python bench/chaos/distribution_crash.py --cycles 50``.
"""

from __future__ import annotations

import asyncio
import base64
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp

from common import (
    ADMIN_HEADERS,
    HttpsSubscriber,
    Serve,
    Tally,
    free_port,
    run_loop,
    wait_for,
)

PUBLISHERS = 2
PUBLISHER = ("collector1", "s3cret-pw")
NODE_USERS = "admin:admin,node:node-pw:platform.node"
RECOVERY_LIMIT_S = 60.0
STALL_S = 60.0  # the drain gives up only when no file has arrived for this long
PAUSE_S = 0.2  # between a publisher's files: B is down much of each cycle, A's backlog stays bounded
FAST = {  # as the tests' FAST_DELIVERY: retries within a second, so a restart is seen at once
    "NETPLATFORM_DELIVERY_RETRY_INITIAL_S": "0.2",
    "NETPLATFORM_DELIVERY_RETRY_MAX_S": "0.4",
    "NETPLATFORM_DELIVERY_POLL_S": "0.05",
    "NETPLATFORM_DELIVERY_WORKERS": "3",
    "NETPLATFORM_DELIVERY_CONNECT_TIMEOUT_S": "5",
    "NETPLATFORM_DELIVERY_READ_TIMEOUT_S": "10",
    "NETPLATFORM_NODE_HEARTBEAT_S": "0.3",
    "NETPLATFORM_NODE_DOWN_AFTER_S": "2",
}


@dataclass
class Publishing:
    tally: Tally
    acknowledged: dict[str, str] = field(default_factory=dict)  # publish id -> file name
    running: bool = True


def node(name: str, site: str, scratch: Path, database: str, ca_bundle: Path) -> tuple[Serve, int]:
    port = free_port()
    env = {
        "NETPLATFORM_DISTRIBUTION_PORT": str(port),
        "NETPLATFORM_DATA_DIR": str(scratch / f"{name}-data"),
        "NETPLATFORM_DATABASE_URL": database,
        "NETPLATFORM_USERS": NODE_USERS,
        "NETPLATFORM_NODE_USER": "node",
        "NETPLATFORM_NODE_PASSWORD": "node-pw",
        "NETPLATFORM_INSTANCE_NAME": name,
        "NETPLATFORM_SITE": site,
        "NETPLATFORM_NODE_URL": f"http://127.0.0.1:{port}",
        "NETPLATFORM_DELIVERY_CA_BUNDLE": str(ca_bundle),
        "NETPLATFORM_ACCESS_LOG": "false",
        "NETPLATFORM_LOG_LEVEL": "WARNING",
        **FAST,
    }
    return Serve(env, ["distribution"], [port], scratch / f"{name}.log"), port


async def feed_to(http: aiohttp.ClientSession, base: str, subscriber: str, target: str) -> int:
    """A feed with one subscription, delivered by node ``target`` (its egress route)."""
    owner = {"X-BUS-DR-ON-BEHALF-OF": "opsteam"}
    feed = {
        "name": "chaos",
        "version": "1.0",
        "description": "crash loop",
        "authorization": {
            "classification": "unclassified",
            "endpoint_ids": [{"id": PUBLISHER[0], "password": PUBLISHER[1]}],
            "endpoint_addrs": [],
        },
    }
    headers = {**owner, "Content-Type": "application/vnd.bus-dr.feed"}
    async with http.post(f"{base}/", json=feed, headers=headers) as answer:
        assert answer.status == 200, await answer.text()
        feed_id = int((await answer.json())["links"]["self"].rsplit("/", 1)[1])
    subscription = {
        "delivery": {"url": f"{subscriber}/in", "user": "rx", "password": "rx-pass", "use100": False},
        "metadataOnly": False,
        "groupid": 0,
    }
    headers = {**owner, "Content-Type": "application/vnd.bus-dr.subscription"}
    async with http.post(f"{base}/subscribe/{feed_id}", json=subscription, headers=headers) as answer:
        assert answer.status == 201, await answer.text()
        sub_id = int((await answer.json())["links"]["self"].rsplit("/", 1)[1])
    async with http.put(f"{base}/internal/route/egress/{sub_id}", json={"node": target}) as answer:
        assert answer.status == 200, await answer.text()
    return feed_id


async def publisher(base: str, feed_id: int, index: int, publishing: Publishing) -> None:
    credentials = base64.b64encode(":".join(PUBLISHER).encode()).decode()
    headers = {"Authorization": f"Basic {credentials}", "Content-Type": "application/octet-stream"}
    serial = 0
    async with aiohttp.ClientSession(headers=headers, timeout=aiohttp.ClientTimeout(total=30)) as http:
        while publishing.running:
            name = f"f{index}-{serial}"
            serial += 1
            try:
                async with http.put(f"{base}/publish/{feed_id}/{name}", data=name.encode()) as answer:
                    if answer.status == 204:
                        publishing.acknowledged[answer.headers["X-BUS-DR-PUBLISH-ID"]] = name
                    else:
                        publishing.tally.strange(f"publish {name} at node A: {answer.status}")
            except (aiohttp.ClientError, OSError, TimeoutError) as error:
                publishing.tally.strange(f"publish {name} at node A failed: {error!r}")
            await asyncio.sleep(PAUSE_S)


async def cycles(
    receiving: Serve, subscriber: HttpsSubscriber, count: int, load_s: float, tally: Tally
) -> None:
    for cycle in range(count):
        await asyncio.sleep(load_s * random.uniform(0.5, 1.5))
        receiving.kill()
        await asyncio.sleep(0.3)  # A's forwards meet the closed port and are retried
        restarted = await asyncio.to_thread(receiving.start)
        await asyncio.to_thread(receiving.wait_ports)
        before = subscriber.count()
        delivered = await wait_for(lambda before=before: subscriber.count() > before, RECOVERY_LIMIT_S)
        tally.cycles = cycle + 1
        if not delivered:
            tally.strange(f"cycle {cycle + 1}: no delivery within {RECOVERY_LIMIT_S} s of B's restart")
            return
        tally.recoveries.append(time.monotonic() - restarted)


async def drain(publishing: Publishing, subscriber: HttpsSubscriber) -> None:
    """Wait until every acknowledged file has arrived, as long as files keep arriving: a backlog
    A built while B was down drains at B's pace; only a stall (nothing for STALL_S) ends it."""
    expected = set(publishing.acknowledged)
    while not expected <= {p for _n, p in subscriber.deliveries}:
        before = subscriber.count()
        if not await wait_for(lambda before=before: subscriber.count() > before, STALL_S, 0.2):
            return


def count(publishing: Publishing, subscriber: HttpsSubscriber) -> None:
    tally = publishing.tally
    tally.acknowledged = len(publishing.acknowledged)
    ids = [publish_id for _name, publish_id in subscriber.deliveries]
    unique = set(ids)
    tally.received = len(unique)
    tally.duplicates = len(ids) - len(unique)
    missing = sorted(set(publishing.acknowledged) - unique)
    tally.lost = len(missing)
    if missing:
        tally.strange(f"never delivered: {len(missing)} acknowledged files, e.g. {missing[:5]}")
    for name, publish_id in subscriber.deliveries:
        if publishing.acknowledged.get(publish_id, name) != name:
            tally.strange(f"delivered {name} under publish id {publish_id} of another file")
    strangers = unique - set(publishing.acknowledged)
    if strangers:  # a publish whose answer was lost could cause one; A is never killed, so none
        tally.strange(f"delivered files nobody saw acknowledged: {sorted(strangers)[:5]}")


async def run(args: object, scratch: Path, tally: Tally) -> int:
    subscriber = HttpsSubscriber(scratch)
    subscriber.start()
    database = f"sqlite:///{scratch / 'sites.db'}"
    sending, port_a = node("node-a", "site-a", scratch, database, subscriber.ca_bundle)
    receiving, _port_b = node("node-b", "site-b", scratch, database, subscriber.ca_bundle)
    publishing = Publishing(tally)
    try:
        for started in (sending, receiving):
            started.start()
            started.wait_ports()
        base = f"http://127.0.0.1:{port_a}"
        async with aiohttp.ClientSession(headers=ADMIN_HEADERS) as http:
            feed_id = await feed_to(http, base, subscriber.url, "node-b")
        tasks = [asyncio.create_task(publisher(base, feed_id, i, publishing)) for i in range(PUBLISHERS)]
        try:
            await cycles(receiving, subscriber, args.cycles, args.load_s, tally)  # type: ignore[attr-defined]
        finally:
            publishing.running = False
            await asyncio.gather(*tasks, return_exceptions=True)
        tally.extra["backlog"] = len(set(publishing.acknowledged) - {p for _n, p in subscriber.deliveries})
        started_drain = time.monotonic()
        await drain(publishing, subscriber)
        tally.extra["drain_s"] = f"{time.monotonic() - started_drain:.1f}"
        await asyncio.sleep(1.0)  # room for a late duplicate
    finally:
        for stopped in (sending, receiving):
            stopped.stop()
        subscriber.stop()
    count(publishing, subscriber)
    return 0


def main() -> int:
    return run_loop(__doc__, "distribution_crash", "chaos-distribution-", run)


if __name__ == "__main__":
    sys.exit(main())
