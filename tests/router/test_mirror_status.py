"""Mirror agents report what they do (issue 24, point 2): failing with the reason and since when,
running again once copies succeed, and each topic's position, source head and lag; the same
through every instance over one database."""

from __future__ import annotations

import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.fernet import Fernet

from netplatform.router import create_app
from netplatform.store.db import forget_database

from ..support.databases import migrate
from ..support.router_calls import publish
from ..support.servers import LiveServer, free_port, http_client
from ..support.waiting import wait_until
from .conftest import ADMIN, delete_every_topic, live_router, router_settings, topic_name
from .test_mirror_settings import FAST, collect, create, listed, post_admin, put, told, whitelist

RETRY_S = FAST["router_mirror_retry_s"]
SUPERVISE_BOUND_S = 2.5  # the admin reader applies at once; a round claims the agent within 2 s


def agents_of(client: httpx.Client) -> dict[str, dict[str, Any]]:
    return {agent["name"]: agent for agent in listed(client)["agents"]}


def test_an_unreachable_source_is_failing_on_every_instance_until_it_answers(
    engine: str, tmp_path: Path, database_url: str | None
) -> None:
    admin_topic = topic_name("bridge-admin")
    closed = f"http://127.0.0.1:{free_port()}"
    with ExitStack() as stack:
        edge = stack.enter_context(live_router("embedded", tmp_path / "edge"))
        at_edge = stack.enter_context(edge.client())
        centrals = []
        for instance in ("central-a", "central-b"):  # two instances over one database
            settings = router_settings(
                engine, tmp_path / "central", database_url, instance_name=instance, **FAST
            )
            migrate(settings)
            stack.callback(forget_database, settings)
            server = stack.enter_context(LiveServer(create_app(settings)))
            centrals.append(stack.enter_context(http_client(server.url, auth=ADMIN)))
        stack.callback(delete_every_topic, server.url)
        first, second = centrals
        copied = topic_name("copied")
        for client in (at_edge, first):
            assert client.post("/topics/create", json={"topicName": copied}).status_code == 200
        publish(at_edge, copied, ["a", "b"])
        put(first, told(admin_topic, edge.url, closed))
        wait_until(lambda: first.get(f"/topics/{admin_topic}").status_code == 200, timeout=10)
        assert post_admin(
            first, admin_topic, create("E-To-C", closed), whitelist("E-To-C", copied)
        ).is_success
        wait_until(
            lambda: agents_of(second).get("E-To-C", {}).get("state") == "failing",
            timeout=SUPERVISE_BOUND_S + 3 * RETRY_S + 10,
        )
        failing = agents_of(first)["E-To-C"]
        assert failing == agents_of(second)["E-To-C"]  # whichever instance answers
        assert failing["instance"] in ("central-a", "central-b")
        assert failing["lastError"].startswith(f"source {closed} unreachable: ")
        assert failing["failingSince"].endswith("Z")
        assert failing["topics"] == {
            copied: {
                "position": 0,
                "sourceHead": None,
                "lag": None,
                "state": "failing",
                "lastError": failing["lastError"],
            }
        }
        # A fixed wait on purpose: time passing is the point: retries happen while the failure stays.
        time.sleep(3 * RETRY_S)  # retried, still failing since the first failure
        assert agents_of(second)["E-To-C"]["failingSince"] == failing["failingSince"]
        # The real source: copies succeed, and the agent is running again, with no error.
        assert post_admin(first, admin_topic, create("E-To-C", edge.url)).is_success
        assert collect(first, copied, 2) == ["a", "b"]
        wait_until(lambda: agents_of(second)["E-To-C"]["state"] == "running", timeout=10)
        running = agents_of(second)["E-To-C"]
        assert (running["lastError"], running["failingSince"]) == (None, None)
        assert running["topics"][copied] == {
            "position": 2,
            "sourceHead": 2,
            "lag": 0,
            "state": "running",
            "lastError": None,
        }


