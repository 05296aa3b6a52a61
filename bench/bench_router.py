"""Message router throughput on the embedded engine: publish (single messages, batches of 100), drain.

Issue 14's goals on this machine: a batched publish sustains >= 20,000 messages/s, a consumer
drains >= 20,000 messages/s, single-message publishes >= 2,000/s (these need group commit:
concurrent publishes share one transaction and one fsync). One `netplatform serve --only
router` process on SQLite (or NETPLATFORM_DATABASE_URL), load from this process over loopback.

Run by hand: ``.venv/bin/python bench/bench_router.py [seconds]``. Prints its table (figures
for docs/performance.md are gathered from it by hand).
"""

from __future__ import annotations

import asyncio
import sys
import time

import aiohttp
import httpx

from common import AUTH, TABLE_HEADER, LoadResult, drive, send, serve

CLIENTS = 32
BATCH = 100
DRAIN_LIMIT = 1000


def create_topic(base: str, name: str) -> None:
    with httpx.Client(auth=("admin", "admin"), timeout=30) as client:
        response = client.post(f"{base}/topics/create", json={"topicName": name})
        response.raise_for_status()


def publish_single(url: str) -> LoadResult:
    async def request(session: aiohttp.ClientSession, n: int) -> int:
        return await send(session, "POST", url, json={"n": n})

    return asyncio.run(drive("POST /events (1 message)", request, CLIENTS, SECONDS))


def publish_batches(url: str) -> LoadResult:
    async def request(session: aiohttp.ClientSession, n: int) -> int:
        return await send(session, "POST", url, json=[{"n": n, "i": i} for i in range(BATCH)])

    return asyncio.run(drive(f"POST /events ({BATCH} messages)", request, CLIENTS // 4, SECONDS))


async def drain(url: str) -> tuple[int, float]:
    """One consumer fetching ``DRAIN_LIMIT`` at a time until the group has nothing left."""
    received, started = 0, time.perf_counter()
    async with aiohttp.ClientSession(headers=AUTH) as session:
        while True:
            async with session.get(url, params={"timeout": "0", "limit": str(DRAIN_LIMIT)}) as response:
                batch = await response.json()
            if not batch:
                return received, time.perf_counter() - started
            received += len(batch)


def main() -> None:
    with serve(["router"]) as served:
        base = served.url("router")
        create_topic(base, "bench.single")
        create_topic(base, "bench.batch")
        single = publish_single(f"{base}/events/bench.single")
        batches = publish_batches(f"{base}/events/bench.batch")
        drained, seconds = asyncio.run(drain(f"{base}/events/bench.batch/drain/c1"))
    rows = [
        (single.label, single.concurrency, single.rps, single),
        (batches.label, batches.concurrency, batches.rps * BATCH, batches),
    ]
    print(f"\nembedded engine, {SECONDS:g} s per publish row\n")
    print("| operation | clients | messages/s | p50 ms | p99 ms | errors |\n|---|---:|---:|---:|---:|---:|")
    for label, clients, rate, result in rows:
        latency = f"{result.p50_ms:.1f} | {result.p99_ms:.1f}"
        print(f"| {label} | {clients} | {rate:,.0f} | {latency} | {result.errors} |")
    label = f"GET /events (drain, limit {DRAIN_LIMIT})"
    print(f"| {label} | 1 | {drained / seconds:,.0f} | | | {drained} messages |")
    print(f"\n(house table for reference)\n{TABLE_HEADER}\n{single.row()}\n{batches.row()}")


SECONDS = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0

if __name__ == "__main__":
    main()
