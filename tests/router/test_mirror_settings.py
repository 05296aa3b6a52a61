"""Mirror settings the bus controller tells a router (issue 24, point 6; issue 36, point 2): the
bridge-admin topic and the sources agents may connect to, stored in its database, followed by its
mirror agents, overridden (the topic) or added to (the sources) by the environment."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx

from netplatform.router import create_app
from netplatform.store.db import forget_database

from ..support.databases import migrate
from ..support.router_calls import drain, publish, router_error
from ..support.servers import LiveServer, http_client
from ..support.waiting import wait_until
from .conftest import ADMIN, ALICE, BOB, NODE, delete_every_topic, live_router, router_settings, topic_name

SETTINGS = "/internal/mirror-settings"
FAST = {"router_mirror_poll_ms": 300, "router_mirror_retry_s": 0.3}
UNSET: dict[str, Any] = {
    "adminTopic": None,
    "configuredAdminTopic": None,
    "adminTopicOverride": False,
    "sourceUser": "svc.mirror",
    "sourceCredentialOverride": False,
    "sources": [],
}


def told(admin_topic: str, *sources: str) -> dict[str, Any]:
    """What the bus controller tells: the bridge-admin topic and its registered clusters' routers."""
    return {"adminTopic": admin_topic, "sources": list(sources)}


def key(url: str) -> str:
    """A source as the router lists it: scheme://host:port."""
    return url.rstrip("/")


def put(client: httpx.Client, body: object) -> dict[str, Any]:
    response = client.put(SETTINGS, json=body)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def current(client: httpx.Client) -> dict[str, Any]:
    response = client.get(SETTINGS)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def listed(client: httpx.Client) -> dict[str, Any]:
    response = client.get("/internal/mirror-agents")
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def create(name: str, source_url: str) -> str:
    return json.dumps({"messageID": "1", "createMirrorMaker": {"name": name, "sourceUrl": source_url}})


def whitelist(name: str, *topics: str) -> str:
    return json.dumps({"messageID": "2", "updateWhiteList": {"name": name, "whitelist": ",".join(topics)}})


def post_admin(client: httpx.Client, admin_topic: str, *messages: str) -> httpx.Response:
    body = "".join(f"{message}\n" for message in messages).encode()
    return client.post(f"/events/{admin_topic}", content=body, headers={"content-type": "text/plain"})


def test_a_router_admin_stores_the_settings_and_no_one_else(tmp_path: Path) -> None:
    admin_topic = topic_name("bridge-admin")
    with (
        live_router("embedded", tmp_path, **FAST) as router,
        router.client(ADMIN) as admin,
        router.client(ALICE) as alice,
        router.client(BOB) as bob,
        router.client(NODE) as node,
        router.client(None) as nobody,
    ):
        assert current(admin) == UNSET
        assert listed(admin) == {"adminTopic": None, "agents": []}
        expected = {
            **UNSET,
            "adminTopic": admin_topic,
            "configuredAdminTopic": admin_topic,
            "sources": ["http://edge.example:8086", "https://central.example:443"],
        }
        # A password an earlier bus controller sent is ignored: nothing of it is stored or answered.
        legacy = {"sourceUser": "node", "sourcePassword": "node-pw"}
        answer = put(
            admin, {**told(admin_topic, "HTTP://Edge.Example:8086/", "https://central.example"), **legacy}
        )
        assert answer == expected and "node-pw" not in json.dumps(answer)
        assert current(node) == expected  # platform.node reads them, like the other internal routes
        # Only a router administrator stores them (alice holds router.writer, node platform.node).
        for someone in (alice, bob, node):
            refused = router_error(someone.put(SETTINGS, json=told("org.example.mine")), 403)
            assert "only a router admin" in refused["message"]
        router_error(bob.get(SETTINGS), 403)
        router_error(nobody.put(SETTINGS, json=told("x")), 401)
        # Malformed: 400 in the router's body, nothing changed.
        for bad in (
            told("not a topic!"),
            told("x" * 250),
            {"sources": ["http://edge.example:8086"]},
            told(admin_topic, "edge.example:8086"),
            told(admin_topic, "ftp://edge.example"),
            told(admin_topic, "http://"),
            told(admin_topic, "http://edge\u0000.example"),
            {"adminTopic": admin_topic, "sources": "http://edge.example:8086"},
            [admin_topic],
            {"adminTopic": 5},
        ):
            router_error(admin.put(SETTINGS, json=bad), 400)
        router_error(admin.put(SETTINGS, content=b"{", headers={"content-type": "application/json"}), 400)
        assert current(admin) == expected
        # The router made the topic it was told, and lists it as its bridge-admin topic.
        assert admin.get(f"/topics/{admin_topic}").json()["owner"] == "svc.mirror"
        assert listed(admin) == {"adminTopic": admin_topic, "agents": []}
        # Empty: no bridge-admin topic, no sources.
        assert put(admin, told("")) == UNSET
        assert listed(admin) == {"adminTopic": None, "agents": []}


