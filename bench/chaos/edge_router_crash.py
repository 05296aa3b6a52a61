"""Crash loop of an edge message router on its own store, central partitioned for half the cycles.

Two `netplatform serve` processes, each on its own SQLite database and data directory (issue 38):
central (authz and a message router) and an edge (a message router deciding from its replica of
central's directory, NETPLATFORM_CENTRAL_URL). The edge's router holds a topic; two publishers
post batches of text lines (unique ids) to it without pause and two consumer groups of two
members each long-poll it, all at the edge (router_crash.py's clients), as an identity made at
central (through its authz API) that the edge knows only from its replica. Each cycle lets that run,
kills the edge with SIGKILL, starts it again on the same port and data, and measures the time
from the restart until a publish and a fetch are answered 2xx again. In every other cycle central
is SIGKILLed first and stays away across the edge's crash and restart (the edge starts from its
own store, replica included, without central), and is started again once the edge recovered.

After the last cycle the publishers stop and the groups drain: every message whose publish the
edge answered 2xx must reach every group. ``lost`` counts (group, message) pairs that never
arrived; ``duplicates`` the extra copies; ``unexpected`` any answer other than 2xx or a connection
error while the edge runs (a 503 because central is away would be one: the replica's bound,
NETPLATFORM_AUTHZ_OFFLINE_S, is far longer than a partition here), a message nobody sent, or an
edge that did not recover within 60 s. ``partitioned``: the cycles with central away.

Run: ``PYTHONPATH=src .venv/bin/python bench/chaos/edge_router_crash.py --cycles 50``.
"""

from __future__ import annotations

import asyncio
import base64
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import aiohttp
from router_crash import (
    GROUPS,
    MEMBERS,
    PUBLISHERS,
    Traffic,
    complete,
    consumer,
    count,
    create_topic,
    kill_and_recover,
    publisher,
)

from common import ADMIN_HEADERS, Serve, Tally, run_loop, site, wait_for

CLIENT = ("collector", "collector-pw-chaos")  # made at central, a member of platform.admin there
CLIENT_HEADERS = {"Authorization": "Basic " + base64.b64encode(":".join(CLIENT).encode()).decode()}
DRAIN_S = 60.0  # the embedded engine gives back what a killed router had handed out at its start


async def identity_at_central(authz: str) -> None:
    """The clients' identity, made at central only."""
    async with aiohttp.ClientSession(headers=ADMIN_HEADERS) as http:
        for path, body in (
            ("/authn/cred", {"id": CLIENT[0], "password": CLIENT[1]}),
            ("/authz/userRole", {"user": CLIENT[0], "role": "platform.admin"}),
        ):
            async with http.post(f"{authz}{path}", json=body) as got:
                if got.status != 201:
                    raise RuntimeError(f"POST {path} at central: {got.status} {await got.text()}")


async def until_ok(http: aiohttp.ClientSession, url: str) -> None:
    """Until ``GET url`` answers 200 (at the edge: once its replica holds the identity)."""
    deadline = time.monotonic() + 60
    while True:
        try:
            async with http.get(url) as got:
                if got.status == 200:
                    return
        except aiohttp.ClientError:
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"{url} never answered 200")
        await asyncio.sleep(0.1)


async def cycles(central: Serve, edge: Serve, count: int, load_s: float, traffic: Traffic) -> None:
    for cycle in range(count):
        partitioned = cycle % 2 == 1
        if partitioned:
            central.kill()
            traffic.tally.extra["partitioned"] = traffic.tally.extra.get("partitioned", 0) + 1
        if not await kill_and_recover(edge, cycle, load_s, traffic):
            return
        if partitioned:
            await asyncio.to_thread(central.start)
            await asyncio.to_thread(central.wait_ports)


async def load(edge: Serve, central: Serve, base: str, args: Any, traffic: Traffic) -> None:
    timeout = aiohttp.ClientTimeout(total=20)
    topic = f"chaos.edge.{uuid.uuid4().hex[:10]}"
    async with aiohttp.ClientSession(headers=CLIENT_HEADERS, timeout=timeout) as http:
        await until_ok(http, f"{base}/topics")
        await create_topic(http, base, topic)
        tasks = [asyncio.create_task(publisher(http, base, topic, i, traffic)) for i in range(PUBLISHERS)]
        tasks += [
            asyncio.create_task(consumer(http, base, topic, f"g{g}", f"m{m}", traffic))
            for g in range(GROUPS)
            for m in range(MEMBERS)
        ]
        try:
            await cycles(central, edge, args.cycles, args.load_s, traffic)
            traffic.publishing = False
            started = time.monotonic()
            await wait_for(lambda: complete(traffic), DRAIN_S, step=0.2)
            traffic.tally.extra["drain_s"] = f"{time.monotonic() - started:.1f}"
            await asyncio.sleep(1.0)  # room for a late duplicate
        finally:
            traffic.publishing = traffic.consuming = False
            await asyncio.gather(*tasks, return_exceptions=True)


async def run(args: Any, scratch: Path, tally: Tally) -> int:
    central, central_ports = site("central", ["authz", "router"], scratch)
    # The one setting of an edge (docs/operations.md "Sites"): central's URL, host only; the
    # edge reaches central's authz at the port it names for it (here central's own, one machine).
    edge, edge_ports = site(
        "edge",
        ["router"],
        scratch,
        NETPLATFORM_CENTRAL_URL="http://127.0.0.1",
        NETPLATFORM_AUTHZ_PORT=str(central_ports["authz"]),
    )
    traffic = Traffic(tally)
    try:
        central.start()
        central.wait_ports()
        await identity_at_central(f"http://127.0.0.1:{central_ports['authz']}")
        edge.start()
        edge.wait_ports()
        await load(edge, central, f"http://127.0.0.1:{edge_ports['router']}", args, traffic)
    finally:
        for stopped in (edge, central):
            stopped.stop()
    count(traffic)
    return 0


def main() -> int:
    return run_loop(__doc__, "edge_router_crash", "chaos-edge-router-", run)


if __name__ == "__main__":
    sys.exit(main())
