"""Config tree: GET and PUT of one allotted resource with 10,000 of them stored.

Run by hand: ``.venv/bin/python bench/bench_configtree.py [seconds]``. Starts ``netplatform
serve --only configtree`` on a free port with a throwaway data dir (SQLite), stores 10,000
allotted resources (the reference's example entry, every subtree populated, under 10,000 ids),
then measures over loopback at 1, 8 and 32 clients:

* GET of one whole entry, a random one of the 10,000 each time;
* GET of a node deep inside an entry (a param of the topology, four levels down);
* PUT replacing one whole entry (204; the body is parsed, checked member by member against the
  YANG model, validated by yangson and written as that entry's one row);
* PUT of one nested container inside an entry (read the row FOR UPDATE, change, write back);
* POST of a new entry (201).

The 10,000 entries are seeded through the service's own repository in batches (10,000 HTTP
PUTs would measure the seeding rather than the reads and writes under load); one GET of the
whole tree is then timed once. Prints the figures, writes docs/performance/configtree.md and
bench/results/configtree.json.
"""

from __future__ import annotations

import asyncio
import copy
import json
import random
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import aiohttp
import httpx

from common import (
    AUTH,
    CONCURRENCY_LEVELS,
    TABLE_HEADER,
    LoadResult,
    Request,
    drive,
    serve,
    write_fragment,
    write_results,
)
from netplatform.configtree.repository import TreeRepository
from netplatform.settings import Settings
from netplatform.store.db import database_for

RESOURCES = 10_000
MODULE = "GENERIC-RESOURCE-API"
CONTAINER = f"{MODULE}:brg-allotted-resources"
ROOT = f"/config/{CONTAINER}/"
LIST = f"{ROOT}{MODULE}:brg-allotted-resource/"
PARAM = f"{MODULE}:allotted-resource-data/{MODULE}:brg-topology/{MODULE}:brg-parameters/{MODULE}:param/vlan/"
ASSIGNMENTS = f"{MODULE}:allotted-resource-data/{MODULE}:brg-topology/{MODULE}:brg-assignments/"

EXAMPLE: dict[str, Any] = {
    "allotted-resource-data": {
        "allotted-resource-operation-information": {
            "sdnc-request-header": {"svc-request-id": "req-71", "svc-action": "create"},
            "request-information": {
                "request-id": "ord-5512",
                "request-action": "CreateBRGInstance",
                "source": "portal",
            },
            "service-information": {
                "service-instance-id": "si-204",
                "platform-model-information": {"model-name": "brg-ar", "model-version": "2.0"},
            },
            "allotted-resource-information": {"allotted-resource-type": "brg"},
            "brg-request-input": {
                "vgmux-bearer-ip": "192.0.2.14",
                "vni": "3021",
                "brg-wan-mac-address": "02:42:ac:11:00:07",
            },
        },
        "brg-topology": {
            "allotted-resource-identifiers": {"allotted-resource-name": "brg-7"},
            "brg-assignments": {"vbrg-wan-ip": "198.51.100.40"},
            "brg-parameters": {
                "param": [
                    {
                        "name": "vlan",
                        "value": "110",
                        "resource-resolution-data": {
                            "resource-key": [{"name": "site", "value": "lab-2"}],
                            "status": "SUCCESS",
                        },
                    }
                ]
            },
        },
        "allotted-resource-oper-status": {
            "order-status": "PendingCreate",
            "last-action": "CreateBRGInstance",
        },
    },
    "allotted-resource-status": {"request-status": "synccomplete", "rpc-action": "create"},
}


def entry(resource_id: str) -> dict[str, Any]:
    value = {"allotted-resource-id": resource_id, **copy.deepcopy(EXAMPLE)}
    operation = value["allotted-resource-data"]["allotted-resource-operation-information"]
    operation["allotted-resource-information"]["allotted-resource-id"] = resource_id
    return value


def resource_id(n: int) -> str:
    return f"ar-{n:05d}"


def seed(data_dir: Path, count: int) -> float:
    """``count`` entries written as rows through the repository, 1,000 per transaction."""
    db = database_for(Settings(data_dir=data_dir))
    started = time.perf_counter()
    for first in range(0, count, 1000):
        with db.write() as session:
            rows = TreeRepository(session)
            rows.ensure_container(CONTAINER)
            for n in range(first, min(first + 1000, count)):
                rows.insert_entry(
                    CONTAINER, "brg-allotted-resource", (resource_id(n),), entry(resource_id(n))
                )
    return time.perf_counter() - started