def test_the_settings_survive_a_restart(tmp_path: Path, database_url: str | None) -> None:
    admin_topic = topic_name("bridge-admin")
    settings = router_settings("embedded", tmp_path / "var", database_url, **FAST)
    migrate(settings)
    try:
        with LiveServer(create_app(settings)) as first, http_client(first.url, auth=ADMIN) as admin:
            put(admin, told(admin_topic, "http://edge.example:8086"))
        with LiveServer(create_app(settings)) as second, http_client(second.url, auth=ADMIN) as admin:
            assert current(admin)["adminTopic"] == admin_topic
            assert current(admin)["sources"] == ["http://edge.example:8086"]
            wait_until(lambda: admin.get(f"/topics/{admin_topic}").status_code == 200, timeout=10)
            assert listed(admin)["adminTopic"] == admin_topic
            delete_every_topic(second.url)
    finally:
        forget_database(settings)


def test_the_environment_overrides_what_is_stored(tmp_path: Path) -> None:
    env_topic, stored_topic = topic_name("env-admin"), topic_name("stored-admin")
    overrides = {
        "router_bridge_admin_topic": env_topic,
        "router_mirror_sources": "http://env.example:8086",
        "router_mirror_user": "mirror",
        "router_mirror_password": "m-secret",
        **FAST,
    }
    with live_router("embedded", tmp_path, **overrides) as router, router.client(ADMIN) as admin:
        assert current(admin) == {
            "adminTopic": env_topic,
            "configuredAdminTopic": None,
            "adminTopicOverride": True,
            "sourceUser": "mirror",
            "sourceCredentialOverride": True,
            "sources": ["http://env.example:8086"],
        }
        assert put(admin, told(stored_topic, "http://told.example:8086")) == {
            "adminTopic": env_topic,
            "configuredAdminTopic": stored_topic,
            "adminTopicOverride": True,
            "sourceUser": "mirror",
            "sourceCredentialOverride": True,
            "sources": ["http://env.example:8086", "http://told.example:8086"],
        }
        wait_until(lambda: admin.get(f"/topics/{env_topic}").status_code == 200, timeout=10)
        # A fixed wait on purpose: an absence has no condition to await.
        time.sleep(1)  # a few rounds: the stored topic is not the one the router reads
        assert admin.get(f"/topics/{stored_topic}").status_code == 404
        assert listed(admin)["adminTopic"] == env_topic


