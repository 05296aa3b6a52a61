"""What authorization costs the hot reads: the same GETs with it and without it, in one run.

Every service checks each request's declared permission (docs/security.md). This bench serves
two platforms side by side, in ``make run``'s configuration (every service in one process,
access log on): this tree, and a tree from before authorization (``--against DIR``: its
``src``). For each hot read of bench_goals it alternates between them, ROUNDS times: the old
tree as the administrator, this tree as the administrator, this tree as an identity holding only
the services' reader roles, each for SECONDS; a row reports the median of its rounds. Alternating
matters: the two platforms' background work and the machine's drift hit every column alike, where
one block per configuration would put whatever happened during a block into one column only.

Run: ``.venv/bin/python bench/bench_authz.py`` (the old tree is BEFORE, the last commit before
authorization, taken from git), or ``--against DIR`` for another tree's ``src``. Writes
docs/performance/authz.md.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import tempfile
from contextlib import ExitStack
from pathlib import Path

from bench_goals import ON_BEHALF, seed
from common import ROOT, LoadResult, bare_app, drive, get, send, serve, write_fragment

BEFORE = "fc64e38"  # the last commit before the permission checks (issue 23)

SERVICES = ["distribution", "configtree", "policy", "blueprints", "bus"]
READER_ROLES = "|".join(f"{name}.reader" for name in SERVICES)
USERS = f"admin:admin,reader:reader-pw:{READER_ROLES}"
ROWS = ("feed", "config entry", "policy type latest", "blueprint list page", "bus topic list")
COLUMNS = ("without authorization", "with authorization, admin", "with authorization, reader")
CREDENTIALS = {"admin": "YWRtaW46YWRtaW4=", "reader": "cmVhZGVyOnJlYWRlci1wdw=="}  # base64 user:password
ROUNDS = 3
SECONDS = 3.0
CLIENTS = 32


def load(url: str, headers: dict[str, str]) -> LoadResult:
    async def fetch(session, n):  # type: ignore[no-untyped-def]
        return await send(session, "GET", url, headers=headers)

    return asyncio.run(drive(url, fetch, CLIENTS, SECONDS))


def headers_for(row: str, who: str) -> dict[str, str]:
    # The driver's session sends the administrator's header; this one replaces it.
    return {**(ON_BEHALF if row == "feed" else {}), "Authorization": f"Basic {CREDENTIALS[who]}"}


def measure(targets: dict[str, dict[str, str]]) -> dict[str, dict[str, list[LoadResult]]]:
    """targets: column -> row -> URL. Every row, round after round, each column in turn."""
    found: dict[str, dict[str, list[LoadResult]]] = {column: {row: [] for row in ROWS} for column in targets}
    for row in ROWS:
        for _ in range(ROUNDS):
            for column, urls in targets.items():
                who = "reader" if column.endswith("reader") else "admin"
                found[column][row].append(load(urls[row], headers_for(row, who)))
    return found


def median_rps(results: list[LoadResult]) -> float:
    return statistics.median(result.rps for result in results)


def table(baseline: LoadResult, found: dict[str, dict[str, list[LoadResult]]]) -> str:
    head = "| row | " + " | ".join(f"{column}: req/s (ratio), p99" for column in found)
    lines = [head + " | loss as admin | loss as reader |", "|---" * (len(found) + 3) + "|"]
    for row in ROWS:
        cells = []
        for column in found:
            rounds = found[column][row]
            rps = median_rps(rounds)
            p99 = statistics.median(result.p99_ms for result in rounds)
            cells.append(f"{rps:,.0f} ({rps / baseline.rps:.2f}), {p99:.1f} ms")
        losses = [_loss(found, row, column) for column in COLUMNS[1:]]
        lines.append(f"| {row} | " + " | ".join(cells) + " | " + " | ".join(losses) + " |")
    return "\n".join(lines) + "\n"


def _loss(found: dict[str, dict[str, list[LoadResult]]], row: str, column: str) -> str:
    if COLUMNS[0] not in found:
        return "-"
    return f"{1 - median_rps(found[column][row]) / median_rps(found[COLUMNS[0]][row]):+.0%}"


def checkout_before(into: Path) -> Path:
    """BEFORE's ``src`` extracted from git into ``into``."""
    archive = subprocess.run(["git", "archive", BEFORE, "src"], cwd=ROOT, check=True, capture_output=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into / "src"


def main(against: Path | None) -> None:
    with bare_app() as url:
        baseline = asyncio.run(drive("bare app", get(url), CLIENTS, SECONDS))
    env = {"NETPLATFORM_USERS": USERS, "NETPLATFORM_ACCESS_LOG": "true"}
    with ExitStack() as stack:
        now = stack.enter_context(serve(SERVICES, env=env))
        now_targets = seed({name: now.url(name) for name in SERVICES})
        targets = {COLUMNS[1]: now_targets, COLUMNS[2]: now_targets}
        if against is not None:
            path = f"{against}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"
            before = stack.enter_context(serve(SERVICES, env={**env, "PYTHONPATH": path}))
            targets = {COLUMNS[0]: seed({name: before.url(name) for name in SERVICES}), **targets}
        found = measure(targets)
    body = (
        f"Bare app: {baseline.rps:,.0f} req/s. Both platforms served side by side, every service in "
        f"one process, access log on; {CLIENTS} connections; each cell the median of {ROUNDS} rounds "
        f'of {SECONDS:.0f} s, the columns alternating within each round. "without authorization" '
        "is the tree from before the permission checks landed.\n\n" + table(baseline, found)
    )
    fragment = write_fragment("authz", "Authorization: hot reads with and without it", body)
    print(fragment.read_text())


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--against", type=Path, default=None, help="src/ of another tree (default: BEFORE)")
    given = parser.parse_args().against
    with tempfile.TemporaryDirectory() as scratch:
        main(given or checkout_before(Path(scratch)))
