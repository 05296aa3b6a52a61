"""Publish-to-delivery throughput of the file-distribution service, over loopback HTTPS.

Starts ``netplatform serve --only distribution`` (SQLite in a temporary data dir, a free port)
and a local HTTPS subscriber (trustme certificates), provisions one feed and one subscription,
then measures:

* small files: N files of 1 KiB published by several threads; files per second from the first
  publish to the last delivery, and the publish latency (until the 204);
* one large file (100 MiB by default) streamed from disk: upload MB/s (until the 204) and
  publish-to-delivery MB/s.

Prints the figures and writes docs/performance/distribution.md. Bounded in count and time.
Usage: .venv/bin/python bench/bench_distribution.py [--files 500] [--threads 8] [--large-mib 100]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import trustme
import uvicorn

from common import free_port, serve, write_fragment

PUBLISHER = ("bench", "bench-pw")
OWNER = {"X-BUS-DR-ON-BEHALF-OF": "bench"}
DEADLINE_S = 300


class Subscriber:
    """An HTTPS endpoint that counts what arrives (bytes are read, not kept)."""

    def __init__(self, folder: Path) -> None:
        ca = trustme.CA()
        cert = ca.issue_cert("127.0.0.1")
        self.ca_bundle = folder / "ca.pem"
        ca.cert_pem.write_to_path(str(self.ca_bundle))
        chain, key = folder / "chain.pem", folder / "key.pem"
        cert.private_key_pem.write_to_path(str(key))
        chain.write_bytes(b"".join(blob.bytes() for blob in cert.cert_chain_pems))
        self.port = free_port()
        self.url = f"https://127.0.0.1:{self.port}"
        self.arrivals: dict[str, tuple[float, int]] = {}
        self.arrived = threading.Condition()
        config = uvicorn.Config(
            self.app,
            host="127.0.0.1",
            port=self.port,
            ssl_certfile=str(chain),
            ssl_keyfile=str(key),
            log_level="warning",
            access_log=False,
            lifespan="off",
            interface="asgi3",
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=lambda: asyncio.run(self.server.serve()), daemon=True)

    async def app(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        size = 0
        while True:
            message = await receive()
            size += len(message.get("body", b""))
            if not message.get("more_body"):
                break
        name = scope["path"].rsplit("/", 1)[1]
        with self.arrived:
            self.arrivals[name] = (time.perf_counter(), size)
            self.arrived.notify_all()
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    def start(self) -> None:
        self.thread.start()
        while not self.server.started:
            time.sleep(0.01)

    def wait_for(self, names: set[str], timeout: float) -> float:
        """The arrival time of the last of ``names``."""
        deadline = time.monotonic() + timeout
        with self.arrived:
            while not names <= self.arrivals.keys():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError(f"{len(names - self.arrivals.keys())} files never arrived")
                self.arrived.wait(remaining)
            return max(self.arrivals[name][0] for name in names)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)


def provision(url: str, subscriber_url: str) -> int:
    feed = {
        "name": "bench",
        "version": "1",
        "authorization": {
            "classification": "bench",
            "endpoint_ids": [{"id": PUBLISHER[0], "password": PUBLISHER[1]}],
            "endpoint_addrs": [],
        },
    }
    with httpx.Client(base_url=url, auth=("admin", "admin")) as client:
        created = client.post("/", json=feed, headers={**OWNER, "Content-Type": "application/json"})
        created.raise_for_status()
        feed_id = int(created.json()["links"]["self"].rsplit("/", 1)[1])
        subscription = {
            "delivery": {"url": subscriber_url + "/in", "user": "rx", "password": "rx", "use100": False},
            "metadataOnly": False,
            "groupid": 0,
        }
        client.post(
            f"/subscribe/{feed_id}", json=subscription, headers={**OWNER, "Content-Type": "application/json"}
        ).raise_for_status()
    return feed_id


OCTETS = {"Content-Type": "application/octet-stream"}


def small_files(url: str, feed_id: int, subscriber: Subscriber, count: int, threads: int) -> dict[str, float]:
    payload = os.urandom(1024)
    local = threading.local()

    def publish_one(n: int) -> float:
        if not hasattr(local, "client"):
            local.client = httpx.Client(base_url=url, auth=PUBLISHER, timeout=60)
        started = time.perf_counter()
        response = local.client.put(f"/publish/{feed_id}/small-{n}", content=payload, headers=OCTETS)
        response.raise_for_status()
        return time.perf_counter() - started

    started = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        latencies = sorted(pool.map(publish_one, range(count)))
    published = time.perf_counter()
    last = subscriber.wait_for({f"small-{n}" for n in range(count)}, timeout=DEADLINE_S)
    return {
        "files": count,
        "threads": threads,
        "publish_per_s": count / (published - started),
        "delivered_per_s": count / (last - started),
        "latency_p50_ms": statistics.median(latencies) * 1000,
        "latency_p95_ms": latencies[int(len(latencies) * 0.95) - 1] * 1000,
    }


def large_file(url: str, feed_id: int, subscriber: Subscriber, mib: int, folder: Path) -> dict[str, float]:
    source = folder / "large.bin"
    block = os.urandom(1024 * 1024)
    with open(source, "wb") as handle:
        for _ in range(mib):
            handle.write(block)

    def chunks() -> Iterator[bytes]:
        with open(source, "rb") as handle:
            while chunk := handle.read(1024 * 1024):
                yield chunk

    size = source.stat().st_size
    started = time.perf_counter()
    with httpx.Client(base_url=url, auth=PUBLISHER, timeout=600) as client:
        client.put(
            f"/publish/{feed_id}/large.bin", content=chunks(), headers={**OCTETS, "Content-Length": str(size)}
        ).raise_for_status()
    acknowledged = time.perf_counter()
    last = subscriber.wait_for({"large.bin"}, timeout=DEADLINE_S)
    assert subscriber.arrivals["large.bin"][1] == size
    megabytes = size / 1_000_000
    return {
        "mib": mib,
        "upload_mb_s": megabytes / (acknowledged - started),
        "end_to_end_mb_s": megabytes / (last - started),
        "seconds": last - started,
    }


def report(small: dict[str, float], large: dict[str, float], workers: int, load: float) -> str:
    rows = [
        (
            f"small files (1 KiB), {small['files']:.0f} by {small['threads']:.0f} threads: publish rate",
            f"{small['publish_per_s']:.0f} files/s",
        ),
        ("small files: first publish to last delivery", f"{small['delivered_per_s']:.0f} files/s"),
        (
            "publish latency until the 204 (fsync + commit), p50 / p95",
            f"{small['latency_p50_ms']:.1f} ms / {small['latency_p95_ms']:.1f} ms",
        ),
        (f"one {large['mib']:.0f} MiB file: upload until the 204", f"{large['upload_mb_s']:.0f} MB/s"),
        (
            f"one {large['mib']:.0f} MiB file: publish start to fully delivered",
            f"{large['end_to_end_mb_s']:.0f} MB/s ({large['seconds']:.1f} s)",
        ),
    ]
    table = "\n".join(f"| {measure} | {result} |" for measure, result in rows)
    return f"""
