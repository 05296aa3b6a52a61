"""The performance goals as one table: each hot path as a ratio to a bare Starlette app.

Every row is measured in the same run as the baseline (a bare Starlette app with one JSON
route, ``bench/bare_starlette.py``), with the same load driver at 32 connections, so the ratio
says how close a service comes to what Python and uvicorn allow on this machine. Rows marked
``--workers 2`` run the same process with two worker processes sharing each port.

Run by hand: ``.venv/bin/python bench/bench_goals.py``. Writes docs/performance/goals.md.
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import httpx

from common import (
    ROOT,
    LoadResult,
    Request,
    drive,
    free_port,
    get,
    send,
    serve,
    wait_for_port,
    write_fragment,
)

SECONDS = 5.0
CLIENTS = 32
AUTH = ("admin", "admin")
ON_BEHALF = {"X-BUS-DR-ON-BEHALF-OF": "bench"}
CONFIG_ROOT = "/config/GENERIC-RESOURCE-API:brg-allotted-resources/"


@contextmanager
def bare_app() -> Iterator[str]:
    port = free_port()
    process = subprocess.Popen([sys.executable, str(ROOT / "bench" / "bare_starlette.py"), str(port)])
    try:
        wait_for_port(port)
        yield f"http://127.0.0.1:{port}/"
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)


def measure(label: str, request: Request, clients: int = CLIENTS) -> LoadResult:
    return asyncio.run(drive(label, request, clients, SECONDS))


def seed(urls: dict[str, str]) -> dict[str, str]:
    """One object of each kind to read back; answers the URL of each hot GET."""
    with httpx.Client(auth=AUTH, timeout=30) as client:
        feed = client.post(
            urls["distribution"] + "/",
            headers={**ON_BEHALF, "Content-Type": "application/vnd.bus-dr.feed"},
            json={
                "name": "bench",
                "version": "1",
                "authorization": {"classification": "c", "endpoint_ids": [{"id": "p", "password": "pw"}]},
            },
        )
        feed.raise_for_status()
        entry = {"brg-allotted-resource": [{"allotted-resource-id": "ar-1"}]}
        client.put(
            urls["configtree"] + CONFIG_ROOT + "brg-allotted-resource/ar-1/", json=entry
        ).raise_for_status()
    return {
        "feed": feed.json()["links"]["self"],
        "config entry": urls["configtree"] + CONFIG_ROOT + "brg-allotted-resource/ar-1/",
        "policy type latest": urls["policy"]
        + "/policy/api/v1/policytypes/platform.policies.Naming/versions/latest",
        "policy type listing": urls["policy"] + "/policy/api/v1/policytypes",
        "blueprint list page": urls["blueprints"] + "/api/v1/blueprint-model/paged?limit=20&offset=0",
        "bus topic list": urls["bus"] + "/topics",
        "health (kernel only)": urls["policy"] + "/health",
    }


def create_delete(policy_url: str) -> Request:
    """POST a policy type, then DELETE it: two requests per call."""
    base = policy_url + "/policy/api/v1/policytypes"

    async def request(session, n):  # type: ignore[no-untyped-def]
        name = f"bench.policies.T{n}"
        body = {
            "tosca_definitions_version": "tosca_simple_yaml_1_1_0",
            "policy_types": {name: {"derived_from": "tosca.policies.Root", "version": "1.0.0"}},
        }
        status = await send(session, "POST", base, json=body)
        if status >= 400:
            return status
        return await send(session, "DELETE", f"{base}/{name}/versions/1.0.0")

    return request


def rows_for(workers: int) -> list[LoadResult]:
    services = ["blueprints", "distribution", "bus", "policy", "configtree"]
    suffix = "" if workers == 1 else f" (--workers {workers})"
    with serve(services, env={"NETPLATFORM_WORKERS": str(workers)}) as served:
        urls = {name: served.url(name) for name in services}
        targets = seed(urls)
        results = []
        for label, url in targets.items():
            headers = ON_BEHALF if label == "feed" else {}

            async def fetch(session, n, url=url, headers=headers):  # type: ignore[no-untyped-def]
                return await send(session, "GET", url, headers=headers)

            results.append(measure(label + suffix, fetch))
        results.append(measure("policy create+delete" + suffix, create_delete(urls["policy"]), clients=8))
        return results


def table(baseline: LoadResult, rows: list[LoadResult]) -> str:
    lines = [
        "| operation | clients | requests/s | ratio to bare app | p50 ms | p99 ms | errors |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for row in [baseline, *rows]:
        ratio = row.rps / baseline.rps if baseline.rps else 0.0
        lines.append(
            f"| {row.label} | {row.concurrency} | {row.rps:,.0f} | {ratio:.2f} | {row.p50_ms:.1f} | "
            f"{row.p99_ms:.1f} | {row.errors} |"
        )
    return "\n".join(lines)


def main() -> None:
    with bare_app() as url:
        baseline = measure("bare Starlette app, one JSON route", get(url))
    rows = rows_for(1) + rows_for(2)
    body = (
        f"Each row ran {SECONDS:.0f} s at the stated number of keep-alive connections from one aiohttp "
        "client process on the same machine; the ratio divides by the bare app measured in this run. "
        "`policy create+delete` counts one POST and one DELETE as one request pair.\n\n"
        + table(baseline, rows)
    )
    write_fragment("goals", "Goals: hot paths against the bare app", body)
    print(table(baseline, rows))


if __name__ == "__main__":
    main()
