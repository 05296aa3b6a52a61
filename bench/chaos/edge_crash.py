"""Crash loop of an edge distribution node on its own store, central partitioned for half the cycles.

Two `netplatform serve` processes, each on its own SQLite database and data directory (issue 38):
central (authz and distribution) and an edge node (distribution, following central's provisioning
through NETPLATFORM_DISTRIBUTION_CENTRAL_URL and its authz through NETPLATFORM_AUTHZ_URL). The feed
has two subscriptions, each with its own HTTPS subscriber: one delivered by the edge itself, one
bound to central's node (the edge forwards those files there). Two publishers PUT small files to
the edge without pause. Each cycle lets that run, kills the edge with SIGKILL, starts it again and
measures the time from the restart to the edge's next delivery. In every other cycle central is
SIGKILLed first and stays away across the edge's crash and restart (the edge starts from its own
store without central), and is started again after the edge recovered.

After the last cycle the publishers stop; the script waits until every file the edge acknowledged
has reached both subscribers (a stall of 60 s ends the wait) and until central's log API holds the
edge's `pub` record of each. ``lost``: acknowledged files missing at either subscriber;
``duplicates``: extra deliveries at both (at least once); ``logs_missing``: acknowledged publishes
with no `pub` record at central; ``logs_twice``: a `pub` record central holds more than once
(shipping must take each record once). ``unexpected``: an answer of the edge other than 204 while
it runs, a delivery nobody published, or no delivery within 60 s of a restart.

Run: ``PYTHONPATH=src .venv/bin/python bench/chaos/edge_crash.py --cycles 50``.
"""

from __future__ import annotations

import asyncio
import base64
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import aiohttp
from distribution_crash import FAST, PAUSE_S, PUBLISHER, PUBLISHERS, Publishing

import common
from common import ADMIN_HEADERS, HttpsSubscriber, Serve, Tally, run_loop, wait_for

RECOVERY_LIMIT_S = 60.0
STALL_S = 60.0
OWNER = {"X-BUS-DR-ON-BEHALF-OF": "opsteam"}


def site(
    name: str, only: list[str], scratch: Path, ca_bundle: Path, **env: str
) -> tuple[Serve, dict[str, int]]:
    """common.site with what the file deliveries of this loop need (the subscriber's CA, logs
    shipped every half second, the distribution crash loop's fast timings)."""
    extra = {
        "NETPLATFORM_DELIVERY_CA_BUNDLE": str(ca_bundle),
        "NETPLATFORM_DISTRIBUTION_LOG_SHIP_S": "0.5",
        **FAST,
    }
    return common.site(name, only, scratch, **{**extra, **env})


async def answer(http: aiohttp.ClientSession, method: str, url: str, status: int, **kw: Any) -> Any:
    async with http.request(method, url, **kw) as got:
        assert got.status == status, f"{method} {url}: {got.status} {await got.text()}"
        return await got.json()


async def provision(
    http: aiohttp.ClientSession, central: str, subscribers: list[str], nodes: list[str]
) -> int:
    """At central: the feed, one subscription per subscriber, each bound to its node."""
    feed = {
        "name": "edge-chaos",
        "version": "1.0",
        "authorization": {
            "classification": "unclassified",
            "endpoint_ids": [{"id": "collector1", "password": "s3cret-pw"}],
            "endpoint_addrs": [],
        },
    }
    headers = {**OWNER, "Content-Type": "application/vnd.bus-dr.feed"}
    made = await answer(http, "POST", f"{central}/", 200, json=feed, headers=headers)
    feed_id = int(made["links"]["self"].rsplit("/", 1)[1])
    headers = {**OWNER, "Content-Type": "application/vnd.bus-dr.subscription"}
    for url, node in zip(subscribers, nodes, strict=True):
        subscription = {
            "delivery": {"url": f"{url}/in", "user": "rx", "password": "rx-pass"},
            "metadataOnly": False,
            "groupid": 0,
        }
        sub = await answer(
            http, "POST", f"{central}/subscribe/{feed_id}", 201, json=subscription, headers=headers
        )
        sub_id = int(sub["links"]["self"].rsplit("/", 1)[1])
        await answer(http, "PUT", f"{central}/internal/route/egress/{sub_id}", 200, json={"node": node})
    return feed_id


async def until_ok(http: aiohttp.ClientSession, url: str, headers: dict[str, str] | None = None) -> None:
    async def ok() -> bool:
        try:
            async with http.get(url, headers=headers) as got:
                return got.status == 200
        except aiohttp.ClientError:
            return False

    deadline = time.monotonic() + 60
    while not await ok():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{url} never answered 200")
        await asyncio.sleep(0.1)


async def publisher(base: str, feed_id: int, index: int, publishing: Publishing) -> None:
    """PUT small files to the edge without pause; while it is down, refused connections and cut
    requests are outage answers (the publisher sends again; those files were never acknowledged)."""
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
                        publishing.tally.strange(f"publish {name} at the edge: {answer.status}")
            except (aiohttp.ClientError, OSError, TimeoutError) as error:
                publishing.tally.outage(type(error).__name__)
            await asyncio.sleep(PAUSE_S)


async def cycles(
    central: Serve, edge: Serve, at_edge: HttpsSubscriber, count: int, load_s: float, tally: Tally
) -> None:
    for cycle in range(count):
        partitioned = cycle % 2 == 1
        if partitioned:
            central.kill()
        await asyncio.sleep(load_s * random.uniform(0.5, 1.5))
        edge.kill()
        await asyncio.sleep(0.3)
        restarted = await asyncio.to_thread(edge.start)
        await asyncio.to_thread(edge.wait_ports)
        before = at_edge.count()
        delivered = await wait_for(lambda before=before: at_edge.count() > before, RECOVERY_LIMIT_S)
        tally.cycles = cycle + 1
        if not delivered:
            tally.strange(f"cycle {cycle + 1}: no delivery within {RECOVERY_LIMIT_S} s of the edge's restart")
            return
        tally.recoveries.append(time.monotonic() - restarted)
        if partitioned:
            await asyncio.to_thread(central.start)
            await asyncio.to_thread(central.wait_ports)


