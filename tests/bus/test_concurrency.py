"""Concurrent writers: one winner per key, distinct client ids, one feed in the distribution service."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx

from ..conftest import ServiceStarter
from ..support.answers import ok
from .conftest import BUS_SETTINGS, site

WRITERS = 8


def in_parallel(url: str, method: str, path: str, body: dict[str, Any]) -> list[httpx.Response]:
    def call(_: int) -> httpx.Response:
        with httpx.Client(base_url=url, auth=("admin", "admin"), timeout=60) as client:
            return client.request(method, path, json=body)

    with ThreadPoolExecutor(WRITERS) as pool:
        return list(pool.map(call, range(WRITERS)))


def test_same_topic_from_many_writers_has_one_winner(start_service: ServiceStarter) -> None:
    service = start_service("bus")
    with service.client() as bus:
        ok(bus.put("/bus", json=BUS_SETTINGS))
        site(bus, "c1", "central", "mr.c1")
        body = {"topicName": "race", "topicDescription": "d", "owner": "o"}
        statuses = sorted(r.status_code for r in in_parallel(service.url, "POST", "/topics", body))
        assert statuses == [200] + [409] * (WRITERS - 1)
        client = {
            "fqtn": "org.example.bus.lab1.race",
            "svcLocationName": "c1",
            "clientRole": "r",
            "action": ["sub"],
        }
        created = in_parallel(service.url, "POST", "/mr_clients", client)
        ids = {ok(response)["mrClientId"] for response in created}
        assert len(ids) == WRITERS
        assert len(ok(bus.get("/topics/org.example.bus.lab1.race"))["clients"]) == WRITERS


def test_same_feed_from_many_writers_is_created_once_there(start_service: ServiceStarter) -> None:
    distribution = start_service("distribution")
    service = start_service("bus")
    with service.client() as bus:
        ok(bus.put("/bus", json={**BUS_SETTINGS, "drProvUrl": distribution.url}))
        body = {"feedName": "race", "feedVersion": "1", "owner": "ops", "asprClassification": "u"}
        responses = in_parallel(service.url, "POST", "/feeds", body)
        statuses = sorted(r.status_code for r in responses)
        assert statuses == [200] + [409] * (WRITERS - 1)
        (feed,) = ok(bus.get("/feeds"))
        assert feed["status"] == "VALID"
    with distribution.client() as dist:
        assert (
            dist.get(f"/feed/{feed['feedId']}", headers={"X-BUS-DR-ON-BEHALF-OF": "ops"}).status_code == 200
        )
        assert int(feed["feedId"]) == 1