def test_lag_is_what_the_source_has_that_was_not_copied(engine: str, tmp_path: Path) -> None:
    """Copying held back by the target's writer ACL: the source's head is known, nothing is copied,
    so the lag is exactly what was published; granted, it copies all and the lag is 0."""
    admin_topic = topic_name("bridge-admin")
    with (
        live_router("embedded", tmp_path / "edge") as edge,
        live_router(engine, tmp_path / "central", **FAST) as central,
        edge.client() as at_edge,
        central.client() as at_central,
    ):
        held = topic_name("held")
        for client in (at_edge, at_central):
            assert client.post("/topics/create", json={"topicName": held}).status_code == 200
        assert at_central.put(f"/topics/{held}/producers/bob").status_code == 200  # not the agent's identity
        publish(at_edge, held, [f"m{i}" for i in range(25)])
        put(at_central, told(admin_topic, edge.url))
        assert post_admin(
            at_central, admin_topic, create("E-To-C", edge.url), whitelist("E-To-C", held)
        ).is_success

        def topic() -> dict[str, Any]:
            status: dict[str, Any] = agents_of(at_central).get("E-To-C", {}).get("topics", {}).get(held, {})
            return status

        wait_until(lambda: topic().get("state") == "failing", timeout=10)
        assert topic() == {
            "position": 0,
            "sourceHead": 25,
            "lag": 25,
            "state": "failing",
            "lastError": topic()["lastError"],
        }
        assert topic()["lastError"].startswith(
            "publishing here refused: svc.mirror is not permitted to publish"
        )
        publish(at_edge, held, [f"m{i}" for i in range(25, 30)])  # the head moves on while failing
        wait_until(lambda: topic()["sourceHead"] == 30, timeout=5)
        assert (topic()["position"], topic()["lag"]) == (0, 30)
        assert at_central.put(f"/topics/{held}/producers/svc.mirror").status_code == 200
        assert collect(at_central, held, 30) == [f"m{i}" for i in range(30)]
        wait_until(lambda: topic().get("state") == "running", timeout=10)
        assert topic() == {"position": 30, "sourceHead": 30, "lag": 0, "state": "running", "lastError": None}
        assert agents_of(at_central)["E-To-C"]["state"] == "running"


@pytest.mark.parametrize(
    ("credential", "expected"),
    [
        (
            {"secret_key": Fernet.generate_key().decode()},  # another key: the edge knows no such svc.mirror
            "the source answered 401: it does not accept svc.mirror's mirror credential",
        ),
        (
            {"router_mirror_user": "bob", "router_mirror_password": "bob-pw"},  # known there, no role
            "the source answered 403: bob lacks platform.router.internal|mirror|call there",
        ),
    ],
    ids=["another-key", "no-permission"],
)
def test_a_source_that_refuses_says_why(tmp_path: Path, credential: dict[str, str], expected: str) -> None:
    admin_topic = topic_name("bridge-admin")
    with (
        live_router("embedded", tmp_path / "edge") as edge,
        live_router("embedded", tmp_path / "central", **FAST, **credential) as central,
        edge.client() as at_edge,
        central.client() as at_central,
    ):
        copied = topic_name("copied")
        for client in (at_edge, at_central):
            assert client.post("/topics/create", json={"topicName": copied}).status_code == 200
        put(at_central, told(admin_topic, edge.url))
        assert post_admin(
            at_central, admin_topic, create("E-To-C", edge.url), whitelist("E-To-C", copied)
        ).is_success

        def last_error() -> str | None:
            error: str | None = agents_of(at_central).get("E-To-C", {}).get("lastError")
            return error

        wait_until(lambda: last_error() is not None, timeout=10)
        assert last_error() == expected


def test_an_agent_whose_source_is_its_own_router_copies_nothing(tmp_path: Path) -> None:
    """Two clusters on the bus naming one router: the agent would copy its own copies for ever.
    The read route names its router (X-Router-Id), and the agent refuses itself as a source."""
    admin_topic = topic_name("bridge-admin")
    with live_router("embedded", tmp_path / "one", **FAST) as router, router.client() as client:
        looped = topic_name("looped")
        assert client.post("/topics/create", json={"topicName": looped}).status_code == 200
        publish(client, looped, ["only"])
        alias = router.url.replace("127.0.0.1", "localhost")  # another name, the same router
        put(client, told(admin_topic, alias))
        assert post_admin(client, admin_topic, create("Self", alias), whitelist("Self", looped)).is_success
        wait_until(lambda: agents_of(client).get("Self", {}).get("state") == "failing", timeout=15)
        assert agents_of(client)["Self"]["lastError"] == (
            f"the source {alias} is this router itself: copying a topic into itself would copy "
            "its own copies for ever"
        )
        read = client.get(f"/internal/mirror/{looped}")
        assert [item["message"] for item in read.json()] == ["only"]
        assert read.headers["X-Router-Id"]
