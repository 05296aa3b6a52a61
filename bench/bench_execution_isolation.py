"""Runs cannot starve the platform: other services' reads while 100 sync runs of an ``sdnc`` CBA
run at once in the same process.

Run by hand: ``.venv/bin/python bench/bench_execution_isolation.py [seconds]``. Starts one
``netplatform serve --only blueprints --only configtree --only policy --only authz`` process (one
event loop and one set of shared threads for all four; a throwaway data dir, SQLite, or the
database of ``--postgres URL``), stores a config tree entry and a CBA whose ``assign`` workflow
resolves ``vlan`` from it through the ``sdnc`` source (a GET on the same process's config tree,
made as the run's caller), then:

1. idle: ``wrk`` (4 connections, ``--latency``, 30 s timeout) reads, one after another for
   ``seconds`` each, a config tree entry, the authz identities and policy's health check;
2. under load: 100 clients (aiohttp, each a keep-alive connection) send the sync run back to
   back for the whole measurement while ``wrk`` reads the same three again.

Every run must be answered 200 (or 503 with Retry-After, when the execution's queue is full):
anything else is counted as an error. Goal (issue 37): the reads' p99 under 50 ms while the runs
go on. ``--against DIR`` measures an older source tree too (rows labelled ``(before)``). Needs
``wrk`` (Debian: ``apt-get install wrk``).

Prints the figures, writes docs/performance/execution_isolation.md and
bench/results/execution_isolation.json.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import shutil
import subprocess
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import httpx

from common import AUTH, LoadResult, cba_archive, percentile, serve, write_fragment, write_results

NAME = "bench-isolation"
PROCESS = "/api/v1/execution-service/process"
SERVICES = ["blueprints", "configtree", "policy", "authz"]
RUNS = 100
WRK_CONNECTIONS = 4
AR = "/config/GENERIC-RESOURCE-API:brg-allotted-resources/GENERIC-RESOURCE-API:brg-allotted-resource"
ENTRY_PATH = f"{AR}/ar-7/"
READS = [
    ("config tree entry", "configtree", ENTRY_PATH),
    ("authz identities", "authz", "/authn/cred"),
    ("policy health check", "policy", "/policy/api/v1/healthcheck"),
]
ENTRY = {
    "GENERIC-RESOURCE-API:brg-allotted-resource": [
        {
            "allotted-resource-id": "ar-7",
            "allotted-resource-data": {
                "brg-topology": {"brg-parameters": {"param": [{"name": "vlan", "value": "110"}]}}
            },
        }
    ]
}
URL_PATH = (
    "/restconf" + AR + "/$ar-id/GENERIC-RESOURCE-API:allotted-resource-data/GENERIC-RESOURCE-API:brg-topology"
    "/GENERIC-RESOURCE-API:brg-parameters/GENERIC-RESOURCE-API:param/vlan/"
)


def sdnc_cba() -> bytes:
    """``assign``: ``ar-id`` from the request, ``vlan`` read from the config tree (sdnc)."""
    mapping = [
        {
            "name": "ar-id",
            "input-param": True,
            "property": {"type": "string", "required": True},
            "dictionary-name": "ar-id",
            "dictionary-source": "input",
            "dependencies": [],
        },
        {
            "name": "vlan",
            "input-param": False,
            "property": {"type": "integer", "required": True},
            "dictionary-name": "vlan",
            "dictionary-source": "sdnc",
            "dependencies": ["ar-id"],
        },
    ]
    definitions = {
        "vlan": {
            "name": "vlan",
            "property": {"type": "integer", "description": "vlan"},
            "sources": {
                "sdnc": {
                    "type": "source-rest",
                    "properties": {
                        "verb": "GET",
                        "url-path": URL_PATH,
                        "path": "/GENERIC-RESOURCE-API:param/0",
                        "input-key-mapping": {"ar-id": "ar-id"},
                        "output-key-mapping": {"vlan": "value"},
                    },
                }
            },
        }
    }
    node = {
        "type": "component-resource-resolution",
        "interfaces": {
            "ResourceResolutionComponent": {
                "operations": {"process": {"inputs": {"artifact-prefix-names": ["net"]}}}
            }
        },
        "artifacts": {
            "net-mapping": {"type": "artifact-mapping-resource", "file": "Templates/net-mapping.json"},
            "net-template": {"type": "artifact-template-velocity", "file": "Templates/net-template.vtl"},
        },
    }
    topology = {
        "workflows": {
            "assign": {
                "steps": {"s": {"target": "n"}},
                "outputs": {
                    "params": {"type": "json", "value": {"get_attribute": ["n", "assignment-params"]}}
                },
            }
        },
        "node_templates": {"n": node},
    }
    files = {
        "Definitions/resources_definition_types.json": definitions,
        "Templates/net-mapping.json": mapping,
        "Templates/net-template.vtl": "vlan $vlan\n",
    }
    return cba_archive(NAME, topology, files)


def run_body() -> dict[str, Any]:
    return {
        "commonHeader": {"originatorId": "bench", "requestId": uuid.uuid4().hex, "subRequestId": "1"},
        "actionIdentifiers": {
            "blueprintName": NAME,
            "blueprintVersion": "1.0.0",
            "actionName": "assign",
            "mode": "sync",
        },
        "payload": {"assign-request": {"assign-properties": {"ar-id": "ar-7"}}},
    }


def prepare(urls: dict[str, str]) -> None:
    with httpx.Client(headers=AUTH, timeout=60) as client:
        client.put(urls["configtree"] + ENTRY_PATH, json=ENTRY).raise_for_status()
        models = urls["blueprints"] + "/api/v1/blueprint-model"
        saved = client.post(models, files={"file": ("cba.zip", sdnc_cba())})
        saved.raise_for_status()
        answer = client.post(urls["blueprints"] + PROCESS, json=run_body())
        answer.raise_for_status()
        assert answer.json()["payload"]["assign-response"]["params"] == {"net": "vlan 110\n"}, answer.text


# --- the reads: wrk -------------------------------------------------------------------------


_UNITS_MS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0}


def _ms(text: str) -> float:
    found = re.fullmatch(r"([0-9.]+)(us|ms|s|m)", text)
    if found is None:
        raise ValueError(f"not a wrk duration: {text!r}")
    return float(found.group(1)) * _UNITS_MS[found.group(2)]


def wrk(label: str, url: str, seconds: float) -> LoadResult:
    """``wrk --latency`` on ``url``: its p50 and p99, requests, and errors (non-2xx and socket)."""
    command = [
        "wrk",
        "-t1",
        f"-c{WRK_CONNECTIONS}",
        f"-d{max(1, round(seconds))}s",
        "--timeout",
        "30s",
        "--latency",
        "-H",
        f"Authorization: {AUTH['Authorization']}",
        url,
    ]
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    latency = dict(re.findall(r"^\s+(50|99)%\s+(\S+)$", output, re.M))
    total = re.search(r"^\s+(\d+) requests in ([0-9.]+)(\w+)", output, re.M)
    assert total and "50" in latency and "99" in latency, output
    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    sockets = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output)
    errors = (int(non_2xx.group(1)) if non_2xx else 0) + (sum(map(int, sockets.groups())) if sockets else 0)
    elapsed = _ms(total.group(2) + total.group(3)) / 1000
    p50, p99 = _ms(latency["50"]), _ms(latency["99"])
    return LoadResult(label, WRK_CONNECTIONS, int(total.group(1)), errors, elapsed, p50, p99)


def read_row(result: LoadResult, seconds: float) -> str:
    """A wrk row; one that got no answer within its time says so rather than showing 0 ms."""
    if result.requests:
        return result.row()
    return (
        f"| {result.label} | {result.concurrency} | 0 | - | > {seconds * 1000:,.0f} | 0 | "
        f"{result.concurrency} unanswered |"
    )


# --- the runs: 100 clients ------------------------------------------------------------------


@dataclass
class Runs:
    statuses: Counter[int] = field(default_factory=Counter)
    latencies: list[float] = field(default_factory=list)
    seconds: float = 0.0

    def row(self, label: str) -> str:
        self.latencies.sort()
        answered = self.statuses[200] + self.statuses[503]
        other = sum(self.statuses.values()) - answered
        p50, p99 = (percentile(self.latencies, pct) * 1000 for pct in (50, 99))
        return (
            f"| {label} | {RUNS} | {answered / self.seconds:,.0f} | {p50:.0f} | {p99:.0f} | "
            f"{self.statuses[200]} | {self.statuses[503]} | {other} |"
        )


async def _runs(url: str, seconds: float, found: Runs) -> None:
    deadline = time.perf_counter() + seconds
    connector = aiohttp.TCPConnector(limit=RUNS)
    timeout = aiohttp.ClientTimeout(total=120)

    async def client(session: aiohttp.ClientSession) -> None:
        while time.perf_counter() < deadline:
            started = time.perf_counter()
            try:
                async with session.post(url, json=run_body()) as answer:
                    await answer.read()
                    status = answer.status
                    if status == 503:
                        assert answer.headers.get("Retry-After"), "a 503 without Retry-After"
            except (aiohttp.ClientError, TimeoutError):
                status = -1
            found.latencies.append(time.perf_counter() - started)
            found.statuses[status] += 1

    async with aiohttp.ClientSession(connector=connector, headers=AUTH, timeout=timeout) as session:
        started = time.perf_counter()
        await asyncio.gather(*(client(session) for _ in range(RUNS)))
        found.seconds = time.perf_counter() - started


def measure(tag: str, env: dict[str, str], seconds: float) -> tuple[list[LoadResult], Runs]:
    rows: list[LoadResult] = []
    runs = Runs()
    with serve(SERVICES, env) as served:
        urls = {service: served.url(service) for service in SERVICES}
        prepare(urls)
        for label, service, path in READS:
            rows.append(wrk(f"{label}, idle{tag}", urls[service] + path, seconds))
            print(read_row(rows[-1], seconds), flush=True)
        load = threading.Thread(
            target=lambda: asyncio.run(_runs(urls["blueprints"] + PROCESS, seconds * len(READS) + 3, runs))
        )
        load.start()
        time.sleep(2)  # the 100 clients connected and the queue filled before the reads begin
        for label, service, path in READS:
            rows.append(wrk(f"{label}, during {RUNS} runs{tag}", urls[service] + path, seconds))
            print(read_row(rows[-1], seconds), flush=True)
        load.join()
    print(runs.row(f"runs{tag}"), flush=True)
    return rows, runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("seconds", nargs="?", type=float, default=10.0, help="seconds per read row")
    parser.add_argument("--postgres", help="a PostgreSQL database URL to run on instead of SQLite")
    parser.add_argument("--against", type=Path, help="an older source tree measured too, labelled (before)")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is not installed (Debian: apt-get install wrk)")
    env = {"NETPLATFORM_DATABASE_URL": args.postgres} if args.postgres else {}
    rows, runs = measure("", env, args.seconds)
    run_rows = [runs.row("runs")]
    if args.against is not None:
        older = {**env, "PYTHONPATH": str(args.against)}
        before_rows, before_runs = measure(" (before)", older, args.seconds)
        rows += before_rows
        run_rows.append(before_runs.row("runs (before)"))
    store = "PostgreSQL" if args.postgres else "SQLite"
    body = f"""
