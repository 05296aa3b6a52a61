"""Issue 36 on the message router: router administrators hold a permission, not a name; ACL
entries say whether they name an identity or a role; the bridge-admin topic is the platform's,
never adopted; mirror agents connect to no host the bus controller did not register, and verify
HTTPS sources' certificates.

Each test starts routers of its own (live_router), with the users and settings it needs.
"""

from __future__ import annotations

import ssl
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from netplatform.router import create_app
from netplatform.store.db import forget_database

from ..support.databases import migrate, temporary_database
from ..support.receiver import RecordingServer
from ..support.router_calls import drain, publish, router_error
from ..support.servers import LiveServer, http_client
from ..support.tls import TlsFiles
from ..support.waiting import wait_until
from .conftest import ADMIN, Router, live_router, router_settings, topic_name

FAST = {"router_mirror_poll_ms": 300, "router_mirror_retry_s": 0.3}
SETTINGS = "/internal/mirror-settings"
NO_REQUEST_WINDOW_S = 2.0
WRITER = ("alice", "alice-pw")  # router.writer: creates topics, grants on every topic


def agent_messages(name: str, source_url: str, *topics: str) -> list[dict[str, Any]]:
    create = {"name": name, "consumer": "x:9092", "producer": "y:9092", "sourceUrl": source_url}
    whitelist = {"name": name, "whitelist": ",".join(topics)}
    return [{"messageID": "1", "createMirrorMaker": create}, {"messageID": "2", "updateWhiteList": whitelist}]


def agents(client: httpx.Client) -> list[dict[str, Any]]:
    response = client.get("/internal/mirror-agents")
    assert response.status_code == 200, response.text
    listed: list[dict[str, Any]] = response.json()["agents"]
    return listed


def watch_nothing_arrives(server: RecordingServer) -> None:
    """No connection reaches ``server`` for the whole window (an absence: a fixed wait on purpose)."""
    deadline = time.monotonic() + NO_REQUEST_WINDOW_S
    while time.monotonic() < deadline:
        assert server.requests == [], server.headers()
        time.sleep(0.1)


# -- names: identities and roles are distinct kinds ----------------------------------------------------


def test_an_identity_named_platform_admin_is_no_router_admin(tmp_path: Path) -> None:
    """Router administration is the permission platform.router.admin, not a name compare: an
    identity named ``platform.admin`` holding no role administers nothing; a holder of the bus's
    role platform.bus (which holds the permission) does."""
    users = "admin:admin,platform.admin:pa-pw,bus:bus-pw:platform.bus,alice:alice-pw:router.writer"
    impostor, bus = ("platform.admin", "pa-pw"), ("bus", "bus-pw")
    admin_topic = topic_name("bridge-admin")
    with (
        live_router("embedded", tmp_path, users=users, **FAST) as router,
        router.client(impostor) as as_impostor,
        router.client(bus) as as_bus,
        router.client(ADMIN) as admin,
    ):
        theirs = router.create_topic(owner=WRITER)
        refused = router_error(as_impostor.put(f"/topics/{theirs}/producers/platform.admin"), 403)
        assert "only its owner, a router admin or a router.writer may" in refused["message"]
        router_error(as_impostor.put(SETTINGS, json={"adminTopic": admin_topic, "sources": []}), 403)
        # The holder of the permission is one: it grants on any topic and sets the mirror settings.
        assert as_bus.put(f"/topics/{theirs}/producers/bus").status_code == 200
        assert as_bus.put(SETTINGS, json={"adminTopic": admin_topic, "sources": []}).status_code == 200
        refused = router_error(as_impostor.post(f"/events/{admin_topic}", json={"x": 1}), 403)
        assert "only a router admin may" in refused["message"]
        assert admin.put(f"/topics/{admin_topic}/producers/platform.admin").status_code == 200
        router_error(as_impostor.post(f"/events/{admin_topic}", json={"x": 1}), 403)  # an ACL cannot widen it


