"""The crash loops of bench/chaos, run briefly: two cycles each must lose nothing acknowledged.

Each script starts real `netplatform serve` processes (and, for the PostgreSQL restart, a
private PostgreSQL cluster of its own), kills and restarts them, and exits non-zero when an
acknowledged write was lost, a service answered other than 2xx/503, or did not recover. The
50-cycle runs and their figures are in docs/operations.md ("Faults survived").
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ..support.required import unavailable
from ..support.servers import free_port

ROOT = Path(__file__).resolve().parents[2]
CHAOS = ROOT / "bench" / "chaos"
NATS_URL_ENV = "NETPLATFORM_TEST_NATS_URL"
PORTS_PER_SCRIPT = 40  # more than any script binds (every service, a private PostgreSQL, receivers)

# Each script makes its stores itself (SQLite files in its scratch directory, a private
# PostgreSQL cluster), whatever the suite's database: `make test` runs them, `make test-postgres`
# would only run the same again.
pytestmark = [pytest.mark.slow, pytest.mark.own_stores]


def run_script(script: str, *args: str, timeout: float = 240) -> dict[str, str]:
    """Run a crash loop for two short cycles; its one-line summary as a dict."""
    ports = ",".join(str(free_port()) for _ in range(PORTS_PER_SCRIPT))
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "NETPLATFORM_CHAOS_PORTS": ports}
    done = subprocess.run(
        [sys.executable, str(CHAOS / script), "--cycles", "2", "--load-s", "0.6", *args],
        cwd=CHAOS,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    assert done.returncode == 0, f"{summary}\n{done.stderr[-3000:]}"
    return dict(re.findall(r"(\w+)=(\S+)", summary))


def assert_survived(summary: dict[str, str]) -> None:
    assert summary["cycles"] == "2", summary
    assert summary["lost"] == "0" and summary["unexpected"] == "0", summary
    assert int(summary["acknowledged"]) > 0, summary
    assert float(summary["max_recovery_s"]) > 0, summary


def test_the_router_on_the_embedded_engine_survives_sigkill() -> None:
    assert_survived(run_script("router_crash.py", "--engine", "embedded"))


def test_the_router_on_jetstream_survives_sigkill() -> None:
    url = os.environ.get(NATS_URL_ENV)
    if not url:
        unavailable(f"{NATS_URL_ENV} unset")
    assert_survived(run_script("router_crash.py", "--engine", "jetstream", "--nats-url", url))


def test_a_two_site_forward_survives_the_receiving_node_killed() -> None:
    assert_survived(run_script("distribution_crash.py"))


def test_an_edge_node_on_its_own_store_survives_sigkill_with_central_away_in_one_cycle() -> None:
    """Issue 38: the edge keeps taking files while central is away, and after both are back
    every acknowledged file reaches both subscribers and its log record reaches central once."""
    summary = run_script("edge_crash.py")
    assert_survived(summary)
    assert summary["logs_missing"] == "0" and summary["logs_twice"] == "0", summary


def test_an_edge_router_on_its_own_store_survives_sigkill_with_central_away_in_one_cycle() -> None:
    """Issue 38, messages: the edge router, deciding from its replica of central's directory,
    keeps taking and serving messages while central is away (and after a restart meanwhile);
    every message it acknowledged reaches both consumer groups."""
    summary = run_script("edge_router_crash.py")
    assert_survived(summary)
    assert summary["partitioned"] == "1", summary


def test_every_service_answers_503_through_a_postgresql_restart_and_recovers() -> None:
    if not list(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl")):
        unavailable("no PostgreSQL server binaries under /usr/lib/postgresql/*/bin")
    summary = run_script("postgres_restart.py")
    assert_survived(summary)
    assert summary["outage_answers"].startswith("503:"), summary  # the outage was seen, as 503s
