"""The ground every service stands on: the bare ASGI ceiling, a kernel route, start-up and memory.

Run by hand: ``.venv/bin/python bench/bench_kernel.py``. Writes docs/performance/kernel.md and
bench/results/kernel.json (used for the plots).
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import time
from pathlib import Path

from common import (
    CONCURRENCY_LEVELS,
    ROOT,
    TABLE_HEADER,
    LoadResult,
    drive,
    free_port,
    get,
    serve,
    wait_for_port,
    write_fragment,
    write_results,
)


def hello_baseline(seconds: float) -> list[LoadResult]:
    port = free_port()
    process = subprocess.Popen([sys.executable, str(ROOT / "bench" / "hello.py"), str(port)])
    try:
        wait_for_port(port)
        return [
            asyncio.run(_run("bare ASGI hello", f"http://127.0.0.1:{port}/", c, seconds))
            for c in CONCURRENCY_LEVELS
        ]
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)


async def _run(label: str, url: str, concurrency: int, seconds: float) -> LoadResult:
    return await drive(label, get(url), concurrency, seconds)


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def startup_and_memory() -> tuple[float, int]:
    """Seconds from exec to all five ports open, and resident memory once settled."""
    started = time.perf_counter()
    with serve(["blueprints", "distribution", "bus", "policy", "configtree"]) as served:
        startup = time.perf_counter() - started
        time.sleep(1)
        return startup, rss_kib(served.process.pid)


def main(seconds: float = 5.0) -> None:
    baseline = hello_baseline(seconds)
    startups = []
    for _ in range(3):
        startup, rss = startup_and_memory()
        startups.append(startup)
    with serve(["policy"]) as served:
        base = served.url("policy")
        health = [
            asyncio.run(_run("kernel GET /health (db ping)", f"{base}/health", c, seconds))
            for c in CONCURRENCY_LEVELS
        ]
        metrics = [
            asyncio.run(_run("kernel GET /metrics (auth)", f"{base}/metrics", c, seconds))
            for c in CONCURRENCY_LEVELS
        ]
        rss_after = rss_kib(served.process.pid)
    rows = "\n".join(r.row() for r in baseline + health + metrics)
    body = f"""
The same load driver (aiohttp, keep-alive, loopback) measures a bare ASGI app on uvicorn (the
ceiling any Python service on this machine can reach) and two kernel routes of a real service
process. Client and server share the machine's cores, so absolute figures are conservative.

{TABLE_HEADER}
{rows}

| process | figure |
|---|---|
| `netplatform serve` start-up, all five services, fresh SQLite (best of 3) | {min(startups):.2f} s |
| resident memory, all five services at rest | {rss / 1024:.0f} MiB |
| resident memory, policy service after the load above | {rss_after / 1024:.0f} MiB |
"""
    write_fragment("kernel", "Kernel and framework ceiling", body)
    write_results("kernel", baseline + health + metrics)
    print(body)


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 5.0)
