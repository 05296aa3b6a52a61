"""Mirror agents: admin messages on the bridge-admin topic define them, and they copy topics.

The state tests drive the MirrorAgents service object on this test's database. The copy tests
run two live routers: a source (embedded, its own database) and a target on each engine whose
bridge-admin topic gets the bus controller's messages (reference 8).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

from netplatform.router.mirror_agents import ADMIN_READER, MirrorAgents
from netplatform.router.repository.mirrors import CopyStatus, MirrorAgent, TopicProgress
from netplatform.settings import Settings
from netplatform.store.db import database_for

from ..support.databases import migrate
from ..support.router_calls import drain, publish
from ..support.servers import free_port
from ..support.waiting import wait_until
from .conftest import BOB, CAROL, NODE, live_router, topic_name

ADMIN_TOPIC = "org.example.bus.admin"
# The credential the central router's agents present at the edge, where node holds platform.node.
MIRROR_CREDENTIAL = {"router_mirror_user": NODE[0], "router_mirror_password": NODE[1]}


def create(name: str, source_url: str) -> str:
    body = {"name": name, "consumer": "edge:9092", "producer": "central:9092", "numStreams": "10"}
    return json.dumps({"messageID": "1", "createMirrorMaker": {**body, "sourceUrl": source_url}})


def whitelist(name: str, *topics: str) -> str:
    return json.dumps({"messageID": "2", "updateWhiteList": {"name": name, "whitelist": ",".join(topics)}})


# -- admin messages, on the database ------------------------------------------------------------


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_admin_messages_define_agents_in_order(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    migrate(settings)
    agents = MirrorAgents(database_for(settings), "test", lease_s=15)
    caplog.set_level(logging.INFO, "netplatform.router")
    outcomes = [
        await agents.apply(ADMIN_TOPIC, 1, whitelist("E-To-C", "t1")),
        await agents.apply(ADMIN_TOPIC, 2, create("E-To-C", "http://edge.example:8086/")),
        await agents.apply(ADMIN_TOPIC, 3, whitelist("E-To-C", "t1", "t2", "t1", "")),
        await agents.apply(ADMIN_TOPIC, 4, "not json at all"),
        await agents.apply(ADMIN_TOPIC, 5, json.dumps({"messageID": "3", "somethingElse": {}})),
        await agents.apply(ADMIN_TOPIC, 6, json.dumps({"createMirrorMaker": {"name": "x"}})),  # no sourceUrl
        await agents.apply(
            ADMIN_TOPIC, 7, json.dumps({"createMirrorMaker": {"name": 5, "sourceUrl": "ftp://x"}})
        ),
        await agents.apply(ADMIN_TOPIC, 8, json.dumps([1, 2])),
    ]
    assert outcomes[:3] == ["unknown agent", "created, source http://edge.example:8086", "whitelist t1,t2"]
    assert outcomes[3:] == ["malformed"] * 5
    assert await agents.agents() == [MirrorAgent("E-To-C", "http://edge.example:8086", ("t1", "t2"))]
    assert await agents.position(ADMIN_READER, ADMIN_TOPIC) == 8  # every message, applied or not, is done
    warnings = [record.getMessage() for record in caplog.records if record.levelno == logging.WARNING]
    assert len(warnings) == 6 and "unknown agent" in warnings[0] and "ignored" in warnings[1]


@pytest.mark.anyio
async def test_a_new_source_starts_the_agents_topics_afresh(settings: Settings) -> None:
    migrate(settings)
    agents = MirrorAgents(database_for(settings), "test", lease_s=15)
    await agents.apply(ADMIN_TOPIC, 1, create("A", "http://one:8086"))
    await agents.apply(ADMIN_TOPIC, 2, whitelist("A", "t"))
    await agents.advance("A", "t", 40)
    await agents.advance("A", "t", 30)  # never backwards
    assert await agents.position("A", "t") == 40
    assert await agents.apply(ADMIN_TOPIC, 3, create("A", "http://one:8086")) == "unchanged"
    assert await agents.position("A", "t") == 40
    assert (await agents.apply(ADMIN_TOPIC, 4, create("A", "http://two:8086"))).startswith("redefined")
    assert await agents.position("A", "t") == 0
    assert (await agents.agents())[0].whitelist == ("t",)  # the whitelist stays


@pytest.mark.anyio
async def test_one_instance_holds_an_agent_at_a_time(settings: Settings) -> None:
    migrate(settings)
    database = database_for(settings)
    first, second = (
        MirrorAgents(database, "node-a", lease_s=0.5),
        MirrorAgents(database, "node-b", lease_s=15),
    )
    assert await first.claim(["A", "B"]) == ["A", "B"]
    assert await second.claim(["A", "B"]) == []
    assert await first.renew(["A", "B"]) == {"A", "B"}
    await first.release(["B"])
    assert await second.claim(["A", "B"]) == ["B"]
    # A fixed wait on purpose: time passing is the point (a lease).
    await asyncio.sleep(0.7)  # first's lease of A runs out
    assert await second.claim(["A"]) == ["A"]
    assert await first.renew(["A"]) == set()  # first learns it lost A
    await second.release_all()
    assert await first.claim(["A", "B"]) == ["A", "B"]


@pytest.mark.anyio
async def test_statuses_say_which_instance_runs_each_agent(settings: Settings) -> None:
    migrate(settings)
    database = database_for(settings)
    node_a, node_b = (
        MirrorAgents(database, "node-a", lease_s=15),
        MirrorAgents(database, "node-b", lease_s=15),
    )
    await node_a.apply(ADMIN_TOPIC, 1, create("B", "http://one:8086"))
    await node_a.apply(ADMIN_TOPIC, 2, create("A", "http://two:8086"))
    await node_a.apply(ADMIN_TOPIC, 3, whitelist("A", "t1", "t2"))
    assert [(s.agent.name, s.instance, s.positions) for s in await node_b.statuses()] == [
        ("A", None, {}),
        ("B", None, {}),
    ]
    assert await node_a.claim(["A"]) == ["A"]
    await node_a.advance("A", "t2", 7)
    (first, second) = await node_b.statuses()  # any instance reads the same
    assert first.agent == MirrorAgent("A", "http://two:8086", ("t1", "t2"))
    assert (first.instance, first.held, first.positions) == ("node-a", True, {"t2": 7})
    assert (second.instance, second.held, second.state) == (None, False, "waiting")
    # Held, but t1 has had no attempt (and t2's position came without one): starting.
    assert (first.state, first.topic_state("t1"), first.topic_state("t2")) == (
        "starting",
        "starting",
        "starting",
    )
    await node_a.record("A", "t1", 3, CopyStatus(source_head=5, attempted_ms=1000))
    await node_a.record("A", "t2", None, CopyStatus(source_head=9, attempted_ms=2000))
    (first, _) = await node_b.statuses()
    assert (first.state, first.last_error, first.failing_since_ms) == ("running", None, None)
    assert first.progress["t1"] == TopicProgress(3, CopyStatus(5, None, None, 1000))
    await node_a.record("A", "t1", None, CopyStatus(5, "older", 1500, 1500))
    await node_a.record("A", "t2", None, CopyStatus(9, "newer", 2500, 2600))
    (first, _) = await node_b.statuses()
    assert (first.state, first.last_error, first.failing_since_ms) == ("failing", "newer", 1500)
    assert first.topic_state("t1") == "failing"
    begun = await node_a.begin("A", "t1")  # a copy task (re)starts: no attempt yet, head kept
    assert begun == TopicProgress(3, CopyStatus(source_head=5))
    assert (await node_b.statuses())[0].topic_state("t1") == "starting"
    await node_a.release(["A"])
    assert (await node_b.statuses())[0].state == "waiting"


# -- copying between two live routers ------------------------------------------------------------


def post_admin(client: httpx.Client, admin_topic: str, *messages: str) -> None:
    body = "".join(f"{message}\n" for message in messages).encode()
    response = client.post(f"/events/{admin_topic}", content=body, headers={"content-type": "text/plain"})
    assert response.status_code == 200, response.text


def collect(client: httpx.Client, topic: str, expected: int, timeout: float = 30) -> list[str]:
    received: list[str] = []
    deadline = time.monotonic() + timeout
    while len(received) < expected and time.monotonic() < deadline:
        received += drain(client, topic, "check")
    return received


def test_an_agent_copies_its_whitelisted_topics(
    engine: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    admin_topic = topic_name("bridge-admin")
    fast = {
        "router_mirror_poll_ms": 500,
        "router_mirror_retry_s": 0.3,
        "router_bridge_admin_topic": admin_topic,
        **MIRROR_CREDENTIAL,
    }
    caplog.set_level(logging.INFO, "netplatform.router")
    down = f"http://127.0.0.1:{free_port()}"
    with (
        live_router("embedded", tmp_path / "edge") as edge,
        live_router(
            engine, tmp_path / "central", **fast, router_mirror_sources=f"{edge.url},{down}"
        ) as central,
        edge.client() as at_edge,
        central.client() as at_central,
    ):
        wait_until(lambda: at_central.get(f"/topics/{admin_topic}").status_code == 200)  # made by the router
        copied, ignored = topic_name("copied"), topic_name("ignored")
        for name in (copied, ignored):
            for client in (at_edge, at_central):
                assert client.post("/topics/create", json={"topicName": name}).status_code == 200
        # The agent reads with platform.node: a reader ACL that does not name it changes nothing.
        assert at_edge.put(f"/topics/{copied}/consumers/carol").status_code == 200
        publish(at_edge, copied, [f"early {i}" for i in range(30)])
        publish(at_edge, ignored, ["not whitelisted"])
        # Down first: an agent whose source answers nothing retries, and the router carries on.
        post_admin(at_central, admin_topic, "garbage", whitelist("nobody", copied))
        post_admin(at_central, admin_topic, create("E-To-C", down))
        post_admin(at_central, admin_topic, whitelist("E-To-C", copied))
        wait_until(lambda: any("failed (retrying" in record.getMessage() for record in caplog.records))
        post_admin(at_central, admin_topic, create("E-To-C", edge.url))
        publish(at_edge, copied, [f"late {i}" for i in range(1200)])  # more than one copy batch
        expected = [*(f"early {i}" for i in range(30)), *(f"late {i}" for i in range(1200))]
        assert collect(at_central, copied, len(expected)) == expected
        assert drain(at_central, ignored, "check") == []
        with edge.client(CAROL) as carol:  # reading consumed nothing at the edge
            assert drain(carol, copied, "edge-group") == expected
    messages = [record.getMessage() for record in caplog.records]
    assert any("ignored admin message" in message for message in messages)
    assert any("unknown agent" in message for message in messages)


def test_whitelist_updates_add_and_remove_topics(tmp_path: Path) -> None:
    admin_topic = topic_name("bridge-admin")
    fast = {
        "router_mirror_poll_ms": 300,
        "router_mirror_retry_s": 0.3,
        "router_bridge_admin_topic": admin_topic,
        **MIRROR_CREDENTIAL,
    }
    with (
        live_router("embedded", tmp_path / "edge") as edge,
        live_router("embedded", tmp_path / "central", **fast, router_mirror_sources=edge.url) as central,
        edge.client() as at_edge,
        central.client() as at_central,
    ):
        wait_until(lambda: at_central.get(f"/topics/{admin_topic}").status_code == 200)
        one, two = topic_name("one"), topic_name("two")
        for name in (one, two):
            for client in (at_edge, at_central):
                assert client.post("/topics/create", json={"topicName": name}).status_code == 200
        name = f"E-To-C-{uuid.uuid4().hex[:6]}"
        post_admin(at_central, admin_topic, create(name, edge.url), whitelist(name, one))
        publish(at_edge, one, ["1a"])
        publish(at_edge, two, ["2a"])
        assert collect(at_central, one, 1) == ["1a"]
        post_admin(at_central, admin_topic, whitelist(name, two))
        assert collect(at_central, two, 1) == ["2a"]
        publish(at_edge, one, ["1b"])
        # A fixed wait on purpose: an absence has no condition to await: room for a copy, were one made.
        time.sleep(1.5)
        assert drain(at_central, one, "check") == []  # no longer copied


def listed(client: httpx.Client) -> dict[str, Any]:
    response = client.get("/internal/mirror-agents")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def test_the_router_lists_the_agents_it_runs(engine: str, tmp_path: Path) -> None:
    admin_topic = topic_name("bridge-admin")
    fast = {
        "router_mirror_poll_ms": 300,
        "router_mirror_retry_s": 0.3,
        "router_bridge_admin_topic": admin_topic,
        **MIRROR_CREDENTIAL,
    }
    with (
        live_router("embedded", tmp_path / "edge") as edge,
        live_router(engine, tmp_path / "central", **fast, router_mirror_sources=edge.url) as central,
        edge.client() as at_edge,
        central.client() as at_central,
    ):
        # A router without a bridge-admin topic runs none, whatever is posted anywhere.
        assert listed(at_edge) == {"adminTopic": None, "agents": []}
        wait_until(lambda: at_central.get(f"/topics/{admin_topic}").status_code == 200)
        assert listed(at_central) == {"adminTopic": admin_topic, "agents": []}
        with central.client(BOB) as bob, central.client(None) as nobody, central.client(NODE) as node:
            assert bob.get("/internal/mirror-agents").status_code == 403  # platform.node only
            assert nobody.get("/internal/mirror-agents").status_code == 401
            assert listed(node) == {"adminTopic": admin_topic, "agents": []}

        copied = topic_name("copied")
        for client in (at_edge, at_central):
            assert client.post("/topics/create", json={"topicName": copied}).status_code == 200
        publish(at_edge, copied, ["a", "b", "c"])
        name = f"E-To-C-{uuid.uuid4().hex[:6]}"
        post_admin(at_central, admin_topic, create(name, edge.url + "/"))
        post_admin(at_central, admin_topic, whitelist(name, copied))
        assert collect(at_central, copied, 3) == ["a", "b", "c"]

        def agent() -> dict[str, Any]:
            (only,) = listed(at_central)["agents"]
            assert isinstance(only, dict)
            return only

        wait_until(lambda: agent()["positions"].get(copied) == 3)
        assert agent()["state"] == "running"
        # A topic missing on both sides: failing, first because it is missing here.
        missing = topic_name("missing")
        post_admin(at_central, admin_topic, whitelist(name, copied, missing))
        wait_until(lambda: agent()["state"] == "failing", timeout=5)
        failing = agent()
        assert failing["lastError"] == f"topic {missing} does not exist here"
        assert failing["failingSince"] is not None and failing["failingSince"].endswith("Z")
        assert failing["positions"] == {copied: 3, missing: 0}
        assert failing["topics"][copied] == {
            "position": 3,
            "sourceHead": 3,
            "lag": 0,
            "state": "running",
            "lastError": None,
        }
        assert failing["topics"][missing]["state"] == "failing"
        # Made here, still missing at the source: failing for that reason, since the same time.
        assert at_central.post("/topics/create", json={"topicName": missing}).status_code == 200
        wait_until(lambda: agent()["lastError"] == f"topic {missing} does not exist on the source (404)")
        assert agent()["failingSince"] == failing["failingSince"]
        # Made there too, with a message: the agent recovers and copies it.
        assert at_edge.post("/topics/create", json={"topicName": missing}).status_code == 200
        publish(at_edge, missing, ["m"])
        assert collect(at_central, missing, 1) == ["m"]
        wait_until(lambda: agent()["state"] == "running")
        assert agent() == {
            "name": name,
            "source": edge.url,
            "whitelist": [copied, missing],
            "state": "running",
            "instance": "test",
            "positions": {copied: 3, missing: 1},
            "lastError": None,
            "failingSince": None,
            "topics": {
                copied: {"position": 3, "sourceHead": 3, "lag": 0, "state": "running", "lastError": None},
                missing: {"position": 1, "sourceHead": 1, "lag": 0, "state": "running", "lastError": None},
            },
        }
        post_admin(at_central, admin_topic, whitelist(name))
        wait_until(lambda: agent()["whitelist"] == [])
