"""Policy design: reads, creates, deletes and a mixed create/read/delete load.

Run by hand: ``.venv/bin/python bench/bench_policy.py [seconds]``. Starts ``netplatform serve
--only policy`` on a free port with a throwaway data dir (the preloaded catalog: 37 policy
types, 50 data types), drives load over loopback at 1, 5 (the reference's published figure
used 5 client threads), 8 and 32 clients, and writes docs/performance/policy.md and
bench/results/policy.json.
"""

from __future__ import annotations

import asyncio
import collections
import itertools
import os
import sys

import aiohttp
import httpx

from common import (
    AUTH,
    TABLE_HEADER,
    LoadResult,
    Request,
    drive,
    get,
    send,
    serve,
    write_fragment,
    write_results,
)

API = "/policy/api/v1"
LEVELS = (1, 5, 8, 32)
TYPE = "bench.policies.Load"
NAMING = "SDNC_Policy.PLATFORM_NF_NAMING_TIMESTAMP"
_unique = itertools.count(1)


def type_template(name: str) -> dict[str, object]:
    return {
        "tosca_definitions_version": "tosca_simple_yaml_1_1_0",
        "data_types": {"bench.datatypes.Limit": {"properties": {"max": {"type": "integer"}}}},
        "policy_types": {
            name: {
                "derived_from": "tosca.policies.Root",
                "version": "1.0.0",
                "properties": {
                    "limit": {"type": "bench.datatypes.Limit"},
                    "targets": {"type": "list", "entry_schema": {"type": "string"}},
                },
            }
        },
    }


def policy_template(name: str) -> dict[str, object]:
    policy = {"type": TYPE, "type_version": "1.0.0", "version": "1.0.0", "properties": {"limit": {"max": 3}}}
    return {"topology_template": {"policies": [{name: policy}]}}


def prepare(base: str) -> None:
    with httpx.Client(base_url=base, headers=AUTH, timeout=30) as client:
        client.post(f"{API}/policytypes", json=type_template(TYPE)).raise_for_status()
        client.post(f"{API}/policies", json=policy_template("bench.read")).raise_for_status()


def create_types(base: str) -> Request:
    async def request(session: aiohttp.ClientSession, _: int) -> int:
        template = type_template(f"bench.t{next(_unique)}")
        return await send(session, "POST", f"{base}{API}/policytypes", json=template)

    return request


def create_policies(base: str) -> Request:
    async def request(session: aiohttp.ClientSession, _: int) -> int:
        template = policy_template(f"bench.p{next(_unique)}")
        return await send(session, "POST", f"{base}{API}/policies", json=template)

    return request


def mixed(base: str) -> Request:
    """Per 10 requests: 3 creates, 2 deletes (of earlier creates), 5 reads of four kinds."""
    created: collections.deque[str] = collections.deque()

    async def request(session: aiohttp.ClientSession, sequence: int) -> int:
        step = sequence % 10
        if step in (0, 3, 6):
            name = f"bench.m{next(_unique)}"
            status = await send(session, "POST", f"{base}{API}/policies", json=policy_template(name))
            if status == 200:
                created.append(name)  # only once stored, so a delete never races its create
            return status
        if step in (4, 8) and created:
            name = created.popleft()
            return await send(session, "DELETE", f"{base}{API}/policies/{name}/versions/1.0.0")
        reads = (
            f"{API}/policytypes/{TYPE}/versions/latest",
            f"{API}/policies/bench.read/versions/1.0.0?mode=REFERENCED",
            f"{API}/policytypes/{TYPE}/versions/1.0.0/policies/bench.read",
            f"{API}/policytypes/platform.policies.monitoring.tcagen2",
        )
        return await send(session, "GET", base + reads[sequence % len(reads)])

    return request


def operations(base: str) -> list[tuple[str, Request, int]]:
    """(label, request, request cap per level): creates are capped so the store stays small."""
    return [
        ("GET /policytypes (all 38 types + 50 data types)", get(f"{base}{API}/policytypes"), 100_000),
        (
            "GET /policytypes/{id}/versions/latest",
            get(f"{base}{API}/policytypes/{TYPE}/versions/latest"),
            100_000,
        ),
        (
            "GET /policies/{id}/versions/{v}?mode=REFERENCED",
            get(f"{base}{API}/policies/{NAMING}/versions/1.0.0?mode=REFERENCED"),
            100_000,
        ),
        ("POST /policytypes (type + data type)", create_types(base), 2000),
        ("POST /policies", create_policies(base), 2000),
        ("mixed: 30% create, 20% delete, 50% read", mixed(base), 4000),
    ]


def main(seconds: float = 3.0) -> None:
    results: list[LoadResult] = []
    load_before = os.getloadavg()[0]
    with serve(["policy"]) as served:
        base = served.url("policy")
        prepare(base)
        for label, request, cap in operations(base):
            for level in LEVELS:
                results.append(asyncio.run(drive(label, request, level, seconds, max_requests=cap)))
    load_after = os.getloadavg()[0]
    rows = "\n".join(result.row() for result in results)
    body = f"""
One `netplatform serve --only policy` process on SQLite (the default store); load from the same
machine (aiohttp, keep-alive, loopback), {seconds:g} s per row (creates capped). Each entity is one
row keyed by (kind, name, version); a GET reads the selected rows plus the ancestors and data types
they need (one query per level), a create reads the rows of the names it carries, checks them and
inserts in one transaction (on SQLite, writers take the single write lock and an fsync in turn;
the service queues its writers on an in-process lock first, so the wait is a queue, not SQLite's
sleep-and-retry, but the create rows under many clients still show it). Statistics are
counted in memory and added to their rows every 200 ms. The listing answers all 38 stored policy
types with their 50 data types (about 60 KB of JSON).

The reference system publishes 3.67 requests/s at 1351 ms average latency with 5 client threads,
and 10 to 13 s for "get policy types"; compare the rows with 5 clients.

One-minute load average {load_before:.1f} before the run and {load_after:.1f} after it (the load
generator itself adds about 1-2); other work on the machine shows in the p99 column first.

{TABLE_HEADER}
{rows}
"""
    write_fragment("policy", "Policy design", body)
    write_results("policy", results)
    print(body)


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 3.0)