def test_an_identity_named_like_a_role_does_not_pass_its_acl(tmp_path: Path) -> None:
    """``role:ops`` admits the holders of role ops, not an identity named ops; ``ops`` admits that
    identity, not the role's holders."""
    users = "admin:admin,alice:alice-pw:router.writer,ops:ops-pw,carol:carol-pw:ops"
    named_ops, carol = ("ops", "ops-pw"), ("carol", "carol-pw")
    with (
        live_router("embedded", tmp_path, users=users) as router,
        router.client(WRITER) as alice,
        router.client(named_ops) as as_ops,
        router.client(carol) as as_carol,
    ):
        by_role = router.create_topic(owner=WRITER)
        granted = alice.put(f"/topics/{by_role}/consumers/role:ops")
        assert granted.status_code == 200, granted.text
        assert granted.json()["readerAcl"] == {"enabled": True, "users": ["role:ops"]}
        publish(alice, by_role, ["for the role"])
        router_error(as_ops.get(f"/events/{by_role}/g/1", params={"timeout": 0}), 403)
        assert drain(as_carol, by_role, "g") == ["for the role"]

        by_name = router.create_topic(owner=WRITER)
        assert alice.put(f"/topics/{by_name}/consumers/ops").json()["readerAcl"]["users"] == ["ops"]
        publish(alice, by_name, ["for the identity"])
        router_error(as_carol.get(f"/events/{by_name}/g/1", params={"timeout": 0}), 403)
        assert drain(as_ops, by_name, "g") == ["for the identity"]
        # Both kinds of one name are two entries; revoking one leaves the other.
        assert alice.put(f"/topics/{by_name}/consumers/role:ops").json()["readerAcl"]["users"] == [
            "ops",
            "role:ops",
        ]
        assert alice.delete(f"/topics/{by_name}/consumers/ops").status_code == 204
        assert alice.get(f"/topics/{by_name}").json()["readerAcl"]["users"] == ["role:ops"]
        router_error(alice.put(f"/topics/{by_name}/consumers/role:"), 400)


# -- the bridge-admin topic is the platform's ---------------------------------------------------------


def test_a_writers_topic_is_never_adopted_as_the_bridge_admin_topic(tmp_path: Path) -> None:
    """Issue 36, point 2: a router.writer makes the topic that will be named the bridge-admin topic
    and plants an agent there naming her host. The router refuses the settings naming it (409,
    nothing stored), applies none of her messages, and her host gets no connection, even when it
    is among the sources; once an administrator deletes the topic, the router makes it afresh and
    her messages are gone with the old one."""
    with (
        RecordingServer() as hers,
        live_router("embedded", tmp_path, **FAST) as router,
        router.client(WRITER) as alice,
        router.client(ADMIN) as admin,
    ):
        admin_topic = router.create_topic(owner=WRITER)
        bait = router.create_topic(owner=WRITER)
        assert alice.post(f"/events/{admin_topic}", json=agent_messages("hers", hers.url, bait)).is_success
        refused = router_error(
            admin.put(SETTINGS, json={"adminTopic": admin_topic, "sources": [hers.url]}), 409
        )
        assert refused["message"].startswith(
            f"topic {admin_topic} exists and was not made by this router for the platform (owner alice)"
        )
        assert admin.get(SETTINGS).json()["adminTopic"] is None
        assert agents(admin) == []
        watch_nothing_arrives(hers)
        # Deleted by an administrator: the next settings make it afresh, the platform's.
        assert admin.delete(f"/topics/{admin_topic}").status_code == 204
        told = admin.put(SETTINGS, json={"adminTopic": admin_topic, "sources": [hers.url]})
        assert told.status_code == 200, told.text
        assert admin.get(f"/topics/{admin_topic}").json()["owner"] == "svc.mirror"
        router_error(alice.post(f"/events/{admin_topic}", json={"x": 1}), 403)
        router_error(alice.delete(f"/topics/{admin_topic}"), 403)  # not hers, and the platform's
        router_error(alice.put(f"/topics/{admin_topic}/producers/alice"), 403)
        assert agents(admin) == []
        watch_nothing_arrives(hers)


def test_a_configured_bridge_admin_topic_someone_made_is_not_read(tmp_path: Path) -> None:
    """NETPLATFORM_ROUTER_BRIDGE_ADMIN_TOPIC naming a topic a writer made before: the router,
    restarted with it, does not read it, and her agent never runs."""
    admin_topic = topic_name("bridge-admin")
    with RecordingServer() as hers, temporary_database() as database_url:
        with served(tmp_path, database_url, FAST) as url, http_client(url, auth=WRITER) as alice:
            assert alice.post("/topics/create", json={"topicName": admin_topic}).status_code == 200
            bait = topic_name("bait")
            assert alice.post("/topics/create", json={"topicName": bait}).status_code == 200
            assert alice.post(
                f"/events/{admin_topic}", json=agent_messages("hers", hers.url, bait)
            ).is_success
        restarted = {"router_bridge_admin_topic": admin_topic, "router_mirror_sources": hers.url, **FAST}
        with served(tmp_path, database_url, restarted) as url, http_client(url, auth=ADMIN) as admin:
            assert admin.get(SETTINGS).json()["adminTopic"] == admin_topic
            watch_nothing_arrives(hers)
            assert agents(admin) == []