def get(base: str, path_of: Any) -> Request:
    async def request(session: aiohttp.ClientSession, n: int) -> int:
        async with session.get(base + path_of(n)) as response:
            await response.read()
            return response.status

    return request


def send(method: str, base: str, path_of: Any, body_of: Any) -> Request:
    async def request(session: aiohttp.ClientSession, n: int) -> int:
        path = base + path_of(n)  # before the body: a body may depend on the path chosen
        data = json.dumps(body_of(n))
        headers = {"Content-Type": "application/yang-data+json"}
        async with session.request(method, path, data=data, headers=headers) as response:
            await response.read()
            return response.status

    return request


def random_entry_path(_n: int) -> str:
    return f"{LIST}{resource_id(random.randrange(RESOURCES))}/"


def replace_entry(base: str) -> Request:
    chosen: dict[int, str] = {}

    def path_of(n: int) -> str:
        chosen[n] = resource_id(random.randrange(RESOURCES))
        return f"{LIST}{chosen[n]}/"

    def body_of(n: int) -> dict[str, Any]:
        value = entry(chosen.pop(n))
        value["allotted-resource-status"]["response-code"] = str(n)
        return {f"{MODULE}:brg-allotted-resource": [value]}

    return send("PUT", base, path_of, body_of)


def operations(base: str) -> dict[str, Request]:
    return {
        "GET one entry": get(base, random_entry_path),
        "GET param inside an entry": get(base, lambda n: random_entry_path(n) + PARAM),
        "PUT one entry (replace)": replace_entry(base),
        "PUT nested container": send(
            "PUT",
            base,
            lambda n: random_entry_path(n) + ASSIGNMENTS,
            lambda n: {"brg-assignments": {"vbrg-wan-ip": f"10.{n % 250}.0.1"}},
        ),
        "POST new entry": send(
            "POST",
            base,
            lambda n: LIST,
            lambda n: {"brg-allotted-resource": [entry(f"new-{uuid.uuid4().hex}")]},
        ),
    }


async def measure(base: str, seconds: float) -> list[LoadResult]:
    results = []
    for label, request in operations(base).items():
        for concurrency in CONCURRENCY_LEVELS:
            results.append(await drive(label, request, concurrency, seconds, max_requests=20_000))
            print(results[-1].row(), flush=True)
    return results


def whole_tree(base: str) -> tuple[float, int, int]:
    """One GET of the whole tree: seconds, bytes, entries."""
    with httpx.Client(base_url=base, headers=AUTH, timeout=300) as client:
        started = time.perf_counter()
        response = client.get(ROOT)
        elapsed = time.perf_counter() - started
    response.raise_for_status()
    entries = len(response.json()[CONTAINER]["brg-allotted-resource"])
    return elapsed, len(response.content), entries


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
    with serve(["configtree"]) as served:
        base = served.url("configtree")
        seed_seconds = seed(served.data_dir, RESOURCES)
        tree_seconds, tree_bytes, tree_entries = whole_tree(base)
        print(f"seeded {RESOURCES} in {seed_seconds:.1f} s; whole tree GET {tree_seconds:.2f} s", flush=True)
        print(TABLE_HEADER)
        results = asyncio.run(measure(base, seconds))
    entry_bytes = len(json.dumps({f"{MODULE}:brg-allotted-resource": [entry(resource_id(0))]}))
    body = f"""
Figures from `bench/bench_configtree.py` ({seconds:.0f} s per row, loopback, SQLite, one
`netplatform serve --only configtree` process; the load generator runs on the same machine).

**{RESOURCES:,} allotted resources stored** (seeded through the repository in {seed_seconds:.1f} s),
each the reference's example entry: every container of the subtree populated, one param with a
resource-key in the topology, {entry_bytes:,} bytes of JSON. Each request picks one of the
{RESOURCES:,} at random. A GET reads one row; a PUT parses and checks the body against the YANG
model, validates the new entry with yangson and rewrites that one row (nested PUT: read the row
`FOR UPDATE`, change it, write it back); POST inserts a new row. No request touches another
entry, so the figures do not depend on how many are stored.

{TABLE_HEADER}
{chr(10).join(r.row() for r in results)}

One GET of the whole tree ({tree_entries:,} entries, {tree_bytes / 1e6:.1f} MB of JSON) took
{tree_seconds:.2f} s.
"""
    path = write_fragment("configtree", "Config tree", body)
    write_results("configtree", results)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