Figures from `bench/bench_execution_isolation.py` ({args.seconds:.0f} s per read row, {store}, loopback,
one `netplatform serve --only blueprints --only configtree --only policy --only authz` process:
one event loop and one set of shared worker threads for the four). {RUNS} clients send sync runs
of an `sdnc` CBA back to back (each reads a config tree entry of the same process as the run's
caller, then renders one line; the execution settings at their defaults) while `wrk`
({WRK_CONNECTIONS} connections, one thread) reads other services, one after another; the same
reads idle first. Rows labelled `(before)` ran the source tree given to `--against`. Goal (issue
37): the reads' p99 under 50 ms while the runs go on, every run answered 200 or 503.

| read | connections | requests/s | p50 ms | p99 ms | requests | errors |
|---|---:|---:|---:|---:|---:|---:|
{chr(10).join(read_row(row, args.seconds) for row in rows)}

The runs, over the whole measurement (a 503 carries Retry-After; `other` counts any other answer
and connections that got none):

| | clients | answered/s | p50 ms | p99 ms | 200 | 503 | other |
|---|---:|---:|---:|---:|---:|---:|---:|
{chr(10).join(run_rows)}
"""
    path = write_fragment("execution_isolation", "Blueprint execution beside the platform", body)
    write_results("execution_isolation", rows)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
