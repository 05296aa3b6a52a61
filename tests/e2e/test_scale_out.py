"""Two `netplatform serve` processes over one database, each with its own data directory, behave as one.

With NETPLATFORM_TEST_DATABASE_URL set this is the PostgreSQL scale-out deployment; without
it the two processes share one SQLite file (named by NETPLATFORM_DATABASE_URL, outside both
data directories), which must hold up just the same. No directory is shared: each node keeps
the files published to it in its own spool and delivers them itself (spec 1.3).
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

from ..distribution.conftest import FAST_DELIVERY
from ..support.distribution_calls import create_feed, create_subscription, files_held, publish
from ..support.receiver import Receiver
from ..support.servers import ServeProcess, free_port
from ..support.tls import TlsFiles

SERVICES = ("distribution", "policy", "configtree")
POLICY_TYPES = "/policy/api/v1/policytypes"
BRG = "/config/GENERIC-RESOURCE-API:brg-allotted-resources/GENERIC-RESOURCE-API:brg-allotted-resource"


def start_instance(
    name: str, tmp_path: Path, database_url: str | None, tls: TlsFiles
) -> tuple[ServeProcess, dict[str, Any]]:
    ports = {service: free_port() for service in SERVICES}
    env = {
        **{f"NETPLATFORM_{service.upper()}_PORT": str(port) for service, port in ports.items()},
        "NETPLATFORM_DATA_DIR": str(tmp_path / f"{name}-data"),
        "NETPLATFORM_DATABASE_URL": database_url or f"sqlite:///{tmp_path / 'shared.db'}",
        "NETPLATFORM_USERS": "admin:admin",
        "NETPLATFORM_INSTANCE_NAME": name,
        "NETPLATFORM_DELIVERY_CA_BUNDLE": str(tls.ca_bundle),
        "NETPLATFORM_ACCESS_LOG": "false",
        **{f"NETPLATFORM_{key.upper()}": str(value) for key, value in FAST_DELIVERY.items()},
    }
    args = [arg for service in SERVICES for arg in ("--only", service)]
    process = ServeProcess(env, args, log_path=tmp_path / f"{name}.log").start(
        wait_ports=list(ports.values())
    )
    return process, {service: f"http://127.0.0.1:{port}" for service, port in ports.items()}


def spooled_files(data_dir: Path) -> list[Path]:
    blobs = data_dir / "blobs"
    return [path for path in blobs.rglob("*") if path.is_file()] if blobs.exists() else []


def client(url: str) -> httpx.Client:
    return httpx.Client(base_url=url, auth=("admin", "admin"), timeout=30)


def policy_type(name: str) -> dict[str, Any]:
    return {
        "tosca_definitions_version": "tosca_simple_yaml_1_1_0",
        "policy_types": {
            name: {
                "derived_from": "tosca.policies.Root",
                "version": "1.0.0",
                "properties": {"k": {"type": "string"}},
            }
        },
    }


def test_two_instances_over_one_store_act_as_one(
    tmp_path: Path, database_url: str | None, tls: TlsFiles, receiver: Receiver
) -> None:
    first, a = start_instance("node-a", tmp_path, database_url, tls)
    second, b = start_instance("node-b", tmp_path, database_url, tls)
    try:
        # What one instance creates, the other reads.
        with client(a["policy"]) as via_a, client(b["policy"]) as via_b:
            assert via_a.post(POLICY_TYPES, json=policy_type("scale.Probe")).status_code == 200
            read = via_b.get(f"{POLICY_TYPES}/scale.Probe/versions/1.0.0")
            assert read.status_code == 200
            assert "scale.Probe" in read.json()["policy_types"]
        entry = {"GENERIC-RESOURCE-API:brg-allotted-resource": [{"allotted-resource-id": "ar-1"}]}
        with client(b["configtree"]) as via_b, client(a["configtree"]) as via_a:
            assert via_b.put(f"{BRG}/ar-1/", json=entry).status_code == 201
            assert via_a.get(f"{BRG}/ar-1/").json() == entry

        # Files published through both instances reach the subscriber exactly once each.
        with client(a["distribution"]) as via_a, client(b["distribution"]) as via_b:
            feed_id, _ = create_feed(via_a)
            create_subscription(via_b, feed_id, url=f"{receiver.url}/in")
        names = [f"file-{index:03d}.csv" for index in range(40)]
        # Every fourth body is over 64 KiB: spooled in a blob; the others are kept in their file row.
        bodies = {name: name.encode() * (6000 if index % 4 == 0 else 1) for index, name in enumerate(names)}
        for index, name in enumerate(names):
            base = a["distribution"] if index % 2 else b["distribution"]
            assert publish(base, feed_id, name, bodies[name]).status_code == 204
        delivered = receiver.wait_for(len(names), timeout=120)
        # A fixed wait on purpose: an absence has no condition to await.
        time.sleep(1)  # room for a duplicate to show up, were any claimed twice
        assert len(receiver.requests) == len(names)
        counts = Counter(request.path.rsplit("/", 1)[1] for request in delivered)
        assert set(counts) == set(names)
        assert max(counts.values()) == 1, counts.most_common(3)
        for request in delivered:
            assert request.body == bodies[request.path.rsplit("/", 1)[1]]
        for name in ("node-a", "node-b"):  # each node removed what it delivered from its own spool
            assert spooled_files(tmp_path / f"{name}-data") == [], name
        assert files_held(database_url or f"sqlite:///{tmp_path / 'shared.db'}") == []
    finally:
        assert first.stop() == 0, first.log()
        assert second.stop() == 0, second.log()