@contextmanager
def served(data_dir: Path, database_url: str | None, overrides: dict[str, Any]) -> Iterator[str]:
    """A router on ``database_url`` (kept between two of them: a restart with other settings)."""
    settings = router_settings("embedded", data_dir, database_url, **overrides)
    migrate(settings)
    try:
        with LiveServer(create_app(settings)) as server:
            yield server.url
    finally:
        forget_database(settings)


# -- mirror agents connect only to registered hosts ------------------------------------------------------


def test_an_agent_never_connects_to_a_host_no_cluster_registers(tmp_path: Path) -> None:
    """Issue 36, point 2: an administrator's own create message naming a host that is not among the
    sources the bus controller told makes nothing connect there; the agent is failing, saying why."""
    admin_topic = topic_name("bridge-admin")
    with (
        RecordingServer() as unregistered,
        live_router("embedded", tmp_path / "edge") as edge,
        live_router("embedded", tmp_path / "central", **FAST) as central,
        central.client(ADMIN) as admin,
    ):
        copied = central.create_topic()
        assert admin.put(SETTINGS, json={"adminTopic": admin_topic, "sources": [edge.url]}).status_code == 200
        wait_until(lambda: admin.get(f"/topics/{admin_topic}").status_code == 200)
        assert admin.post(
            f"/events/{admin_topic}", json=agent_messages("stray", unregistered.url, copied)
        ).is_success
        wait_until(lambda: [agent["state"] for agent in agents(admin)] == ["failing"], timeout=10)
        (agent,) = agents(admin)
        assert agent["lastError"] == (
            f"the source {unregistered.url} is not the router of a cluster the bus controller "
            "registers: an agent connects to no other host"
        )
        watch_nothing_arrives(unregistered)


@pytest.mark.parametrize("trusted", [False, True], ids=["unknown-ca", "ca-bundle"])
def test_an_agent_verifies_an_https_sources_certificate(tmp_path: Path, tls: TlsFiles, trusted: bool) -> None:
    """An HTTPS source whose certificate no trusted CA signed: the agent fails verifying it and copies
    nothing; with the deployment's CA in NETPLATFORM_ROUTER_MIRROR_CA_BUNDLE it copies."""
    admin_topic, copied = topic_name("bridge-admin"), topic_name("copied")
    bundle = {"router_mirror_ca_bundle": tls.ca_bundle} if trusted else {}
    with (
        https_router(tmp_path / "edge", tls) as edge,
        http_client(
            edge.url, auth=ADMIN, verify=ssl.create_default_context(cafile=str(tls.ca_bundle))
        ) as at_edge,
        live_router("embedded", tmp_path / "central", **bundle, **FAST) as central,
        central.client() as admin,
    ):
        for client in (at_edge, admin):
            assert client.post("/topics/create", json={"topicName": copied}).status_code == 200
        publish(at_edge, copied, ["over tls"])
        assert admin.put(SETTINGS, json={"adminTopic": admin_topic, "sources": [edge.url]}).status_code == 200
        wait_until(lambda: admin.get(f"/topics/{admin_topic}").status_code == 200)
        assert admin.post(f"/events/{admin_topic}", json=agent_messages("tls", edge.url, copied)).is_success
        expected = "running" if trusted else "failing"
        wait_until(lambda: [agent["state"] for agent in agents(admin)] == [expected], timeout=15)
        if trusted:
            assert drain(admin, copied, "check") == ["over tls"]
        else:
            assert "CERTIFICATE_VERIFY_FAILED" in (agents(admin)[0]["lastError"] or "")
            assert drain(admin, copied, "check") == []


@contextmanager
def https_router(data_dir: Path, tls: TlsFiles) -> Iterator[Router]:
    """A router of its own, served over HTTPS with a certificate of the tests' throwaway CA."""
    with temporary_database() as database_url:
        settings = router_settings("embedded", data_dir, database_url)
        migrate(settings)
        try:
            with LiveServer(create_app(settings), ssl=tls.uvicorn_ssl) as server:
                yield Router(server.url, "embedded")
        finally:
            forget_database(settings)
