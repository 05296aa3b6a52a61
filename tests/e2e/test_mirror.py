"""Mirror agents between two `netplatform serve --only router` processes (issue 14, section 2).

An edge router and a central router, each with its own data directory and database (SQLite
files, or two PostgreSQL databases with NETPLATFORM_TEST_DATABASE_URL). The central router is
told by its bridge-admin topic to mirror a topic from the edge; 500 messages published at the
edge arrive at the central router in order, none lost although the central process is killed
(SIGKILL) midway and restarted. Duplicates are allowed as at least once permits: the order of
first appearances must be the publish order.
"""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

import httpx

from ..support.databases import temporary_database
from ..support.servers import ServeProcess, free_port
from ..support.waiting import wait_until

ADMIN_TOPIC = "org.example.bus.admin"
# The central router's agents read the edge as "mirror", which holds platform.node there.
USERS = "admin:admin,mirror:m-secret:platform.node"
MIRROR_CREDENTIAL = {"router_mirror_user": "mirror", "router_mirror_password": "m-secret"}
TOPIC = "org.example.bus.lab1.alarms"
TOTAL = 500
BATCH = 25


def router_process(
    name: str, tmp_path: Path, database_url: str | None, port: int, **extra: str
) -> ServeProcess:
    data_dir = tmp_path / f"{name}-data"
    env = {
        "NETPLATFORM_ROUTER_PORT": str(port),
        "NETPLATFORM_DATA_DIR": str(data_dir),
        "NETPLATFORM_DATABASE_URL": database_url or f"sqlite:///{data_dir / 'netplatform.db'}",
        "NETPLATFORM_USERS": USERS,
        "NETPLATFORM_INSTANCE_NAME": name,
        "NETPLATFORM_ACCESS_LOG": "false",
        **{f"NETPLATFORM_{key.upper()}": value for key, value in extra.items()},
    }
    return ServeProcess(env, ["--only", "router"], log_path=tmp_path / f"{name}.log")


def client(port: int) -> httpx.Client:
    return httpx.Client(base_url=f"http://127.0.0.1:{port}", auth=("admin", "admin"), timeout=30)


def read_all(at: httpx.Client) -> list[str]:
    """Every message of TOPIC at a router, through the read route (which consumes nothing)."""
    messages: list[str] = []
    after = 0
    while True:
        response = at.get(f"/internal/mirror/{TOPIC}", params={"after": after, "limit": 1000})
        assert response.status_code == 200, (response.status_code, response.text)
        if not (batch := response.json()):
            break
        messages += [item["message"] for item in batch]
        after = batch[-1]["seq"]
    return messages


def first_appearances(messages: list[str]) -> list[str]:
    return list(dict.fromkeys(messages))


def test_mirrored_messages_survive_a_killed_and_restarted_target(tmp_path: Path) -> None:
    with ExitStack() as stack:
        edge_db = stack.enter_context(temporary_database())
        central_db = stack.enter_context(temporary_database())
        edge_port, central_port = free_port(), free_port()
        edge = router_process("edge", tmp_path, edge_db, edge_port).start(wait_ports=[edge_port])
        tuning = {
            "router_bridge_admin_topic": ADMIN_TOPIC,
            # No bus controller here: the operator names the edge as a source agents may connect to.
            "router_mirror_sources": f"http://127.0.0.1:{edge_port}",
            "router_mirror_poll_ms": "500",
            "router_mirror_retry_s": "0.5",
            **MIRROR_CREDENTIAL,
        }
        central = router_process("central", tmp_path, central_db, central_port, **tuning)
        central.start(wait_ports=[central_port])
        try:
            run(edge_port, central_port, central)
        finally:
            edge_rc, central_rc = edge.stop(), central.stop()
        assert edge_rc == 0, edge.log()
        assert central_rc == 0, central.log()


def run(edge_port: int, central_port: int, central: ServeProcess) -> None:
    sent = [f"message {i:03d}" for i in range(TOTAL)]
    with client(edge_port) as at_edge, client(central_port) as at_central:
        for at in (at_edge, at_central):
            assert at.post("/topics/create", json={"topicName": TOPIC}).status_code == 200
        wait_until(lambda: at_central.get(f"/topics/{ADMIN_TOPIC}").status_code == 200, 20, "the admin topic")
        create = {
            "name": "edge-To-central",
            "consumer": "edge:9092",
            "producer": "central:9092",
            "numStreams": "10",
        }
        admin = [
            {"messageID": "1", "createMirrorMaker": {**create, "sourceUrl": f"http://127.0.0.1:{edge_port}"}},
            {"messageID": "2", "updateWhiteList": {"name": "edge-To-central", "whitelist": TOPIC}},
        ]
        assert at_central.post(f"/events/{ADMIN_TOPIC}", json=admin).json()["count"] == 2
        for start in range(0, TOTAL // 2, BATCH):
            publish(at_edge, sent[start : start + BATCH])
        wait_until(lambda: len(read_all(at_central)) >= BATCH, 20, "the first copies")
    central.kill()  # SIGKILL, midway: whatever was read but not yet recorded is copied again
    with client(edge_port) as at_edge:
        for start in range(TOTAL // 2, TOTAL, BATCH):
            publish(at_edge, sent[start : start + BATCH])
    central.start(wait_ports=[central_port])
    with client(central_port) as at_central:
        wait_until(lambda: len(set(read_all(at_central))) >= TOTAL, 30, "every message at the central router")
        received = read_all(at_central)
    assert first_appearances(received) == sent  # none lost, in order
    assert len(received) < 2 * TOTAL  # a restart copies again at most what was in flight


def publish(at: httpx.Client, messages: list[str]) -> None:
    body = "".join(f"{message}\n" for message in messages)  # text lines: one message each, as sent
    response = at.post(f"/events/{TOPIC}", content=body, headers={"content-type": "text/plain"})
    assert response.status_code == 200 and response.json()["count"] == len(messages), response.text
