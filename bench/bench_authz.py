"""What authorization costs the hot reads: the same GETs with it and without it, in one run.

Every service checks each request's declared permission (docs/security.md). This bench measures
the hot reads of bench_goals against this tree, as the bootstrap administrator and as an identity
holding only the services' reader roles, and against a tree from before authorization
(``--against DIR``: its ``src``), all beside the bare Starlette app, in ``make run``'s
configuration (every service in one process, access log on). The "loss" column is
1 - (with / without) for the same row.

Run by hand:
``git archive <commit before authz> src | tar -x -C /tmp/before && .venv/bin/python
bench/bench_authz.py --against /tmp/before/src``. Writes docs/performance/authz.md.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import aiohttp

from bench_goals import ON_BEHALF, bare_app, measure, seed
from common import LoadResult, get, send, serve, write_fragment

SERVICES = ["distribution", "configtree", "policy", "blueprints", "bus"]
READER_ROLES = "|".join(f"{name}.reader" for name in SERVICES)
USERS = f"admin:admin,reader:reader-pw:{READER_ROLES}"
ROWS = ("feed", "config entry", "policy type latest", "blueprint list page", "bus topic list")


def rows(label: str, env: dict[str, str], auth: tuple[str, str]) -> dict[str, LoadResult]:
    served_env = {"NETPLATFORM_USERS": USERS, "NETPLATFORM_ACCESS_LOG": "true", **env}
    with serve(SERVICES, env=served_env) as served:
        targets = seed({name: served.url(name) for name in SERVICES})
        results = {}
        for row in ROWS:
            url = targets[row]
            # The driver's session sends the administrator's header; this one replaces it.
            headers = {
                **(ON_BEHALF if row == "feed" else {}),
                "Authorization": aiohttp.BasicAuth(*auth).encode(),
            }

            async def fetch(session, n, url=url, headers=headers):  # type: ignore[no-untyped-def]
                return await send(session, "GET", url, headers=headers)

            results[row] = measure(f"{row} ({label})", fetch)
        return results


def table(baseline: LoadResult, measured: dict[str, dict[str, LoadResult]]) -> str:
    labels = list(measured)
    head = "| row | " + " | ".join(f"{label} req/s (ratio, p99)" for label in labels)
    lines = [head + " | loss as admin | loss as reader |", "|---" * (len(labels) + 3) + "|"]
    for row in ROWS:
        cells = []
        for label in labels:
            result = measured[label][row]
            ratio = result.rps / baseline.rps
            cells.append(f"{result.rps:,.0f} ({ratio:.2f}, {result.p99_ms:.1f} ms)")
        losses = [_loss(measured, row, who) for who in ("admin", "reader")]
        lines.append(f"| {row} | " + " | ".join(cells) + " | " + " | ".join(losses) + " |")
    return "\n".join(lines) + "\n"


def _loss(measured: dict[str, dict[str, LoadResult]], row: str, who: str) -> str:
    before = measured.get("without authorization")
    after = measured.get(f"with authorization, {who}")
    if before is None or after is None:
        return "-"
    return f"{1 - after[row].rps / before[row].rps:+.0%}"


def main(against: Path | None) -> None:
    with bare_app() as url:
        baseline = measure("bare app", get(url))
    measured: dict[str, dict[str, LoadResult]] = {}
    if against is not None:
        measured["without authorization"] = rows(
            "without authorization",
            {"PYTHONPATH": f"{against}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"},
            ("admin", "admin"),
        )
    measured["with authorization, admin"] = rows("with authorization, admin", {}, ("admin", "admin"))
    measured["with authorization, reader"] = rows("with authorization, reader", {}, ("reader", "reader-pw"))
    body = (
        f"Bare app: {baseline.rps:,.0f} req/s. Every service in one process, access log on, "
        f'32 connections, 5 s a row. "without authorization" is the tree at `{against}` '
        "(before the permission checks landed), measured in the same run.\n\n" + table(baseline, measured)
    )
    path = write_fragment("authz", "Authorization: hot reads with and without it", body)
    print(path.read_text())


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--against", type=Path, default=None, help="src/ of a tree before authorization")
    args = parser.parse_args()
    main(args.against)