`bench/bench_distribution.py` runs `netplatform serve --only distribution` on SQLite in a
throwaway data dir with {workers} delivery workers, one feed and one subscription whose delivery
URL is a local HTTPS endpoint (trustme certificate); everything over loopback. The subscriber,
the publishers and the service share the machine's cores, with other work running beside them
(1-minute load average {load:.1f} when the run started).

| measure | result |
|---|---|
{table}

Each publish is acknowledged only after its file is fsynced and its deliveries are committed, so
the small-file rate is bound by fsync and SQLite's single writer; deliveries to one subscription
are sequential (order is kept per subscription), so one subscriber's rate is bound by one
connection's round trips.
"""


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--files", type=int, default=500)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--large-mib", type=int, default=100)
    parser.add_argument("--workers", type=int, default=8)
    args = parser.parse_args()
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="bench-distribution-") as temp:
        folder = Path(temp)
        subscriber = Subscriber(folder)
        subscriber.start()
        env = {
            "NETPLATFORM_DELIVERY_CA_BUNDLE": str(subscriber.ca_bundle),
            "NETPLATFORM_DELIVERY_WORKERS": str(args.workers),
            "NETPLATFORM_DELIVERY_POLL_S": "0.05",
            "NETPLATFORM_INSTANCE_NAME": "bench",
        }
        try:
            with serve(["distribution"], env) as served:
                url = served.url("distribution")
                feed_id = provision(url, subscriber.url)
                small = small_files(url, feed_id, subscriber, args.files, args.threads)
                large = large_file(url, feed_id, subscriber, args.large_mib, folder)
        finally:
            subscriber.stop()
    body = report(small, large, args.workers, load)
    print(body)
    print(f"written to {write_fragment('distribution', 'File distribution: publish to delivery', body)}")


if __name__ == "__main__":
    main()
