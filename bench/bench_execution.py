"""Blueprint execution: sync runs of a resource resolution (20 values, a 40-line template), stored.

Run by hand: ``.venv/bin/python bench/bench_execution.py [seconds]``. Starts ``netplatform serve
--only blueprints`` (a throwaway data dir; SQLite, then a throwaway PostgreSQL database on the
server at ``NETPLATFORM_BENCH_DATABASE_URL``, default postgresql://postgres@127.0.0.1:5432/postgres,
skipped when it does not answer), saves a CBA whose ``config-assign`` workflow resolves 20 values
(10 from the request's ``config-assign-properties``, 10 defaults) into a 40-line Velocity template
with ``store-result`` under a new resolution key per run (the reference's config-assign: one
template row and 20 value rows stored, and the run's audit record written),
then POSTs ``/api/v1/execution-service/process`` (mode sync) over loopback at 1, 4, 8 and 32
keep-alive connections. Every answer must be 200; the first is checked for the rendered text.
The bare Starlette app of bench_goals.py is measured in the same run at the same connection
counts: the ratio divides by it.

Before the load, 100 runs sent one after another measure the CPU a run costs: the serving
process's and its renderers', and the PostgreSQL backends' it is connected to (their /proc
entries: a server on this machine only).

Prints the figures, writes docs/performance/execution.md and bench/results/execution.json.
``--against DIR`` measures an older source tree too (rows labelled "(before)"); ``--profile``
instead runs 8 connections for ``seconds`` while py-spy records the serving process
(bench/results/execution-<store>.txt, raw folded stacks).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from common import (
    AUTH,
    RESULTS,
    TABLE_HEADER,
    LoadResult,
    bare_app,
    cba_archive,
    drive,
    get,
    send_json,
    serve,
    throwaway_postgres,
    tree_cpu_s,
    write_fragment,
    write_results,
)

NAME = "bench-exec"
PROCESS = "/api/v1/execution-service/process"
LEVELS = (1, 4, 8, 32)
INPUTS = [f"in-{i:02d}" for i in range(10)]
DEFAULTS = [f"def-{i:02d}" for i in range(10)]
CPU_RUNS = 100


def mapping() -> list[dict[str, Any]]:
    def entry(name: str, source: str, **prop: Any) -> dict[str, Any]:
        return {
            "name": name,
            "input-param": source == "input",
            "property": {"type": "string", "required": source == "input", **prop},
            "dictionary-name": name,
            "dictionary-source": source,
            "dependencies": [],
        }

    return [entry(n, "input") for n in INPUTS] + [
        entry(n, "default", default=f"value-of-{n}") for n in DEFAULTS
    ]


def template() -> str:
    """40 lines, each reading one of the 20 values (each value twice)."""
    names = INPUTS + DEFAULTS
    lines = [f"set {name} ${{{name}}}" for name in names]
    lines += [f"check {name} is '${{{name}}}'" for name in names]
    return "\n".join(lines) + "\n"


def bench_cba() -> bytes:
    topology = {
        "workflows": {
            "config-assign": {
                "inputs": {"resolution-key": {"type": "string", "required": True}},
                "steps": {"assign": {"target": "resolve"}},
                "outputs": {
                    "dry-run": {
                        "type": "json",
                        "value": {"get_attribute": ["resolve", "assignment-params"]},
                    }
                },
            }
        },
        "node_templates": {
            "resolve": {
                "type": "component-resource-resolution",
                "interfaces": {
                    "ResourceResolutionComponent": {
                        "operations": {
                            "process": {
                                "inputs": {
                                    "artifact-prefix-names": ["config"],
                                    "resolution-key": {"get_input": "resolution-key"},
                                    "store-result": True,
                                }
                            }
                        }
                    }
                },
                "artifacts": {
                    "config-mapping": {
                        "type": "artifact-mapping-resource",
                        "file": "Templates/config-mapping.json",
                    },
                    "config-template": {
                        "type": "artifact-template-velocity",
                        "file": "Templates/config-template.vtl",
                    },
                },
            }
        },
    }
    files = {"Templates/config-mapping.json": mapping(), "Templates/config-template.vtl": template()}
    return cba_archive(NAME, topology, files)


def run_body(n: int) -> dict[str, Any]:
    """The n-th run: new request ids and a new resolution key (nothing to reuse: all 20 resolve)."""
    run_id = uuid.uuid4().hex
    return {
        "commonHeader": {"originatorId": "bench", "requestId": run_id, "subRequestId": str(n)},
        "actionIdentifiers": {
            "blueprintName": NAME,
            "blueprintVersion": "1.0.0",
            "actionName": "config-assign",
            "mode": "sync",
        },
        "payload": {
            "config-assign-request": {
                "resolution-key": f"key-{run_id}",
                "config-assign-properties": {name: f"{name}-{n}" for name in INPUTS},
            }
        },
    }


def prepare(base: str) -> None:
    """Save the CBA, and check one run renders what it should."""
    with httpx.Client(base_url=base, headers=AUTH, timeout=60) as client:
        saved = client.post("/api/v1/blueprint-model", files={"file": ("cba.zip", bench_cba())})
        saved.raise_for_status()
        answer = client.post(PROCESS, json=run_body(0))
        answer.raise_for_status()
        rendered = answer.json()["payload"]["config-assign-response"]["dry-run"]["config"]
        assert len(rendered.splitlines()) == 40, rendered
        assert "set in-03 in-03-0" in rendered and "check def-09 is 'value-of-def-09'" in rendered, rendered


async def measure(label: str, base: str, seconds: float) -> list[LoadResult]:
    results = []
    for clients in LEVELS:
        request = send_json("POST", base + PROCESS, run_body)
        results.append(await drive(label, request, clients, seconds, ok=lambda status: status == 200))
        print(results[-1].row(), flush=True)
    return results


def backends() -> Iterator[tuple[str, dict[str, str]]]:
    yield "SQLite", {}
    with throwaway_postgres() as url:
        if url is not None:
            yield "PostgreSQL", {"NETPLATFORM_DATABASE_URL": url}


def ratio_table(bare: list[LoadResult], rows: list[LoadResult]) -> str:
    baseline = {r.concurrency: r.rps for r in bare}
    lines = [
        "| store | clients | executions/s | ratio to bare app | p50 ms | p99 ms | runs | errors |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r.label} | {r.concurrency} | {r.rps:,.0f} | {r.rps / baseline[r.concurrency]:.3f} | "
            f"{r.p50_ms:.1f} | {r.p99_ms:.1f} | {r.requests} | {r.errors} |"
        )
    return "\n".join(lines)


def profile(seconds: float) -> None:
    """py-spy over the serving process while 8 connections run executions."""
    py_spy = shutil.which("py-spy") or str(os.path.join(os.path.dirname(sys.executable), "py-spy"))
    RESULTS.mkdir(parents=True, exist_ok=True)
    for label, env in backends():
        with serve(["blueprints"], env) as served:
            base = served.url("blueprints")
            prepare(base)
            target = RESULTS / f"execution-{label.lower()}.txt"
            spy = subprocess.Popen(
                [
                    py_spy,
                    "record",
                    "-r",
                    "200",
                    "-f",
                    "raw",
                    "-o",
                    str(target),
                    "-p",
                    str(served.process.pid),
                ],
                stdout=subprocess.DEVNULL,
            )
            request = send_json("POST", base + PROCESS, run_body)
            result = asyncio.run(drive(label, request, 8, seconds, ok=lambda status: status == 200))
            spy.send_signal(signal.SIGINT)  # py-spy writes what it recorded on SIGINT
            spy.wait(timeout=120)
            print(f"{result.row()}; profile in {target}")


def backend_cpu_s(database_url: str | None) -> float | None:
    """CPU seconds of the PostgreSQL backends connected to the database of ``database_url`` (its
    server's own processes, read from /proc); None for SQLite, or for a server not on this machine."""
    if database_url is None:
        return None
    url = make_url(database_url)
    admin = create_engine(url.set(database="postgres"))
    try:
        with admin.connect() as connection:
            pids = connection.execute(
                text("SELECT pid FROM pg_stat_activity WHERE datname = :name"), {"name": url.database}
            ).scalars()
            stats = [Path(f"/proc/{pid}/stat") for pid in pids]
    finally:
        admin.dispose()
    if not stats or not all(stat.exists() for stat in stats):
        return None
    return sum(_process_cpu_s(stat) for stat in stats)


def _process_cpu_s(stat: Path) -> float:
    try:
        fields = stat.read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0  # ended meanwhile
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_per_run(
    base: str, pid: int, database_url: str | None, runs: int = CPU_RUNS
) -> tuple[float, float | None]:
    """Milliseconds of CPU per execution, runs sent one after another: of the serving processes,
    and of the PostgreSQL backends serving them (None on SQLite). What a run costs whatever else
    the machine does (waits are not counted; contention for caches is)."""
    with httpx.Client(base_url=base, headers=AUTH, timeout=60) as client:
        before, server_before = tree_cpu_s(pid), backend_cpu_s(database_url)
        for n in range(runs):
            client.post(PROCESS, json=run_body(n)).raise_for_status()
        served = (tree_cpu_s(pid) - before) / runs * 1000
        server_after = backend_cpu_s(database_url)
    if server_before is None or server_after is None:
        return served, None
    return served, (server_after - server_before) / runs * 1000


Cpu = dict[str, tuple[float, float | None]]


def measure_tree(tag: str, env: dict[str, str], seconds: float) -> tuple[list[LoadResult], Cpu]:
    runs: list[LoadResult] = []
    cpu: Cpu = {}
    for label, store_env in backends():
        with serve(["blueprints"], {**env, **store_env}) as served:
            base = served.url("blueprints")
            prepare(base)
            cpu[label + tag] = cpu_per_run(
                base, served.process.pid, store_env.get("NETPLATFORM_DATABASE_URL")
            )
            print(
                f"CPU per run, ms (service, PostgreSQL): {cpu_row(label + tag, cpu[label + tag])}", flush=True
            )
            runs += asyncio.run(measure(label + tag, base, seconds))
    return runs, cpu


def cpu_row(label: str, cpu: tuple[float, float | None]) -> str:
    served, server = cpu
    return f"| {label} | {served:.1f} | {'-' if server is None else f'{server:.1f}'} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("seconds", nargs="?", type=float, default=5.0, help="seconds per row")
    parser.add_argument("--profile", action="store_true", help="py-spy the serving process instead")
    parser.add_argument(
        "--against",
        type=Path,
        help="a source tree (the directory holding an older netplatform package) measured too, "
        "labelled (before), in the same run",
    )
    args = parser.parse_args()
    if args.profile:
        profile(args.seconds)
        return
    print(TABLE_HEADER)
    with bare_app() as url:
        bare = [asyncio.run(drive("bare app", get(url), c, args.seconds)) for c in LEVELS]
    for row in bare:
        print(row.row(), flush=True)
    runs, cpu = measure_tree("", {}, args.seconds)
    if args.against is not None:
        before_runs, before_cpu = measure_tree(" (before)", {"PYTHONPATH": str(args.against)}, args.seconds)
        runs, cpu = runs + before_runs, {**cpu, **before_cpu}
    cpu_rows = "\n".join(cpu_row(label, ms) for label, ms in cpu.items())
    body = f"""
Figures from `bench/bench_execution.py` ({args.seconds:.0f} s per row, loopback, one `netplatform serve
--only blueprints` process; the load generator runs on the same cores). Each execution is a sync
`POST /api/v1/execution-service/process` of `config-assign`: a resource resolution of **20 values**
(10 from the request's `config-assign-properties`, 10 defaults) rendered into a **40-line Velocity
template**, stored (`store-result`, a new resolution key per run: one template row and 20 value
rows) and audited (the record written once the run has ended, in the transaction that stores the
template and values). Rows labelled `(before)` ran the source tree given to `--against`, in the
same run. Goal (issue 25): at least 200 executions/s and p50 below 20 ms.

{ratio_table(bare, runs)}

CPU per execution ({CPU_RUNS} runs sent one after another, before the rows above): of the
serving process and its renderers, and of the PostgreSQL backends serving it (read from /proc;
the load generator's own CPU is not counted):

| store | ms of the service's CPU per run | ms of PostgreSQL's CPU per run |
|---|---:|---:|
{cpu_rows}

The bare app (one Starlette JSON route, `bench/bare_starlette.py`) in the same run:

{TABLE_HEADER}
{chr(10).join(r.row() for r in bare)}
"""
    path = write_fragment("execution", "Blueprint execution", body)
    write_results("execution", [replace(r, label=f"execution, {r.label}") for r in runs])
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
