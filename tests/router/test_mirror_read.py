"""The internal read route of mirror agents: sequence numbers, nothing consumed, platform.node only."""

from __future__ import annotations

import time
from typing import Any

import httpx

from ..support.router_calls import drain, publish, router_error
from .conftest import ADMIN, ALICE, BOB, CAROL, NODE, Router, topic_name


def read(client: httpx.Client, topic: str, **params: int) -> list[dict[str, Any]]:
    response = client.get(f"/internal/mirror/{topic}", params=params)
    assert response.status_code == 200, response.text
    body: list[dict[str, Any]] = response.json()
    return body


def test_read_answers_sequence_numbers_and_consumes_nothing(router: Router) -> None:
    name = router.create_topic()
    with router.client() as client:
        publish(client, name, ["a", "b", "c", "d"])
        first = read(client, name, after=0, limit=2)
        assert [item["message"] for item in first] == ["a", "b"]
        assert all(set(item) == {"seq", "message"} and isinstance(item["seq"], int) for item in first)
        last = first[-1]["seq"]
        assert isinstance(last, int)
        rest = read(client, name, after=last, timeout=1000)
        assert [item["message"] for item in rest] == ["c", "d"]
        assert read(client, name) == first + rest  # after=0 by default: all again
        assert drain(client, name, "g") == ["a", "b", "c", "d"]  # no group lost anything
        assert read(client, name, after=0, limit=1) == first[:1]


def test_read_long_polls_after_the_last(router: Router) -> None:
    name = router.create_topic()
    with router.client() as client:
        publish(client, name, ["only"])
        (item,) = read(client, name)
        started = time.monotonic()
        assert read(client, name, after=int(str(item["seq"])), timeout=500) == []
        assert time.monotonic() - started >= 0.4  # it waited for the timeout asked


def test_read_needs_platform_node_and_no_acl(router: Router) -> None:
    name = router.create_topic(owner=ALICE)
    with router.client(ALICE) as alice:
        publish(alice, name, ["secret"])
        assert alice.put(f"/topics/{name}/consumers/subscribers").status_code == 200
    with router.client(NODE) as node:  # platform.node: no reader ACL names it, none applies
        assert [item["message"] for item in read(node, name)] == ["secret"]
        router_error(node.get(f"/internal/mirror/{topic_name()}"), 404)
        for params in ({"after": -1}, {"limit": 0}, {"timeout": 60_001}, {"after": "x"}):
            router_error(node.get(f"/internal/mirror/{name}", params=params), 400)
    with router.client(ADMIN) as admin:  # platform.admin holds every permission
        assert [item["message"] for item in read(admin, name)] == ["secret"]
    # Without platform.node: refused before the topic is looked at, reader ACL or not.
    for who in (CAROL, ALICE, BOB):
        with router.client(who) as client:
            body = router_error(client.get(f"/internal/mirror/{name}"), 403)
            assert "platform.router.internal|mirror|call" in body["message"]
            router_error(client.get(f"/internal/mirror/{topic_name()}"), 403)
    with router.client(None) as anonymous:
        router_error(anonymous.get(f"/internal/mirror/{name}"), 401)


def test_read_answers_the_topics_head(router: Router) -> None:
    """X-Mirror-Head: the topic's last sequence when the router answered, whatever the read took."""
    name = router.create_topic()
    with router.client(NODE) as node, router.client() as admin:
        empty = node.get(f"/internal/mirror/{name}")
        assert (empty.json(), empty.headers["x-mirror-head"]) == ([], "0")
        publish(admin, name, ["a", "b", "c"])
        first = node.get(f"/internal/mirror/{name}", params={"limit": 1})
        (item,) = first.json()
        last = read(node, name)[-1]["seq"]
        assert first.headers["x-mirror-head"] == str(last)
        assert node.get(f"/internal/mirror/{name}", params={"after": last}).headers["x-mirror-head"] == str(
            last
        )
        assert item["message"] == "a"
