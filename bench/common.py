"""Shared benchmark machinery: start `netplatform serve` in a child process and drive load at it.

Load comes from this process over loopback with aiohttp: ``concurrency`` workers each send
requests back to back for ``seconds`` (or until ``max_requests``), and every latency is kept
so p50/p99 are exact. The same driver measures the bare ASGI baseline, so figures compare.
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
import os
import platform
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
import zipfile
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from netplatform.settings import SERVED_NAMES

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
FRAGMENTS = DOCS / "performance"
AUTH = {"Authorization": "Basic " + base64.b64encode(b"admin:admin").decode()}
CONCURRENCY_LEVELS = (1, 8, 32)
PG_DEFAULT = "postgresql://postgres@127.0.0.1:5432/postgres"


def cba_archive(name: str, topology: dict[str, Any], files: dict[str, Any]) -> bytes:
    """A CBA ``name`` 1.0.0 as the execution benchmarks save it: TOSCA.meta, the entry definition
    ``Definitions/main.json`` with ``topology`` as its topology_template, and ``files`` (archive
    path -> text, or a value written as JSON)."""
    entry = {
        "tosca_definitions_version": "controller_blueprint_1_0_0",
        "metadata": {
            "template_author": "bench",
            "template_name": name,
            "template_version": "1.0.0",
            "template_tags": "bench",
        },
        "topology_template": topology,
    }
    meta = (
        "TOSCA-Meta-File-Version: 1.0.0\nCSAR-Version: 1.0\nCreated-By: bench <b@example.net>\n"
        f"Entry-Definitions: Definitions/main.json\nTemplate-Name: {name}\nTemplate-Version: 1.0.0\n"
        "Template-Tags: bench\n"
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("TOSCA-Metadata/TOSCA.meta", meta)
        archive.writestr("Definitions/main.json", json.dumps(entry))
        for path, content in files.items():
            archive.writestr(path, content if isinstance(content, str) else json.dumps(content))
    return buffer.getvalue()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.02)
    raise TimeoutError(f"port {port} did not open")


@dataclass
class Served:
    process: subprocess.Popen[bytes]
    ports: dict[str, int]
    data_dir: Path

    def url(self, service: str) -> str:
        return f"http://127.0.0.1:{self.ports[service]}"


@contextmanager
def serve(services: list[str], env: dict[str, str] | None = None) -> Iterator[Served]:
    """``netplatform serve --only ...`` on free ports and a throwaway data dir."""
    data_dir = Path(tempfile.mkdtemp(prefix="netplatform-bench-"))
    ports = {name: free_port() for name in services}
    child_env = {
        **os.environ,
        "NETPLATFORM_DATA_DIR": str(data_dir),
        "NETPLATFORM_ACCESS_LOG": "false",
        "NETPLATFORM_USERS": "admin:admin",
        "NETPLATFORM_LOG_LEVEL": "WARNING",
    }
    child_env.update({f"NETPLATFORM_{name.upper()}_PORT": str(port) for name, port in ports.items()})
    child_env.update(env or {})
    args = [sys.executable, "-m", "netplatform", "serve"]
    for name in services:
        args += ["--only", name]
    process = subprocess.Popen(args, env=child_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with served_until_stopped(process, ports.values(), data_dir):
        yield Served(process, ports, data_dir)


@contextmanager
def served_until_stopped(
    process: subprocess.Popen[bytes], ports: Iterable[int], data_dir: Path
) -> Iterator[None]:
    """Once every port answers, the body runs; then SIGTERM (SIGKILL after 60 s) and the data dir removed."""
    try:
        for port in ports:
            wait_for_port(port)
        yield
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
        shutil.rmtree(data_dir, ignore_errors=True)


@dataclass(frozen=True)
class Platform:
    ports: dict[str, int]
    pid: int
    data_dir: Path

    def url(self, service: str) -> str:
        return f"http://127.0.0.1:{self.ports[service]}"


@contextmanager
def serve_platform(
    services: list[str], access_log: str, database_url: str | None, env: dict[str, str] | None = None
) -> Iterator[Platform]:
    """``netplatform serve`` as `make run` starts it (or ``--only`` those services); ``env`` adds
    settings (the CA of the writes' subscriber)."""
    data_dir = Path(tempfile.mkdtemp(prefix="netplatform-bench-"))
    ports = {name: free_port() for name in services}
    env = {
        **os.environ,
        "NETPLATFORM_DATA_DIR": str(data_dir),
        "NETPLATFORM_ACCESS_LOG": access_log,
        "NETPLATFORM_USERS": "admin:admin",
        **{f"NETPLATFORM_{name.upper()}_PORT": str(port) for name, port in ports.items()},
        **({"NETPLATFORM_DATABASE_URL": database_url} if database_url else {}),
        **(env or {}),
    }
    only = [] if services == list(SERVED_NAMES) else [arg for name in services for arg in ("--only", name)]
    with open(data_dir / "serve.log", "wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "netplatform", "serve", *only], env=env, stdout=log, stderr=log
        )
        with served_until_stopped(process, ports.values(), data_dir):
            yield Platform(ports, process.pid, data_dir)


@dataclass(frozen=True)
class LoadResult:
    label: str
    concurrency: int
    requests: int
    errors: int
    seconds: float
    p50_ms: float
    p99_ms: float
    failed: dict[int, int] = field(default_factory=dict)
    """The statuses of the requests counted as errors, with how many of each (-1: no answer)."""

    @property
    def rps(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    def errors_text(self) -> str:
        """``0``, or the count with its statuses: ``3 (409: 2, -1: 1)``."""
        statuses = ", ".join(f"{status}: {count}" for status, count in sorted(self.failed.items()))
        return f"{self.errors} ({statuses})" if statuses else str(self.errors)

    def row(self) -> str:
        return (
            f"| {self.label} | {self.concurrency} | {self.rps:,.0f} | {self.p50_ms:.1f} | "
            f"{self.p99_ms:.1f} | {self.requests} | {self.errors_text()} |"
        )


TABLE_HEADER = (
    "| operation | clients | requests/s | p50 ms | p99 ms | requests | errors |\n"
    "|---|---:|---:|---:|---:|---:|---:|"
)

Request = Callable[[aiohttp.ClientSession, int], Awaitable[int]]
"""Sends one request (the int is a running sequence number) and returns the HTTP status."""


async def send(session: aiohttp.ClientSession, method: str, url: str, **kwargs: object) -> int:
    """One request, its body read to the end; the HTTP status."""
    async with session.request(method, url, **kwargs) as response:  # type: ignore[arg-type]
        await response.read()
        return response.status


def get(url: str | Callable[[int], str]) -> Request:
    """A Request that GETs ``url`` (or ``url(n)`` for the n-th request)."""

    async def request(session: aiohttp.ClientSession, n: int) -> int:
        return await send(session, "GET", url(n) if callable(url) else url)

    return request


def send_json(method: str, url: str, body_of: Callable[[int], object]) -> Request:
    """A Request that sends ``body_of(n)`` as JSON to ``url``."""

    async def request(session: aiohttp.ClientSession, n: int) -> int:
        return await send(session, method, url, json=body_of(n))

    return request


async def drive(
    label: str,
    request: Request,
    concurrency: int,
    seconds: float = 5.0,
    max_requests: int = 100_000,
    ok: Callable[[int], bool] = lambda s: s < 400,
) -> LoadResult:
    latencies: list[float] = []
    failed: Counter[int] = Counter()
    counter = 0
    deadline = time.perf_counter() + seconds
    connector = aiohttp.TCPConnector(limit=concurrency, force_close=False)

    async def worker(session: aiohttp.ClientSession) -> None:
        nonlocal counter
        while time.perf_counter() < deadline and counter < max_requests:
            counter += 1
            started = time.perf_counter()
            try:
                status = await request(session, counter)
            except aiohttp.ClientError:
                status = -1
            latencies.append(time.perf_counter() - started)
            if not ok(status):
                failed[status] += 1

    async with aiohttp.ClientSession(connector=connector, headers=AUTH) as session:
        started = time.perf_counter()
        await asyncio.gather(*(worker(session) for _ in range(concurrency)))
        elapsed = time.perf_counter() - started
    latencies.sort()
    return LoadResult(
        label,
        concurrency,
        len(latencies),
        failed.total(),
        elapsed,
        percentile(latencies, 50) * 1000,
        percentile(latencies, 99) * 1000,
        dict(failed),
    )


def percentile(sorted_values: list[float], pct: float) -> float:
    if not sorted_values:
        return 0.0
    if len(sorted_values) == 1:
        return sorted_values[0]
    return statistics.quantiles(sorted_values, n=100, method="inclusive")[int(pct) - 1]


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = ""
    try:
        kib = int(Path("/proc/meminfo").read_text().split()[1])
        memory = f", {kib / 1024 / 1024:.0f} GiB RAM"
    except (OSError, ValueError, IndexError):
        pass
    return (
        f"{os.cpu_count()} cores ({cpu}){memory}, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}"
    )


ANALYSIS_MARKER = "<!-- analysis: kept when the figures above are measured again -->"
"""A fragment's hand-written analysis goes below this line: write_fragment keeps it."""


def variant_name(name: str, postgres: str | None = None, only: Iterable[str] = ()) -> str:
    """The fragment (and results) name of a run with options: ``platform``, ``platform-postgres``,
    ``platform-policy``, ``mixed-postgres``; bench/run_all.py runs each of them."""
    return "-".join([name, *only, *(["postgres"] if postgres else [])])


def variant_title(title: str, postgres: str | None = None, only: Iterable[str] = ()) -> str:
    """The fragment's heading: the database and the services named when they are not the default."""
    notes = [f"{', '.join(only)} alone"] if only else []
    notes += ["PostgreSQL"] if postgres else []
    return f"{title} ({'; '.join(notes)})" if notes else title


def write_fragment(name: str, title: str, body: str) -> Path:
    """docs/performance/<name>.md anew: the title, when and where measured, ``body``, then the
    analysis kept from the fragment it replaces (ANALYSIS_MARKER and what follows it): the
    figures change, the reading of them is written by hand."""
    FRAGMENTS.mkdir(parents=True, exist_ok=True)
    path = FRAGMENTS / f"{name}.md"
    stamp = time.strftime("%Y-%m-%d")
    text = path.read_text() if path.exists() else ""
    at = text.find(ANALYSIS_MARKER)
    kept = "" if at < 0 else "\n" + text[at:]
    path.write_text(f"## {title}\n\nMeasured {stamp} on {machine()}.\n\n{body.strip()}\n{kept}")
    return path


RESULTS = ROOT / "bench" / "results"


def write_results(name: str, results: list[LoadResult]) -> Path:
    """Keep the raw figures beside the fragment; run_all.py plots them."""
    import json

    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps([r.__dict__ | {"rps": r.rps} for r in results], indent=1))
    return path


def tree_cpu_s(pid: int) -> float:
    """User plus system CPU seconds of a process and its living descendants (Linux /proc): a
    served platform runs children too (template renderers under the blueprint catalog)."""
    stats: dict[int, tuple[int, int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended meanwhile
        stats[int(stat.parent.name)] = (int(fields[1]), int(fields[11]) + int(fields[12]))
    tree, ticks = [pid], 0
    while tree:
        current = tree.pop()
        ticks += stats.get(current, (0, 0))[1]
        tree.extend(child for child, (parent, _) in stats.items() if parent == current)
    return ticks / os.sysconf("SC_CLK_TCK")


@contextmanager
def bare_app() -> Iterator[str]:
    """The bare Starlette app (bench/bare_starlette.py) on a free port: every ratio's baseline."""
    port = free_port()
    process = subprocess.Popen([sys.executable, str(ROOT / "bench" / "bare_starlette.py"), str(port)])
    try:
        wait_for_port(port)
        yield f"http://127.0.0.1:{port}/"
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)


@contextmanager
def throwaway_postgres() -> Iterator[str | None]:
    """A new database on the bench's PostgreSQL server (``NETPLATFORM_BENCH_DATABASE_URL``), dropped
    afterwards; None when it does not answer."""
    server = os.environ.get("NETPLATFORM_BENCH_DATABASE_URL", PG_DEFAULT)
    url = make_url(server.replace("postgresql://", "postgresql+psycopg://", 1))
    name = f"np_bench_{uuid.uuid4().hex[:10]}"
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}"'))
    except Exception as error:  # any failure to reach the server skips PostgreSQL
        print(f"PostgreSQL not measured: {error}", file=sys.stderr)
        admin.dispose()
        yield None
        return
    try:
        yield url.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@contextmanager
def database(postgres: str | None) -> Iterator[str | None]:
    """None (SQLite in the data dir), or a throwaway database on the ``--postgres`` server
    (the bench stops when it does not answer)."""
    if postgres is None:
        yield None
        return
    os.environ["NETPLATFORM_BENCH_DATABASE_URL"] = postgres
    with throwaway_postgres() as url:
        if url is None:
            raise SystemExit(f"PostgreSQL at {postgres} does not answer")
        yield url
