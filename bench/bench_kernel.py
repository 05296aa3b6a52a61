"""The ground every service stands on: the bare ASGI ceiling, a kernel route, start-up and memory.

Run by hand: ``.venv/bin/python bench/bench_kernel.py [SECONDS] [--against DIR]``. Writes
docs/performance/kernel.md and bench/results/kernel.json (used for the plots). ``--against``
measures the kernel rows of an older source tree in the same run, for a before/after:
``git archive HEAD~1 src | tar -x -C /tmp/before && bench/bench_kernel.py --against /tmp/before/src``.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import subprocess
import sys
import time
from pathlib import Path

from bench_goals import seed
from common import (
    CONCURRENCY_LEVELS,
    ROOT,
    TABLE_HEADER,
    LoadResult,
    bare_app,
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


KERNEL_ROWS = ("kernel GET /health", "kernel GET /metrics (auth)", "config entry GET (auth, one entity)")


def kernel_rows(
    seconds: float, tag: str = "", env: dict[str, str] | None = None
) -> tuple[list[LoadResult], int]:
    """The kernel's own routes and one authenticated hot GET of a service; resident memory after."""
    with serve(["policy", "configtree"], env=env) as served:
        targets = seed({"policy": served.url("policy"), "configtree": served.url("configtree")})
        base = served.url("policy")
        urls = dict(
            zip(KERNEL_ROWS, (f"{base}/health", f"{base}/metrics", targets["config entry"]), strict=True)
        )
        results = [
            asyncio.run(_run(label + tag, url, c, seconds))
            for label, url in urls.items()
            for c in CONCURRENCY_LEVELS
        ]
        return results, rss_kib(served.process.pid)


def ratio_table(bare: LoadResult, rows: list[LoadResult]) -> str:
    lines = ["| operation (32 clients) | requests/s | ratio to bare Starlette |", "|---|---:|---:|"]
    for row in [bare, *rows]:
        if row.concurrency == 32:
            lines.append(f"| {row.label} | {row.rps:,.0f} | {row.rps / bare.rps:.2f} |")
    return "\n".join(lines)


def main(seconds: float = 5.0, against: Path | None = None) -> None:
    baseline = hello_baseline(seconds)
    with bare_app() as url:
        bare = asyncio.run(_run("bare Starlette app, one JSON route", url, 32, seconds))
    startups = []
    for _ in range(3):
        startup, rss = startup_and_memory()
        startups.append(startup)
    kernel, rss_after = kernel_rows(seconds)
    before: list[LoadResult] = []
    if against is not None:
        before, _ = kernel_rows(seconds, " (before)", {"PYTHONPATH": str(against)})
    rows = "\n".join(r.row() for r in [*baseline, bare, *kernel, *before])
    body = f"""
The same load driver (aiohttp, keep-alive, loopback) measures a bare ASGI app on uvicorn (the
ceiling any Python service on this machine can reach), the bare Starlette app of the goals
table, the kernel's own routes of a real service process and one authenticated hot GET of a
service (a configuration entry). Client and server share the machine's cores, so absolute
figures are conservative; compare ratios within one run.

{TABLE_HEADER}
{rows}

{ratio_table(bare, kernel + before)}

| process | figure |
|---|---|
| `netplatform serve` start-up, all five services, fresh SQLite (best of 3) | {min(startups):.2f} s |
| resident memory, all five services at rest | {rss / 1024:.0f} MiB |
| resident memory, policy and configtree services after the load above | {rss_after / 1024:.0f} MiB |
"""
    write_fragment("kernel", "Kernel and framework ceiling", body)
    write_results("kernel", [*baseline, bare, *kernel, *before])
    print(body)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("seconds", nargs="?", type=float, default=5.0, help="seconds per row")
    parser.add_argument(
        "--against",
        type=Path,
        help="a source tree (the directory holding an older netplatform package, e.g. from "
        "`git archive`) whose kernel rows are measured too, labelled (before), in the same run",
    )
    args = parser.parse_args()
    main(args.seconds, args.against)
