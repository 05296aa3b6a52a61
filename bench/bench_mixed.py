"""Mixed workload against the platform as ``make run`` starts it: many objects, a few writes.

Real traffic is not one URL read ten thousand times. Starts every service in one process with
the access log on and written to a file (``make run``'s configuration, throwaway data dir; the
same start as bench_platform.py), seeds ``--objects`` objects
per service (feeds, config entries, policy type versions, bus topics), then, per service, 32
keep-alive clients each send requests back to back for ``seconds``: a GET of an object picked at
random, or, one time in twenty, a write to one (feed and topic description PUT, config entry PUT,
a new policy type version POST). A last row reads one object with a distinct query string every
time (an answer no replay serves). The bare Starlette app is measured in the same run. "Replayed"
is the share of the row's GETs answered by replay (the service's ``answer_replays_total``: hits
over hits, misses and stale answers).

Run by hand: ``.venv/bin/python bench/bench_mixed.py [seconds] [--objects N] [--postgres URL]``;
``--postgres`` serves from a throwaway database on that PostgreSQL server (dropped afterwards)
instead of SQLite. Writes docs/performance/mixed.md and
bench/results/mixed.json (``mixed-postgres``: their own fragment and results).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
from collections.abc import Callable

import aiohttp
import httpx

from common import (
    AUTH,
    LoadResult,
    Request,
    bare_app,
    database,
    drive,
    send,
    serve_platform,
    tree_cpu_s,
    variant_name,
    variant_title,
    write_fragment,
    write_results,
)
from netplatform.settings import SERVED_NAMES

CLIENTS = 32
WRITE_SHARE = 0.05
ON_BEHALF = {"X-BUS-DR-ON-BEHALF-OF": "bench"}
FEED_TYPE = "application/vnd.bus-dr.feed"
CONFIG_LIST = "/config/GENERIC-RESOURCE-API:brg-allotted-resources/brg-allotted-resource/"
POLICY_TYPES = "/policy/api/v1/policytypes"
NS = "org.example.bus.lab1"


def mixed(
    objects: int, read_url: Callable[[int], str], write: Request, headers: dict[str, str] | None = None
) -> Request:
    async def request(session: aiohttp.ClientSession, n: int) -> int:
        if random.random() < WRITE_SHARE:
            return await write(session, n)
        return await send(session, "GET", read_url(random.randrange(objects)), headers=headers or {})

    return request


def feed_body(n: int, description: str = "bench") -> dict[str, object]:
    return {
        "name": f"feed-{n}",
        "version": "1",
        "description": description,
        "authorization": {"classification": "c", "endpoint_ids": [{"id": "p", "password": "pw"}]},
    }


def seed_feeds(client: httpx.Client, base: str, objects: int) -> list[str]:
    headers = {**ON_BEHALF, "Content-Type": FEED_TYPE}
    urls = []
    for n in range(objects):
        answer = client.post(base + "/", headers=headers, json=feed_body(n))
        answer.raise_for_status()
        urls.append(answer.json()["links"]["self"])
    return urls


def feeds(client: httpx.Client, base: str, objects: int) -> Request:
    urls = seed_feeds(client, base, objects)

    async def write(session: aiohttp.ClientSession, n: int) -> int:
        chosen = random.randrange(objects)
        headers = {**ON_BEHALF, "Content-Type": FEED_TYPE}
        return await send(session, "PUT", urls[chosen], json=feed_body(chosen, f"d{n}"), headers=headers)

    return mixed(objects, lambda i: urls[i], write, ON_BEHALF)


def config_entry(n: int, code: str = "200") -> dict[str, object]:
    status = {"request-status": "synccomplete", "response-code": code}
    entry = {"allotted-resource-id": f"ar-{n}", "allotted-resource-status": status}
    return {"brg-allotted-resource": [entry]}


def config_entries(client: httpx.Client, base: str, objects: int) -> Request:
    for n in range(objects):
        client.put(f"{base}{CONFIG_LIST}ar-{n}/", json=config_entry(n)).raise_for_status()

    async def write(session: aiohttp.ClientSession, n: int) -> int:
        chosen = random.randrange(objects)
        return await send(
            session, "PUT", f"{base}{CONFIG_LIST}ar-{chosen}/", json=config_entry(chosen, f"s{n}")
        )

    return mixed(objects, lambda i: f"{base}{CONFIG_LIST}ar-{i}/", write)


def policy_type(name: str, version: str) -> dict[str, object]:
    return {
        "tosca_definitions_version": "tosca_simple_yaml_1_1_0",
        "policy_types": {name: {"derived_from": "tosca.policies.Root", "version": version}},
    }


def policy_types(client: httpx.Client, base: str, objects: int) -> Request:
    for n in range(objects):
        client.post(base + POLICY_TYPES, json=policy_type(f"bench.policies.T{n}", "1.0.0")).raise_for_status()
    versions = [1] * objects

    async def write(session: aiohttp.ClientSession, _n: int) -> int:
        chosen = random.randrange(objects)
        versions[chosen] += 1
        body = policy_type(f"bench.policies.T{chosen}", f"{versions[chosen]}.0.0")
        return await send(session, "POST", base + POLICY_TYPES, json=body)

    return mixed(objects, lambda i: f"{base}{POLICY_TYPES}/bench.policies.T{i}/versions/1.0.0", write)


def topic(n: int, description: str = "bench") -> dict[str, object]:
    return {"topicName": f"t{n}", "topicDescription": description, "owner": "bench"}


def bus_topics(client: httpx.Client, base: str, distribution: str, objects: int) -> Request:
    settings = {
        "busName": "lab1",
        "topicNsRoot": "org.example.bus",
        "drProvUrl": distribution,
        "bridgeAdminTopic": "a",
    }
    client.put(base + "/bus", json=settings).raise_for_status()
    for n in range(objects):
        client.post(base + "/topics", json=topic(n)).raise_for_status()

    async def write(session: aiohttp.ClientSession, n: int) -> int:
        chosen = random.randrange(objects)
        return await send(session, "PUT", f"{base}/topics/{NS}.t{chosen}", json=topic(chosen, f"d{n}"))

    return mixed(objects, lambda i: f"{base}/topics/{NS}.t{i}", write)


def unreplayed(url: str) -> Request:
    async def request(session: aiohttp.ClientSession, n: int) -> int:
        return await send(session, "GET", f"{url}?n={n}")

    return request


REPLAY_SERIES = re.compile(r'^answer_replays_total\{[^}]*result="(hit|miss|stale)"[^}]*\} ([0-9.e+]+)$', re.M)


def replay_counts(url: str) -> dict[str, float]:
    """The service's replay counters (hit, miss, stale) from its /metrics."""
    text = httpx.get(url + "/metrics", headers=AUTH, timeout=30).text
    return {result: float(value) for result, value in REPLAY_SERIES.findall(text)}


