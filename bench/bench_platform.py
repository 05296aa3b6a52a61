"""The hot reads and the writes as users run the platform: `make run`, every service in one process.

`make run` is ``netplatform serve``: every service (and the console) in one process on one event
loop, the access log on. This benchmark starts exactly that on free ports and a throwaway data
dir, its log written to a file as a terminal or journal would take it, and drives the hot reads
at 32 keep-alive connections; then the same with the access log off; the bare Starlette app
(bench/bare_starlette.py) is measured in the same run. Each row reports requests/s, the ratio to
the bare app, p99, and the event-loop lag the process itself measured during the row (its
``event_loop_lag_seconds`` histogram on /metrics, before and after the row).

After the reads, the same `make run` process (access log on) takes the writes of issue 26's
table, in a second table with each goal beside it:

* policy create+delete at 8 clients (bench_goals.create_delete: POST a policy type, DELETE it;
  both counted), for SECONDS;
* FILES files of 1 KiB published by 8 threads to a feed whose subscription delivers to a local
  HTTPS subscriber (trustme certificates; the platform is given their CA with
  ``NETPLATFORM_DELIVERY_CA_BUNDLE``), publish → delivered files/s and the publish p50
  (bench_distribution.small_files);
* one LARGE_MIB file: the publish leg (until the 204) and publish → delivered, each as a ratio to
  a plain ``curl -T`` PUT of the same file to the same subscriber in the same run
  (bench_distribution.large_file);
* the resident memory (VmRSS) of the serving process after all of that load.

Run by hand, on a quiet machine (the figures are meaningless while other work shares the cores):
``.venv/bin/python bench/bench_platform.py [SECONDS] [--only SERVICE ...] [--postgres URL]
[--files N] [--large-mib M]``. ``--only policy`` runs that service alone (``netplatform serve
--only policy``; the file rows then are not measured); ``--postgres`` serves from a throwaway
database made on that PostgreSQL server (one per configuration, dropped afterwards). Writes
docs/performance/platform.md and bench/results/platform.json, or with options their own
(``platform-postgres``, ``platform-policy``: common.variant_name). The measurements for the
document, every row at its full size (5 s rows, 500 files, 100 MiB):

    .venv/bin/python bench/bench_platform.py
    .venv/bin/python bench/bench_platform.py --postgres postgresql://postgres@127.0.0.1:5432/postgres
    .venv/bin/python bench/bench_platform.py --only policy

(``make bench`` runs all three through run_all.py). A check that it works, in about a minute:
``.venv/bin/python bench/bench_platform.py 1 --files 50 --large-mib 10``.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import httpx
from prometheus_client.parser import text_string_to_metric_families

from bench_distribution import Subscriber, large_file, provision, rss_kib, small_files, subscriber_running
from bench_goals import ON_BEHALF, create_delete, measure, seed
from common import (
    AUTH,
    LoadResult,
    Platform,
    Request,
    bare_app,
    database,
    drive,
    get,
    send,
    serve_platform,
    variant_name,
    variant_title,
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
WRITES_VARIANT = "make run (access log on)"
"""The variant whose process also takes the writes (the issue's figures are of `make run` as shipped)."""
WRITERS = 8


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


def loop_thread_waits(pid: int) -> float | None:
    """Seconds the process's main thread (the event loop) has spent runnable but waiting for a
    core (/proc schedstat's second field); None where the kernel keeps no schedstat."""
    try:
        return int(Path(f"/proc/{pid}/task/{pid}/schedstat").read_text().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return None


@dataclass(frozen=True)
class Row:
    variant: str
    result: LoadResult
    lag_s: float
    waiting: float | None  # the share of the row the loop's thread waited for a core


@dataclass(frozen=True)
class WriteLoad:
    """What the writes need: the HTTPS subscriber files are delivered to, a folder for the large
    file, and the sizes."""

    subscriber: Subscriber
    folder: Path
    files: int
    large_mib: int


@dataclass(frozen=True)
class Writes:
    """The writes' figures (None: the service was not served) and the RSS after all the load."""

    create_delete: LoadResult | None
    small: dict[str, float] | None
    large: dict[str, float] | None
    rss_mib: float


def measure_variant(
    variant: str,
    access_log: str,
    services: list[str],
    seconds: float,
    postgres: str | None,
    load: WriteLoad | None = None,
) -> tuple[list[Row], Writes | None]:
    """The hot reads of one configuration; then, given ``load``, the writes in the same process."""
    rows = []
    env = {"NETPLATFORM_DELIVERY_CA_BUNDLE": str(load.subscriber.ca_bundle)} if load else None
    with (
        database(postgres) as database_url,
        serve_platform(services, access_log, database_url, env) as served,
    ):
        targets = seed({name: served.url(name) for name in services})
        if "policy" in services:
            targets["policy healthcheck"] = served.url("policy") + "/policy/api/v1/healthcheck"
        metrics = served.url(services[0]) + "/metrics"
        for label in HOT_READS:
            if label not in targets:
                continue
            before, waited = lag_buckets(metrics), loop_thread_waits(served.pid)
            result = asyncio.run(drive(label, read(label, targets[label]), CLIENTS, seconds))
            waits = loop_thread_waits(served.pid)
            waiting = None if waits is None or waited is None else (waits - waited) / result.seconds
            rows.append(Row(variant, result, longest_lag(before, lag_buckets(metrics)), waiting))
        writes = measure_writes(served, services, seconds, load) if load else None
    return rows, writes


def measure_writes(served: Platform, services: list[str], seconds: float, load: WriteLoad) -> Writes:
    """Policy create+delete, small files and one large file published and delivered, then the RSS."""
    pairs = None
    if "policy" in services:
        pairs = measure(
            "policy create+delete", create_delete(served.url("policy")), WRITERS, per_call=2, seconds=seconds
        )
    small = large = None
    if "distribution" in services:
        url = served.url("distribution")
        feed_id = provision(url, load.subscriber.url, name="bench-writes")  # seed's feed is "bench"
        small = small_files(url, feed_id, load.subscriber, load.files, WRITERS, served.pid)
        large = large_file(url, feed_id, load.subscriber, load.large_mib, load.folder, served.data_dir)
    return Writes(pairs, small, large, rss_kib(Path(f"/proc/{served.pid}/status")) / 1024)


@contextmanager
def write_load(files: int, large_mib: int) -> Iterator[WriteLoad]:
    """A running HTTPS subscriber and a throwaway folder for the writes."""
    with tempfile.TemporaryDirectory(prefix="bench-platform-") as temp, subscriber_running(Path(temp)) as sub:
        yield WriteLoad(sub, Path(temp), files, large_mib)


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
        "| longest loop lag | loop waiting for a core | errors |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
        f"| bare Starlette app | one JSON route | {bare.rps:,.0f} | 1.00 | {bare.p99_ms:.1f} | "
        f"| | {bare.errors} |",
    ]
    for row in rows:
        r = row.result
        lag = f"≤ {row.lag_s * 1000:g} ms" if row.lag_s != INFINITY else "> 5 s"
        waiting = "" if row.waiting is None else f"{row.waiting:.0%}"
        lines.append(
            f"| {row.variant} | {r.label} | {r.rps:,.0f} | {r.rps / bare.rps:.2f} | {r.p99_ms:.1f} | "
            f"{lag} | {waiting} | {r.errors_text()} |"
        )
    return "\n".join(lines)


def met(passed: bool) -> str:
    return "✔" if passed else "✘"


def writes_table(writes: Writes) -> str:
    """The issue's write rows and the RSS: this run's figure, the goal, whether it is met."""
    lines = ["| figure | this run | goal | met |", "|---|---|---|:-:|"]
    if pairs := writes.create_delete:
        lines.append(
            f"| policy create+delete, {pairs.concurrency} client threads | {pairs.rps:,.0f} requests/s "
            f"(a pair: p50 {pairs.p50_ms:.1f} ms, p99 {pairs.p99_ms:.1f} ms; {pairs.errors_text()} errors) "
            f"| ≥ 1,000 requests/s | {met(pairs.rps >= 1000 and not pairs.errors)} |"
        )
    if small := writes.small:
        lines.append(
            f"| 1 KiB files ({small['files']:.0f}), {small['threads']:.0f} publishers, publish → delivered "
            f"| {small['delivered_per_s']:,.0f} files/s, publish p50 {small['latency_p50_ms']:.1f} ms "
            f"| ≥ 500 files/s, publish p50 < 20 ms "
            f"| {met(small['delivered_per_s'] >= 500 and small['latency_p50_ms'] < 20)} |"
        )
    if large := writes.large:
        mib, curl = large["mib"], large["curl_mb_s"]
        upload, delivered = large["upload_mb_s"] / curl, large["end_to_end_mb_s"] / curl
        lines += [
            f"| {mib:.0f} MiB publish leg, ratio to curl PUT of the same file to the subscriber "
            f"| {upload:.2f} ({large['upload_mb_s']:,.0f} MB/s; curl {curl:,.0f} MB/s) | ≥ 0.5 "
            f"| {met(upload >= 0.5)} |",
            f"| {mib:.0f} MiB published → delivered, ratio to that curl PUT "
            f"| {delivered:.2f} ({large['end_to_end_mb_s']:,.0f} MB/s) | ≥ 0.3 | {met(delivered >= 0.3)} |",
        ]
    lines.append(
        f"| RSS after load (the serving process) | {writes.rss_mib:.0f} MiB | < 200 MiB "
        f"| {met(writes.rss_mib < 200)} |"
    )
    return "\n".join(lines)


def main(seconds: float, only: list[str], postgres: str | None, files: int, large_mib: int) -> None:
    services = only or list(SERVED_NAMES)
    load = os.getloadavg()
    with bare_app() as url:
        bare = asyncio.run(drive("bare Starlette app, one JSON route", get(url), CLIENTS, seconds))
    rows: list[Row] = []
    writes = None
    with write_load(files, large_mib) as writing:
        for variant, access_log in VARIANTS.items():
            given = writing if variant == WRITES_VARIANT else None
            measured, wrote = measure_variant(variant, access_log, services, seconds, postgres, given)
            rows += measured
            writes = writes or wrote
    assert writes is not None
    check = busy(load[0]) or seconds < 5 or files < 500 or large_mib < 100
    served = "every service in one process" if not only else f"`--only {' --only '.join(only)}`"
    body = f"""
`bench/bench_platform.py` starts the platform as `make run` does ({served},
{"PostgreSQL" if postgres else "SQLite"}, the log written to a file), seeds one object per
service, then drives each hot read for {seconds:g} s at {CLIENTS} keep-alive connections from
an aiohttp client on the same machine; then again with the access log off. The bare Starlette
app is measured in the same run. "Longest loop lag" is the process's own figure: the lowest
`event_loop_lag_seconds` bucket bound that took every sample of the row (the probe wakes
every 50 ms; see docs/operations.md). "Loop waiting for a core" is the share of the row the
process's main thread (the event loop's) was runnable but not running, from the kernel's
schedstat: lag that is the machine's, not the loop's work.

These figures must be taken on a quiet machine: client and server share the cores, and any
other load shows up as lag and as a lower ratio. The run below was taken with a load average of
{load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f} (1 / 5 / 15 min), {seconds:g} s per row
{"(a check that the benchmark works, not a measurement)" if check else ""}.

{table(bare, rows)}

Then the writes, in the same `make run` process (access log on) right after its reads:
policy create+delete at {WRITERS} clients for {seconds:g} s (a POST of a policy type, then its
removal; both requests counted, latencies are the pair's); {files} files of 1 KiB published by
{WRITERS} threads to a feed whose subscription delivers to a local HTTPS endpoint (trustme
certificate, its CA given to the platform), first publish to last delivery; one {large_mib} MiB
file streamed off the disk, its publish leg (until the 204) and publish → delivered each divided by
a plain `curl -T` PUT of the same file to the same endpoint in the same run; then the resident
memory of the serving process.

{writes_table(writes)}
"""
    name = variant_name("platform", postgres, only)
    write_fragment(name, variant_title("As users run it", postgres, only), body)
    # The plot tells the variants apart by label: the same read is measured in each.
    labelled = [dataclasses.replace(row.result, label=f"{row.variant}: {row.result.label}") for row in rows]
    if writes.create_delete:
        labelled.append(
            dataclasses.replace(writes.create_delete, label=f"{WRITES_VARIANT}: policy create+delete")
        )
    write_results(name, [bare, *labelled])
    print(body)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("seconds", nargs="?", type=float, default=5.0, help="seconds per row")
    parser.add_argument("--only", action="append", default=[], help="serve only this service (repeatable)")
    parser.add_argument(
        "--postgres", metavar="URL", help="serve from a throwaway database on this PostgreSQL server"
    )
    parser.add_argument("--files", type=int, default=500, help="1 KiB files published (default 500)")
    parser.add_argument("--large-mib", type=int, default=100, help="size of the large file (default 100)")
    args = parser.parse_args()
    main(args.seconds, args.only, args.postgres, args.files, args.large_mib)
