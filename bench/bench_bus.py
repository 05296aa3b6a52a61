"""Bus controller: its main reads and writes under load, and feed provisioning through distribution.

Run by hand: ``.venv/bin/python bench/bench_bus.py [seconds]``. Starts ``netplatform serve
--only bus --only distribution --only router`` on free ports with a throwaway data dir, drives load over
loopback at 1, 8 and 32 clients, and writes docs/performance/bus.md and bench/results/bus.json.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import sys

import httpx

from common import (
    AUTH,
    CONCURRENCY_LEVELS,
    TABLE_HEADER,
    LoadResult,
    Request,
    drive,
    get,
    send_json,
    serve,
    write_fragment,
    write_results,
)

NS = "org.example.bus.lab1"
_unique = itertools.count(1)


def prepare(base: str, dist: str, router_port: int) -> None:
    """Settings, a central and an edge site with clusters, and one topic the reads ask for.

    Both clusters are the message router served beside the bus (under two host names), so every
    topic and client is provisioned there for real over HTTP."""
    with httpx.Client(base_url=base, headers=AUTH, timeout=30) as client:
        settings = {
            "busName": "lab1",
            "topicNsRoot": "org.example.bus",
            "drProvUrl": dist,
            "bridgeAdminTopic": "a",
        }
        client.put("/bus", json=settings).raise_for_status()
        for name, layer, fqdn in (("central-1", "central", "127.0.0.1"), ("edge-1", "edge", "localhost")):
            client.post("/svcLocations", json={"svcLocationName": name, "svcLayer": layer}).raise_for_status()
            cluster = {
                "svcLocationName": name,
                "fqdn": fqdn,
                "topicProtocol": "http",
                "topicPort": str(router_port),
            }
            client.post("/mr_clusters", json=cluster).raise_for_status()
        client.post("/topics", json=topic_body("read-me")).raise_for_status()


def topic_body(name: str) -> dict[str, object]:
    clients = [
        {"svcLocationName": "edge-1", "clientRole": "app.pub", "action": ["pub"]},
        {"svcLocationName": "central-1", "clientRole": "app.sub", "action": ["sub"]},
    ]
    return {"topicName": name, "topicDescription": "bench", "owner": "bench", "clients": clients}


def operations(base: str) -> list[tuple[str, Request, int]]:
    """(label, request, request cap per level): writes are capped so the tables stay small."""
    client = {
        "fqtn": f"{NS}.read-me",
        "svcLocationName": "edge-1",
        "clientRole": "app.pub",
        "action": ["pub"],
    }
    return [
        (
            "POST /topics (2 clients, bridge)",
            send_json("POST", f"{base}/topics", lambda _: topic_body(f"t{next(_unique)}")),
            3000,
        ),
        ("GET /topics/{fqtn}", get(f"{base}/topics/{NS}.read-me"), 100_000),
        ("POST /mr_clients", send_json("POST", f"{base}/mr_clients", lambda _: client), 3000),
        ("GET /mr_clusters/{id}", get(f"{base}/mr_clusters/edge-1"), 100_000),
        ("GET /bridge?detail=true", get(f"{base}/bridge?detail=true"), 100_000),
    ]


def feed_body() -> dict[str, object]:
    number = next(_unique)
    return {"feedName": f"f{number}", "feedVersion": "1", "owner": "bench", "asprClassification": "u"}


def main(seconds: float = 3.0) -> None:
    load_before = os.getloadavg()[0]
    results: list[LoadResult] = []
    # Both clusters are one router: a mirror agent there would copy each bridged topic from that
    # router into itself. The router reads its agents from another topic than the bus's
    # bridgeAdminTopic, so the bridges are INVALID at once, as they were before routers ran
    # agents by default (the bench measures the provisioning calls, not copying).
    with serve(
        ["bus", "distribution", "router"], {"NETPLATFORM_ROUTER_BRIDGE_ADMIN_TOPIC": "bench.no-agents"}
    ) as served:
        base = served.url("bus")
        prepare(base, served.url("distribution"), served.ports["router"])
        for label, request, cap in operations(base):
            for level in CONCURRENCY_LEVELS:
                results.append(asyncio.run(drive(label, request, level, seconds, max_requests=cap)))
        feeds = send_json("POST", f"{base}/feeds", lambda _: feed_body())
        for level in (1, 8):
            label = "POST /feeds (provisioned in distribution)"
            results.append(asyncio.run(drive(label, feeds, level, seconds, max_requests=500)))
    rows = "\n".join(result.row() for result in results)
    body = f"""
One `netplatform serve --only bus --only distribution --only router` process on SQLite (the
clusters' message router is the one served beside the bus, so topics and clients are provisioned
there over HTTP); load from the same machine
(aiohttp, keep-alive, loopback), {seconds:g} s per row (writes capped). Every message-router write
(topics, clients, clusters, sites, bridges) takes the bus lock (one row, `FOR UPDATE`), so writes are
serialised by design; a topic write also re-plans its bridges. A feed create is two HTTP calls to the
distribution service plus three short transactions. The machine is shared: its 1-minute load
average was {load_before:.1f} when the run started, so absolute figures are conservative.

{TABLE_HEADER}
{rows}

GETs are replayed while the bus tables are unchanged (web/replay.py), so they run near the
kernel's ceiling; writes are what this table measures. A topic or client write provisions the
router over HTTP under the provisioning lock: creating the topic on each client's router, its
grants and, with a bridge, the mirror agent's whitelist. Concurrent topic creations used to push
every topic the others had just created too (a pass reads all NEW topics, and nothing re-checked
under the lock), so 32 concurrent clients got 5 creations/s; a pass now skips a topic that is no
longer pending once it holds the lock. Still open: a client write recomputes its topic's
bridges and marks the topic NEW, and a NEW topic is pushed whole, every client's grants again,
so `POST /mr_clients` slows down as one topic gathers clients (here every client goes to the
same topic). Pushing only what changed needs the topic's own state told apart from its clients'.
"""
    write_fragment("bus", "Bus controller", body)
    write_results("bus", results)
    print(body)


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 3.0)
