"""Nothing acknowledged is lost: SIGKILL and restart, and several instances over one queue."""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path

import httpx

from netplatform.distribution.publishing import INLINE_BODY_MAX

from ..conftest import ServiceStarter, SettingsFactory
from ..support.distribution_calls import create_feed, create_subscription, publish
from ..support.receiver import Receiver
from ..support.servers import ServeProcess, free_port
from ..support.tls import TlsFiles
from ..support.waiting import wait_until
from .conftest import FAST_DELIVERY


def serve_distribution(tmp_path: Path, database_url: str | None, tls: TlsFiles, port: int) -> ServeProcess:
    env = {
        "NETPLATFORM_DISTRIBUTION_PORT": str(port),
        "NETPLATFORM_DATA_DIR": str(tmp_path / "data"),
        "NETPLATFORM_USERS": "admin:admin",
        "NETPLATFORM_INSTANCE_NAME": "crashy",
        "NETPLATFORM_DELIVERY_CA_BUNDLE": str(tls.ca_bundle),
        "NETPLATFORM_DELIVERY_LEASE_S": "2",
        "NETPLATFORM_ACCESS_LOG": "false",
        **{f"NETPLATFORM_{key.upper()}": str(value) for key, value in FAST_DELIVERY.items()},
    }
    if database_url:
        env["NETPLATFORM_DATABASE_URL"] = database_url
    return ServeProcess(env, ["--only", "distribution"], log_path=tmp_path / "serve.log")


def test_sigkill_after_204_loses_no_acknowledged_file(
    tmp_path: Path, database_url: str | None, tls: TlsFiles, subscriber: Receiver
) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    process = serve_distribution(tmp_path, database_url, tls, port).start(wait_ports=[port])
    with httpx.Client(base_url=url, auth=("admin", "admin")) as client:
        feed_id, _ = create_feed(client)
        create_subscription(client, feed_id, subscriber.url + "/in")
    acknowledged: dict[str, bytes] = {}
    killed = threading.Event()

    def publish_until_killed() -> None:
        for n in range(200):
            # Every fourth body too large to be kept in its file row: spooled as a blob.
            name, data = f"file-{n}", os.urandom(1000 + n + (INLINE_BODY_MAX if n % 4 == 3 else 0))
            try:
                response = publish(url, feed_id, name, data)
            except httpx.HTTPError:
                return
            if response.status_code == 204:
                acknowledged[name] = data
            if len(acknowledged) == 25:
                assert process.process is not None
                os.kill(process.process.pid, signal.SIGKILL)
                killed.set()

    publisher = threading.Thread(target=publish_until_killed)
    publisher.start()
    publisher.join(timeout=120)
    assert killed.is_set(), process.log()
    process.process.wait(timeout=30)  # type: ignore[union-attr]
    restarted = serve_distribution(tmp_path, database_url, tls, port).start(wait_ports=[port])
    try:
        # Every acknowledged file, counted once: a file delivered before the kill and not yet
        # marked delivered comes again after the restart (at least once), and counting such
        # duplicates stopped the wait before the last files arrived.
        wait_until(
            lambda: acknowledged.keys() <= {r.path.removeprefix("/in/") for r in list(subscriber.requests)},
            60,
            "every acknowledged file at the subscriber",
        )
        received = {r.path.removeprefix("/in/"): r.body for r in subscriber.requests}
        for name, data in acknowledged.items():
            assert received[name] == data, name
    finally:
        assert restarted.stop() == 0, restarted.log()


def test_two_nodes_over_one_database_deliver_each_file_once_in_order_per_node(
    make_settings: SettingsFactory,
    start_service: ServiceStarter,
    tls: TlsFiles,
    subscriber: Receiver,
    tmp_path: Path,
) -> None:
    common = {"delivery_ca_bundle": tls.ca_bundle, **FAST_DELIVERY}
    first = start_service("distribution", make_settings(instance_name="dist-a", **common))
    # Its own data dir (spool), the same database (spec 1.3: node-local spools).
    shared_database = first.settings.effective_database_url
    second = start_service(
        "distribution",
        make_settings(
            instance_name="dist-b", data_dir=tmp_path / "var-b", database_url=shared_database, **common
        ),
    )
    with first.client() as client:
        feed_id, _ = create_feed(client)
        for n in range(4):
            create_subscription(client, feed_id, f"{subscriber.url}/sub{n}")
    names = [f"f{n}" for n in range(10)]
    for index, name in enumerate(names):
        instance = first if index % 2 else second
        response = publish(instance.url, feed_id, name, name.encode())
        assert response.headers["X-BUS-DR-PUBLISH-ID"].endswith(".dist-a" if index % 2 else ".dist-b")
    subscriber.wait_for(len(names) * 4)
    paths = sorted(r.path for r in subscriber.requests)
    assert paths == sorted(f"/sub{n}/{name}" for n in range(4) for name in names)
    for n in range(4):
        in_order = [r.path.rsplit("/", 1)[1] for r in subscriber.requests if r.path.startswith(f"/sub{n}/")]
        # Each node delivers the files it received, in publish order (no order across nodes).
        for parity in (0, 1):
            assert [name for name in in_order if int(name[1:]) % 2 == parity] == names[parity::2]
