"""Config deploy: one workflow run deploying a resolved configuration to 1 device, then to 10.

Run by hand: ``.venv/bin/python bench/bench_deploy.py [runs]`` (root; Debian's netconfd and
sshd installed, ``.ci/netconfd``). Starts 10 NETCONF devices (netconfd behind a private sshd each,
tests/support/netconf_devices.py) and ``netplatform serve --only blueprints`` with
NETPLATFORM_DEPLOY_CONCURRENCY=10, saves the test suite's deploy CBA, adds the devices to the
inventory (password login, host key pinned), stores two renderings (config-assign), then times
sync ``config-deploy`` runs that alternate between them, so every run changes each device's
running configuration: ``runs`` runs (default 6) to one device, then as many to all ten, after
a first run of each that opens the devices' sessions. Each run is the whole deploy of every
device: the kept NETCONF session probed (NETPLATFORM_DEPLOY_SESSION_IDLE_S, default 60 s), lock
candidate and running, discard, get-config, edit-config (test-then-set), get-config candidate,
commit, get-config running, unlock. The same runs are then measured with the sessions not kept
(NETPLATFORM_DEPLOY_SESSION_IDLE_S=0: SSH connect and login, and close, in every deploy), for
comparison. Every answer must be 200.

The goal (issue 39): the 10-device run takes less than 3 times the 1-device run (devices are
deployed in parallel). Prints the figures and writes docs/performance/deploy.md.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from common import AUTH, ROOT, serve, tree_cpu_s, write_fragment

sys.path.insert(0, str(ROOT))

from tests.blueprints.deploy.conftest import BLUEPRINT, deploy_cba
from tests.support.cbas import PROCESS, execution
from tests.support.netconf_devices import NetconfDevice, missing, netconf_devices

DEVICES = 10
GOAL_RATIO = 3.0


def run_deploy(client: httpx.Client, key: str, devices: list[str]) -> tuple[float, dict[str, Any]]:
    request = execution(BLUEPRINT, "config-deploy", {"resolution-key": key, "device": devices})
    started = time.perf_counter()
    answer = client.post(PROCESS, json=request, timeout=300)
    elapsed = time.perf_counter() - started
    if answer.status_code != 200:
        raise SystemExit(f"deploy to {devices} answered {answer.status_code}: {answer.text[:500]}")
    result: dict[str, Any] = answer.json()["payload"]["config-deploy-response"]["result"]
    return elapsed, result


@dataclass
class Measured:
    walls: list[float]  # s, per run
    per_device: list[int]  # ms, each device's deploy in every run
    cpu_s: float  # the serving process's CPU over all the runs
    load: float  # the 1-minute load average at the end
    first: float  # s, the first run (not in walls): the devices' sessions opened

    @property
    def median(self) -> float:
        return statistics.median(self.walls)

    def row(self, devices: int) -> str:
        walls = self.walls
        return (
            f"| {devices} | {len(walls)} | {self.median * 1000:.0f} ms ({min(walls) * 1000:.0f}-"
            f"{max(walls) * 1000:.0f}) | {statistics.median(self.per_device):.0f} ms "
            f"({max(self.per_device)}) | {self.cpu_s / len(walls) * 1000:.0f} ms | {self.load:.1f} |"
        )


def measure(client: httpx.Client, pid: int, devices: list[str], runs: int) -> Measured:
    """``runs`` runs, after one to warm up (the CBA opened, the first connections made)."""
    first, _ = run_deploy(client, "b", devices)
    walls: list[float] = []
    per_device: list[int] = []
    cpu = tree_cpu_s(pid)
    for number in range(runs):
        elapsed, result = run_deploy(client, "a" if number % 2 == 0 else "b", devices)
        walls.append(elapsed)
        per_device.extend(int(r["durationMs"]) for r in result["devices"])
    return Measured(walls, per_device, tree_cpu_s(pid) - cpu, os.getloadavg()[0], first)


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 6
    why = missing()
    if why is not None:
        raise SystemExit(why)
    with netconf_devices(DEVICES) as devices:
        kept = measure_service(devices, runs, {})
        not_kept = measure_service(devices, runs, {"NETPLATFORM_DEPLOY_SESSION_IDLE_S": "0"})
    report(kept, not_kept)


def measure_service(
    devices: list[NetconfDevice], runs: int, settings: dict[str, str]
) -> tuple[Measured, Measured]:
    """The 1-device and 10-device runs of a catalog started with ``settings``."""
    env = {"NETPLATFORM_DEPLOY_CONCURRENCY": str(DEVICES), **settings}
    with (
        serve(["blueprints"], env) as served,
        httpx.Client(base_url=served.url("blueprints"), headers=AUTH, timeout=60) as client,
    ):
        saved = client.post("/api/v1/blueprint-model", files={"file": ("cba.zip", deploy_cba())})
        assert saved.status_code == 200, saved.text
        for device in devices:
            assert client.post("/api/v1/devices", json=device.inventory_entry()).status_code == 201
        for key in ("a", "b"):
            properties = {"if-name": "eth0", "description": f"bench {key} {uuid.uuid4().hex[:6]}"}
            assign = execution(
                BLUEPRINT,
                "config-assign",
                {"resolution-key": key, "config-assign-properties": properties},
            )
            assert client.post(PROCESS, json=assign).status_code == 200
        one = measure(client, served.process.pid, [devices[0].name], runs)
        ten = measure(client, served.process.pid, [d.name for d in devices], runs)
    return one, ten


def report(kept: tuple[Measured, Measured], not_kept: tuple[Measured, Measured]) -> None:
    one, ten = kept
    ratio = ten.median / one.median
    old_ratio = not_kept[1].median / not_kept[0].median
    verdict = "met" if ratio < GOAL_RATIO else "NOT met"
    body = "\n".join(
        [
            "Sync `config-deploy` runs of the test suite's CBA (one ietf-interfaces entry, changed by",
            "every run) to real NETCONF devices: Debian's netconfd (yuma123 2.13) behind a private",
            f"sshd each, on this machine; `NETPLATFORM_DEPLOY_CONCURRENCY={DEVICES}`, SQLite.",
            "`bench/bench_deploy.py`. The devices run on the same 2 cores as the platform and the",
            "client. Each device's NETCONF session is kept open between deploys (the default,",
            "`NETPLATFORM_DEPLOY_SESSION_IDLE_S=60`): the measured runs follow a first run that opened",
            "the sessions, and each deploy starts with the kept session's probe.",
            "",
            "| devices | runs | run wall time, median (min-max) | one device's deploy, median (max)"
            " | platform CPU per run | load average |",
            "|---:|---:|---|---|---:|---:|",
            one.row(1),
            ten.row(DEVICES),
            "",
            f"The {DEVICES}-device run takes {ratio:.2f}x the 1-device run: the goal (< {GOAL_RATIO:g}x) is"
            f" {verdict} in this run. The first runs, which opened the sessions, took"
            f" {one.first * 1000:.0f} ms (1 device) and {ten.first * 1000:.0f} ms ({DEVICES}).",
            "",
            "The same runs with the sessions not kept (`NETPLATFORM_DEPLOY_SESSION_IDLE_S=0`: each",
            "deploy is a new SSH connection, sshd's key exchange, login and a netconf-subsystem",
            "process, which costs the device side far more CPU than the platform):",
            "",
            "| devices | runs | run wall time, median (min-max) | one device's deploy, median (max)"
            " | platform CPU per run | load average |",
            "|---:|---:|---|---|---:|---:|",
            not_kept[0].row(1),
            not_kept[1].row(DEVICES),
            "",
            f"Without kept sessions the {DEVICES}-device run takes {old_ratio:.2f}x the 1-device run.",
        ]
    )
    print(body)
    path: Path = write_fragment("deploy", "Config deploy over NETCONF", body)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