async def drain(publishing: Publishing, subscriber: HttpsSubscriber) -> None:
    expected = set(publishing.acknowledged)
    while not expected <= {p for _n, p in subscriber.deliveries}:
        before = subscriber.count()
        if not await wait_for(lambda before=before: subscriber.count() > before, STALL_S, 0.2):
            return


async def central_pub_records(http: aiohttp.ClientSession, central: str, feed_id: int) -> Counter[str]:
    async with http.get(f"{central}/feedlog/{feed_id}", params={"type": "pub"}) as got:
        records = await got.json(content_type=None)
    return Counter(str(record["publishId"]) for record in records)


async def logs_shipped(
    http: aiohttp.ClientSession, central: str, feed_id: int, expected: set[str]
) -> Counter[str]:
    """Central's pub records once they hold every acknowledged publish (or once they stop growing)."""
    last, stalled = -1, time.monotonic()
    while True:
        seen = await central_pub_records(http, central, feed_id)
        if expected <= set(seen) or time.monotonic() - stalled > STALL_S:
            return seen
        if sum(seen.values()) != last:
            last, stalled = sum(seen.values()), time.monotonic()
        await asyncio.sleep(0.5)


def count(publishing: Publishing, subscribers: list[HttpsSubscriber], pubs: Counter[str]) -> None:
    tally = publishing.tally
    acknowledged = set(publishing.acknowledged)
    tally.acknowledged = len(acknowledged)
    for subscriber in subscribers:
        ids = [publish_id for _name, publish_id in subscriber.deliveries]
        tally.duplicates += len(ids) - len(set(ids))
        missing = acknowledged - set(ids)
        tally.lost += len(missing)
        if missing:
            tally.strange(
                f"never delivered at {subscriber.url}: {len(missing)} files, e.g. {sorted(missing)[:5]}"
            )
        strangers = set(ids) - acknowledged
        if strangers:  # a publish cut by the edge's kill before its answer: possible, counted apart
            tally.extra["unanswered_delivered"] = tally.extra.get("unanswered_delivered", 0) + len(strangers)
    tally.received = len(acknowledged & {p for _n, p in subscribers[0].deliveries})
    tally.extra["logs_missing"] = len(acknowledged - set(pubs))
    tally.extra["logs_twice"] = sum(1 for times in pubs.values() if times > 1)
    if tally.extra["logs_missing"] or tally.extra["logs_twice"]:
        missing, twice = tally.extra["logs_missing"], tally.extra["logs_twice"]
        tally.strange(f"central's log: {missing} pub records missing, {twice} twice")


async def run(args: Any, scratch: Path, tally: Tally) -> int:
    subscribers = []
    for name in ("at-edge", "at-central"):
        folder = scratch / name
        folder.mkdir()
        subscribers.append(HttpsSubscriber(folder))
    ca_bundle = scratch / "cas.pem"
    ca_bundle.write_bytes(b"".join(s.ca_bundle.read_bytes() for s in subscribers))
    for subscriber in subscribers:
        subscriber.start()
    central, central_ports = site("central", ["authz", "distribution"], scratch, ca_bundle)
    central_url = f"http://127.0.0.1:{central_ports['distribution']}"
    # Central and the edge both run distribution on one address here, so on different ports: the
    # edge names central's two services whole (what overrides NETPLATFORM_CENTRAL_URL).
    edge, edge_ports = site(
        "edge",
        ["distribution"],
        scratch,
        ca_bundle,
        NETPLATFORM_DISTRIBUTION_CENTRAL_URL=central_url,
        NETPLATFORM_AUTHZ_URL=f"http://127.0.0.1:{central_ports['authz']}",
    )
    edge_url = f"http://127.0.0.1:{edge_ports['distribution']}"
    publishing = Publishing(tally)
    try:
        for started in (central, edge):
            started.start()
            started.wait_ports()
        async with aiohttp.ClientSession(headers=ADMIN_HEADERS) as http:
            await until_ok(http, f"{central_url}/internal/nodes/edge")
            feed_id = await provision(http, central_url, [s.url for s in subscribers], ["edge", "central"])
            await until_ok(http, f"{edge_url}/internal/route/egress/2")
            tasks = [
                asyncio.create_task(publisher(edge_url, feed_id, i, publishing)) for i in range(PUBLISHERS)
            ]
            try:
                await cycles(central, edge, subscribers[0], args.cycles, args.load_s, tally)
            finally:
                publishing.running = False
                await asyncio.gather(*tasks, return_exceptions=True)
            started_drain = time.monotonic()
            for subscriber in subscribers:
                await drain(publishing, subscriber)
            tally.extra["drain_s"] = f"{time.monotonic() - started_drain:.1f}"
            pubs = await logs_shipped(http, central_url, feed_id, set(publishing.acknowledged))
            await asyncio.sleep(1.0)  # room for a late duplicate
    finally:
        for stopped in (edge, central):
            stopped.stop()
        for subscriber in subscribers:
            subscriber.stop()
    count(publishing, subscribers, pubs)
    return 0


def main() -> int:
    # Every site holds the same platform key (Serve gives each child the run's one key): the
    # edge presents svc.node to central, its password derived from it.
    return run_loop(__doc__, "edge_crash", "chaos-edge-", run)


if __name__ == "__main__":
    sys.exit(main())
