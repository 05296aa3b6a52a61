"""The hot reads as users run the platform: `make run`, every service in one process, access log on.

`make run` is ``netplatform serve``: every service (and the console) in one process on one event
loop, the access log on. This benchmark starts exactly that on free ports and a throwaway data
dir, its log written to a file as a terminal or journal would take it, and drives the hot reads
at 32 keep-alive connections; then the same with the access log off; the bare Starlette app
(bench/bare_starlette.py) is measured in the same run. Each row reports requests/s, the ratio to
the bare app, p99, and the event-loop lag the process itself measured during the row (its
``event_loop_lag_seconds`` histogram on /metrics, before and after the row).

Run by hand, on a quiet machine (the figures are meaningless while other work shares the cores):
``.venv/bin/python bench/bench_platform.py [SECONDS] [--only SERVICE ...] [--postgres URL]``.
``--only policy`` runs that service alone (``netplatform serve --only policy``); ``--postgres``
serves from a throwaway database made on that PostgreSQL server (one per configuration,
dropped afterwards), e.g. ``--postgres postgresql://postgres@127.0.0.1:5432/postgres``. Writes
docs/performance/platform.md and bench/results/platform.json.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import httpx
from prometheus_client.parser import text_string_to_metric_families

from bench_goals import ON_BEHALF, seed
from common import (
    AUTH,
    LoadResult,
    Request,
    bare_app,
    drive,
    free_port,
    get,
    send,
    served_until_stopped,
    write_fragment,
    write_results,
)
from netplatform.settings import SERVED_NAMES

CLIENTS = 32
INFINITY = float("inf")
HOT_READS = (
    "policy type latest",
    "policy type listing",
    "blueprint list page",
    "bus topic list",
    "config entry",
    "feed",
    "policy healthcheck",
)
VARIANTS = {"make run (access log on)": "true", "access log off": "false"}


@dataclass(frozen=True)
class Platform:
    ports: dict[str, int]

    def url(self, service: str) -> str:
        return f"http://127.0.0.1:{self.ports[service]}"


@contextmanager
def platform(services: list[str], access_log: str, database_url: str | None) -> Iterator[Platform]:
    """``netplatform serve`` as `make run` starts it (or ``--only`` those services)."""
    data_dir = Path(tempfile.mkdtemp(prefix="netplatform-bench-"))
    ports = {name: free_port() for name in services}
    env = {
        **os.environ,
        "NETPLATFORM_DATA_DIR": str(data_dir),
        "NETPLATFORM_ACCESS_LOG": access_log,
        "NETPLATFORM_USERS": "admin:admin",
        **{f"NETPLATFORM_{name.upper()}_PORT": str(port) for name, port in ports.items()},
        **({"NETPLATFORM_DATABASE_URL": database_url} if database_url else {}),
    }
    only = [] if services == list(SERVED_NAMES) else [arg for name in services for arg in ("--only", name)]
    with open(data_dir / "serve.log", "wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "netplatform", "serve", *only], env=env, stdout=log, stderr=log
        )
        with served_until_stopped(process, ports.values(), data_dir):
            yield Platform(ports)


def lag_buckets(metrics_url: str) -> dict[float, float]:
    """The cumulative ``event_loop_lag_seconds`` buckets of the process, by upper bound."""
    text = httpx.get(metrics_url, headers=AUTH, timeout=30).text
    return {
        float(sample.labels["le"]): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == "event_loop_lag_seconds_bucket"
    }


def longest_lag(before: dict[float, float], after: dict[float, float]) -> float:
    """An upper bound of the longest lag sampled between two reads (0: no sample): the lowest
    bucket bound that gained every new sample (the buckets are cumulative)."""
    new = after.get(INFINITY, 0.0) - before.get(INFINITY, 0.0)
    if new <= 0:
        return 0.0
    return min(bound for bound, count in after.items() if count - before.get(bound, 0.0) >= new)


@dataclass(frozen=True)
class Row:
    variant: str
    result: LoadResult
    lag_s: float


@contextmanager
def database(postgres: str | None) -> Iterator[str | None]:
    """None (SQLite in the data dir), or a throwaway database on the ``--postgres`` server."""
    if postgres is None:
        yield None
        return
    os.environ["NETPLATFORM_BENCH_DATABASE_URL"] = postgres
    from bench_execution import throwaway_postgres

    with throwaway_postgres() as url:
        if url is None:
            raise SystemExit(f"PostgreSQL at {postgres} does not answer")
        yield url


def measure_variant(
    variant: str, access_log: str, services: list[str], seconds: float, postgres: str | None
) -> list[Row]:
    rows = []
    with database(postgres) as database_url, platform(services, access_log, database_url) as served:
        targets = seed({name: served.url(name) for name in services})
        if "policy" in services:
            targets["policy healthcheck"] = served.url("policy") + "/policy/api/v1/healthcheck"
        metrics = served.url(services[0]) + "/metrics"
        for label in HOT_READS:
            if label not in targets:
                continue
            before = lag_buckets(metrics)
            result = asyncio.run(drive(label, read(label, targets[label]), CLIENTS, seconds))
            rows.append(Row(variant, result, longest_lag(before, lag_buckets(metrics))))
    return rows


def read(label: str, url: str) -> Request:
    """A GET of ``url``; a feed is read on behalf of its publisher, as bench_goals.py reads it."""
    headers = ON_BEHALF if label == "feed" else {}

    async def request(session: aiohttp.ClientSession, n: int) -> int:
        return await send(session, "GET", url, headers=headers)

    return request


def busy(load_average: float) -> bool:
    """Other work shared the cores: more than one runnable task per core on average (the
    benchmark itself, starting, is part of the figure)."""
    return load_average > (os.cpu_count() or 1)


def table(bare: LoadResult, rows: list[Row]) -> str:
    lines = [
        "| configuration | read (32 connections) | requests/s | ratio to bare | p99 ms "
        "| longest loop lag | errors |",
        "|---|---|---:|---:|---:|---:|---:|",
        f"| bare Starlette app | one JSON route | {bare.rps:,.0f} | 1.00 | {bare.p99_ms:.1f} | "
        f"| {bare.errors} |",
    ]
    for row in rows:
        r = row.result
        lag = f"≤ {row.lag_s * 1000:g} ms" if row.lag_s != INFINITY else "> 5 s"
        lines.append(
            f"| {row.variant} | {r.label} | {r.rps:,.0f} | {r.rps / bare.rps:.2f} | {r.p99_ms:.1f} | "
            f"{lag} | {r.errors} |"
        )
    return "\n".join(lines)


def main(seconds: float, only: list[str], postgres: str | None) -> None:
    services = only or list(SERVED_NAMES)
    load = os.getloadavg()
    with bare_app() as url:
        bare = asyncio.run(drive("bare Starlette app, one JSON route", get(url), CLIENTS, seconds))
    rows = [
        row
        for variant, access_log in VARIANTS.items()
        for row in measure_variant(variant, access_log, services, seconds, postgres)
    ]
    served = "every service in one process" if not only else f"`--only {' --only '.join(only)}`"
    body = f"""