def replayed_share(before: dict[str, float], after: dict[str, float]) -> float:
    moved = {result: after.get(result, 0.0) - before.get(result, 0.0) for result in ("hit", "miss", "stale")}
    total = sum(moved.values())
    return moved["hit"] / total if total else 0.0


def measure(label: str, request: Request, seconds: float, pid: int | None) -> tuple[LoadResult, float]:
    before = tree_cpu_s(pid) if pid else 0.0
    result = asyncio.run(drive(label, request, CLIENTS, seconds))
    cpu_ms = (tree_cpu_s(pid) - before) / max(result.requests, 1) * 1000 if pid else 0.0
    return result, cpu_ms


def workloads(urls: dict[str, str], objects: int) -> list[tuple[str, Request, str]]:
    """(label, request, the URL of the service it loads) per row."""
    with httpx.Client(headers=AUTH, timeout=60) as client:
        rows = [
            (
                "feeds (GET, 5 % PUT description)",
                feeds(client, urls["distribution"], objects),
                urls["distribution"],
            ),
            (
                "config entries (GET, 5 % PUT entry)",
                config_entries(client, urls["configtree"], objects),
                urls["configtree"],
            ),
            (
                "policy types (GET a version, 5 % POST a new version)",
                policy_types(client, urls["policy"], objects),
                urls["policy"],
            ),
            (
                "bus topics (GET, 5 % PUT description)",
                bus_topics(client, urls["bus"], urls["distribution"], objects),
                urls["bus"],
            ),
        ]
    first_type = f"{urls['policy']}{POLICY_TYPES}/bench.policies.T0/versions/1.0.0"
    rows.append(
        ("a read no replay serves (policy type, distinct query)", unreplayed(first_type), urls["policy"])
    )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("seconds", nargs="?", type=float, default=5.0)
    parser.add_argument("--objects", type=int, default=1000)
    parser.add_argument(
        "--postgres", metavar="URL", help="serve from a throwaway database on this PostgreSQL server"
    )
    options = parser.parse_args()
    load_before = os.getloadavg()[0]
    with bare_app() as bare_url:
        baseline, _ = measure("bare app", lambda s, n: send(s, "GET", bare_url), options.seconds, None)
    print(baseline.row(), flush=True)
    results = [baseline]
    columns = "requests/s | ratio to the bare app | p50 ms | p99 ms | CPU a request | replayed | errors"
    table = [f"| workload | {columns} |"]
    table.append("|---|---:|---:|---:|---:|---:|---:|---:|")
    with (
        database(options.postgres) as database_url,
        serve_platform(list(SERVED_NAMES), "true", database_url) as served,
    ):
        urls = {name: served.url(name) for name in SERVED_NAMES}
        for label, request, service_url in workloads(urls, options.objects):
            before = replay_counts(service_url)
            result, cpu_ms = measure(label, request, options.seconds, served.pid)
            share = replayed_share(before, replay_counts(service_url))
            results.append(result)
            ratio = result.rps / baseline.rps if baseline.rps else 0.0
            table.append(
                f"| {label} | {result.rps:,.0f} | {ratio:.2f} | {result.p50_ms:.1f} | "
                f"{result.p99_ms:.1f} | {cpu_ms:.2f} ms | {share:.0%} | {result.errors_text()} |"
            )
            print(table[-1], flush=True)
    body = (
        f"`make run`'s configuration (every service in one process, access log on, "
        f"{'PostgreSQL' if options.postgres else 'SQLite'}), {options.objects} "
        f"objects per service, {CLIENTS} clients, {options.seconds:.0f} s per row; 5 % of the requests "
        f"are writes to a random object. Bare app: {baseline.rps:,.0f} requests/s. Load average before "
        f"the run: {load_before:.1f} (other work on the machine lowers every figure).\n\n" + "\n".join(table)
    )
    name = variant_name("mixed", options.postgres)
    write_fragment(name, variant_title("Mixed workload (make run's configuration)", options.postgres), body)
    write_results(name, results)


if __name__ == "__main__":
    main()
