"""``make bench``: run every bench/bench_*.py, then assemble docs/performance.md with plots.

Each benchmark writes its own fragment (docs/performance/<name>.md) and, where it measures
request load, its raw figures (bench/results/<name>.json). A benchmark that fails is reported
in the document rather than silently dropped. Some run more than once with options (VARIANTS):
the platform and the mixed workload on PostgreSQL too, and the platform with one service alone;
each variant has its own fragment. PostgreSQL is the server of ``NETPLATFORM_BENCH_DATABASE_URL``
(default ``postgresql://postgres@127.0.0.1:5432/postgres``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from common import DOCS, FRAGMENTS, PG_DEFAULT, RESULTS, ROOT, machine

ORDER = [
    "goals",
    "platform",
    "platform-postgres",
    "platform-policy",
    "platform-policy-postgres",
    "mixed",
    "mixed-postgres",
    "kernel",
    "authz",
    "blueprints",
    "execution",
    "execution_isolation",
    "deploy",
    "distribution",
    "bus",
    "router",
    "policy",
    "configtree",
]


def variants() -> dict[str, tuple[str, list[str]]]:
    """Fragment name -> (benchmark, its options), beyond each benchmark run plainly."""
    postgres = os.environ.get("NETPLATFORM_BENCH_DATABASE_URL", PG_DEFAULT)
    return {
        "platform-postgres": ("platform", ["--postgres", postgres]),
        "platform-policy": ("platform", ["--only", "policy"]),
        "platform-policy-postgres": ("platform", ["--only", "policy", "--postgres", postgres]),
        "mixed-postgres": ("mixed", ["--postgres", postgres]),
    }


def benchmarks() -> list[str]:
    found = [p.stem.removeprefix("bench_") for p in (ROOT / "bench").glob("bench_*.py")]
    names = sorted([*found, *variants()])
    return sorted(names, key=lambda name: ORDER.index(name) if name in ORDER else len(ORDER))


def run(name: str) -> str | None:
    started = time.monotonic()
    script, options = variants().get(name, (name, []))
    command = [sys.executable, str(ROOT / "bench" / f"bench_{script}.py"), *options]
    result = subprocess.run(command, cwd=ROOT, check=False)
    print(f"{name}: exit {result.returncode} after {time.monotonic() - started:.0f} s", flush=True)
    return None if result.returncode == 0 else f"`{' '.join(command[1:])}` exited with {result.returncode}"


def plot(name: str) -> Path | None:
    source = RESULTS / f"{name}.json"
    if not source.exists():
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = json.loads(source.read_text())
    labels = list(dict.fromkeys(row["label"] for row in rows))
    levels = sorted({row["concurrency"] for row in rows})
    figure, (rps_axis, p99_axis) = plt.subplots(1, 2, figsize=(12, 0.5 * len(labels) + 2.5))
    width = 0.8 / len(levels)
    for index, level in enumerate(levels):
        by_label = {row["label"]: row for row in rows if row["concurrency"] == level}
        positions = [i + index * width for i in range(len(labels))]
        rps_axis.barh(
            positions, [by_label.get(lb, {}).get("rps", 0) for lb in labels], width, label=f"{level} clients"
        )
        p99_axis.barh(positions, [by_label.get(lb, {}).get("p99_ms", 0) for lb in labels], width)
    ticks = [i + width * (len(levels) - 1) / 2 for i in range(len(labels))]
    for axis, title in (
        (rps_axis, "requests/s (higher is better)"),
        (p99_axis, "p99 latency, ms (lower is better)"),
    ):
        axis.set_yticks(ticks, labels if axis is rps_axis else [""] * len(labels))
        axis.invert_yaxis()
        axis.set_title(title)
        axis.grid(axis="x", alpha=0.3)
    rps_axis.legend(loc="lower right")
    figure.tight_layout()
    target = FRAGMENTS / f"{name}.png"
    figure.savefig(target, dpi=90)
    plt.close(figure)
    return target


def assemble(failures: dict[str, str]) -> None:
    parts = [
        "# Performance\n",
        f"Assembled {time.strftime('%Y-%m-%d')} on {machine()}; each section says when it was "
        "measured (`make bench` measures them all in one run). Load is generated on the same "
        "machine over loopback, so client and server share the cores; "
        "compare rows with the bare ASGI baseline measured in the same run. Benchmarks are run by hand, "
        "never as timed assertions in tests. Re-run with `make bench`; each section is produced by "
        "`bench/bench_<name>.py`, the PostgreSQL and one-service sections by the same script with "
        "`--postgres` or `--only` (bench/run_all.py, `variants()`).\n",
    ]
    for name in benchmarks():
        fragment = FRAGMENTS / f"{name}.md"
        if name in failures:
            parts.append(f"## {name}\n\nNot measured in this run: {failures[name]}.\n")
            continue
        if fragment.exists():
            parts.append(fragment.read_text())
        # A fragment kept from an earlier run keeps the plot drawn then (raw figures are not committed).
        image = plot(name) or FRAGMENTS / f"{name}.png"
        if image.exists():
            parts.append(f"![{name}](performance/{image.name})\n")
    (DOCS / "performance.md").write_text("\n".join(parts))


def main() -> None:
    """``run_all.py [name ...]`` runs those benchmarks (default: all), then assembles the document;
    ``run_all.py --assemble`` only assembles it from the fragments already in docs/performance/."""
    only = sys.argv[1:]
    failures: dict[str, str] = {}
    if only == ["--assemble"]:
        assemble(failures)
        print(f"wrote {DOCS / 'performance.md'}")
        return
    for name in benchmarks():
        if only and name not in only:
            continue
        failure = run(name)
        if failure:
            failures[name] = failure
    assemble(failures)
    print(f"wrote {DOCS / 'performance.md'}")


if __name__ == "__main__":
    main()