`bench/bench_platform.py` starts the platform as `make run` does ({served},
{"PostgreSQL" if postgres else "SQLite"}, the log written to a file), seeds one object per
service, then drives each hot read for {seconds:g} s at {CLIENTS} keep-alive connections from
an aiohttp client on the same machine; then again with the access log off. The bare Starlette
app is measured in the same run. "Longest loop lag" is the process's own figure: the lowest
`event_loop_lag_seconds` bucket bound that took every sample of the row (the probe wakes
every 50 ms; see docs/operations.md).

These figures must be taken on a quiet machine: client and server share the cores, and any
other load shows up as lag and as a lower ratio. The run below was taken with a load average of
{load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f} (1 / 5 / 15 min), {seconds:g} s per row
{"(a check that the benchmark works, not a measurement)" if busy(load[0]) or seconds < 5 else ""}.

{table(bare, rows)}
"""
    write_fragment("platform", "As users run it", body)
    # The plot tells the variants apart by label: the same read is measured in each.
    labelled = [dataclasses.replace(row.result, label=f"{row.variant}: {row.result.label}") for row in rows]
    write_results("platform", [bare, *labelled])
    print(body)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("seconds", nargs="?", type=float, default=5.0, help="seconds per row")
    parser.add_argument("--only", action="append", default=[], help="serve only this service (repeatable)")
    parser.add_argument(
        "--postgres", metavar="URL", help="serve from a throwaway database on this PostgreSQL server"
    )
    args = parser.parse_args()
    main(args.seconds, args.only, args.postgres)