def test_the_agents_follow_the_admin_topic_they_are_told(engine: str, tmp_path: Path) -> None:
    """The edge-to-central setup with no router setting but the users: the bus controller's PUT
    names the bridge-admin topic and the credential the agents present at the edge."""
    first_topic, second_topic = topic_name("admin-one"), topic_name("admin-two")
    with (
        live_router("embedded", tmp_path / "edge") as edge,
        live_router(engine, tmp_path / "central", **FAST) as central,
        edge.client() as at_edge,
        central.client() as at_central,
        central.client(BOB) as bob,
    ):
        one, two = topic_name("one"), topic_name("two")
        for name in (one, two):
            for client in (at_edge, at_central):
                assert client.post("/topics/create", json={"topicName": name}).status_code == 200
        publish(at_edge, one, ["1a", "1b"])
        publish(at_edge, two, ["2a"])
        put(at_central, told(first_topic, edge.url))
        wait_until(lambda: at_central.get(f"/topics/{first_topic}").status_code == 200, timeout=10)
        router_error(post_admin(bob, first_topic, create("E-To-C", edge.url)), 403)  # admins only
        assert post_admin(
            at_central, first_topic, create("E-To-C", edge.url), whitelist("E-To-C", one)
        ).is_success
        assert collect(at_central, one, 2) == ["1a", "1b"]
        # Another topic: the reader moves there; the restriction moves with it.
        put(at_central, told(second_topic, edge.url))
        wait_until(lambda: at_central.get(f"/topics/{second_topic}").status_code == 200, timeout=10)
        assert listed(at_central)["adminTopic"] == second_topic
        router_error(post_admin(bob, second_topic, whitelist("E-To-C", one, two)), 403)
        # The old topic stays the platform's (the router made it): still for router admins only.
        router_error(post_admin(bob, first_topic, whitelist("E-To-C")), 403)
        assert post_admin(at_central, first_topic, whitelist("E-To-C")).is_success  # not read any more
        assert post_admin(at_central, second_topic, whitelist("E-To-C", one, two)).is_success
        assert collect(at_central, two, 1) == ["2a"]
        # A fixed wait on purpose: an absence has no condition to await: room for bob's message to apply.
        time.sleep(1)
        (agent,) = listed(at_central)["agents"]
        assert agent["whitelist"] == [one, two]  # the message on the old topic was not applied
        # None: no agent runs, and none is listed.
        put(at_central, told(""))
        assert listed(at_central) == {"adminTopic": None, "agents": []}
        publish(at_edge, one, ["1c"])
        # A fixed wait on purpose: an absence has no condition to await: room for a copy, were one made.
        time.sleep(1.5)
        assert drain(at_central, one, "check") == []


def collect(client: httpx.Client, topic: str, expected: int, timeout: float = 30) -> list[str]:
    received: list[str] = []
    deadline = time.monotonic() + timeout
    while len(received) < expected and time.monotonic() < deadline:
        received += drain(client, topic, "check")
    return received


def test_agents_connect_only_to_the_sources_they_are_told(tmp_path: Path) -> None:
    """An agent whose source is no registered cluster's router fails without a connection; once the
    bus controller tells that router as a source, the agent copies from it (presenting svc.mirror,
    which the edge accepts: both routers hold the platform key)."""
    admin_topic = topic_name("bridge-admin")
    with (
        live_router("embedded", tmp_path / "edge") as edge,
        live_router("embedded", tmp_path / "central", **FAST) as central,
        edge.client() as at_edge,
        central.client() as at_central,
    ):
        copied = topic_name("copied")
        for client in (at_edge, at_central):
            assert client.post("/topics/create", json={"topicName": copied}).status_code == 200
        publish(at_edge, copied, ["m"])
        put(at_central, told(admin_topic))
        assert post_admin(
            at_central, admin_topic, create("E-To-C", edge.url), whitelist("E-To-C", copied)
        ).is_success
        wait_until(
            lambda: [agent["state"] for agent in listed(at_central)["agents"]] == ["failing"], timeout=10
        )
        (agent,) = listed(at_central)["agents"]
        assert agent["lastError"] == (
            f"the source {edge.url} is not the router of a cluster the bus controller registers: "
            "an agent connects to no other host"
        )
        # Told later: the agents connect to it from then on.
        put(at_central, told(admin_topic, edge.url))
        assert collect(at_central, copied, 1) == ["m"]
        wait_until(lambda: listed(at_central)["agents"][0]["state"] == "running", timeout=10)
