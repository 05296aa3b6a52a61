"""Message-router clients: required fields, cluster matching, topicURL, STAGED until the site exists."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from ..conftest import RunningService
from ..support.answers import ok
from .conftest import api_error, at_router, site

FQTN = "org.example.bus.lab1.alarms"


@pytest.fixture
def with_topic(ready_bus: httpx.Client, router: RunningService) -> httpx.Client:
    site(ready_bus, "dc-central-1", "central", "localhost", **at_router(router))
    ok(ready_bus.post("/topics", json={"topicName": "alarms", "topicDescription": "d", "owner": "noc"}))
    return ready_bus


def client_body(**fields: Any) -> dict[str, Any]:
    return {
        "fqtn": FQTN,
        "svcLocationName": "dc-central-1",
        "clientRole": "r.pub",
        "action": ["pub"],
        **fields,
    }


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"fqtn": None}, "fqtn"),
        ({"svcLocationName": None}, "svcLocationName"),
        ({"clientRole": None}, "clientRole or clientIdentity"),
        ({"action": None}, "action"),
        ({"action": []}, "action"),
        ({"action": ["pub", "write"]}, "action"),
    ],
)
def test_required_client_fields(with_topic: httpx.Client, fields: dict[str, Any], named: str) -> None:
    error = api_error(with_topic.post("/mr_clients", json=client_body(**fields)), 400)
    assert error["fields"] == named
    api_error(with_topic.put("/mr_clients/1", json=client_body(**fields)), 400)


def test_client_at_a_site_without_cluster_or_unknown_topic(with_topic: httpx.Client) -> None:
    error = api_error(with_topic.post("/mr_clients", json=client_body(svcLocationName="edge-9")), 400)
    assert error["message"] == "MR_Cluster alias not found for svcLocation: edge-9"
    missing = api_error(with_topic.post("/mr_clients", json=client_body(fqtn="org.example.none")), 404)
    assert missing == {
        "code": 404,
        "message": "topic with fqtn org.example.none not found",
        "fields": "fqtn",
        "is2xx": False,
    }


def test_client_gets_the_topic_url_of_its_local_cluster(
    with_topic: httpx.Client, router: RunningService
) -> None:
    created = ok(with_topic.post("/mr_clients/", json=client_body(clientIdentity="alice", mrClientId="7")))
    assert created["status"] == "VALID"
    assert created["topicURL"] == f"http://localhost:{router.server.port}/events/{FQTN}"
    assert created["mrClientId"] != "7"
    assert ok(with_topic.get(f"/mr_clients/{created['mrClientId']}")) == created
    assert ok(with_topic.get(f"/topics/{FQTN}"))["clients"] == [created]


def test_client_is_staged_until_its_site_location_exists(
    with_topic: httpx.Client, router: RunningService
) -> None:
    ok(
        with_topic.post(
            "/mr_clusters", json={"svcLocationName": "edge-2", "fqdn": "127.0.0.2", **at_router(router)}
        )
    )
    staged = ok(with_topic.post("/mr_clients", json=client_body(svcLocationName="edge-2")))
    assert staged["status"] == "STAGED"
    assert "topicURL" not in staged
    assert "edge-2" in staged["statusReason"]
    ok(with_topic.post("/svcLocations", json={"svcLocationName": "edge-2", "svcLayer": "edge"}))
    valid = ok(with_topic.get(f"/mr_clients/{staged['mrClientId']}"))
    assert valid["status"] == "VALID"
    assert valid["topicURL"] == f"http://127.0.0.2:{router.server.port}/events/{FQTN}"
    assert "statusReason" not in valid
    ok(with_topic.delete("/mr_clusters/edge-2"), 204)
    assert ok(with_topic.get(f"/mr_clients/{staged['mrClientId']}"))["status"] == "STAGED"


def test_replace_and_delete_a_client(with_topic: httpx.Client) -> None:
    created = ok(with_topic.post("/mr_clients", json=client_body()))
    client_id = created["mrClientId"]
    replaced = ok(
        with_topic.put(
            f"/mr_clients/{client_id}",
            json=client_body(clientRole=None, clientIdentity="bob", action=["sub"]),
        )
    )
    assert replaced["mrClientId"] == client_id
    assert replaced["clientIdentity"] == "bob"
    assert "clientRole" not in replaced
    assert replaced["action"] == ["sub"]
    assert ok(with_topic.get(f"/mr_clients/{client_id}")) == replaced
    not_upserted = api_error(with_topic.put("/mr_clients/123", json=client_body()), 404)
    assert not_upserted["message"] == "mrClientId 123 not found"
    assert not_upserted["fields"] == "mrClientId"
    ok(with_topic.delete(f"/mr_clients/{client_id}"), 204)
    api_error(with_topic.get(f"/mr_clients/{client_id}"), 404)
    api_error(with_topic.delete(f"/mr_clients/{client_id}"), 404)


def test_client_ids_strictly_increase(with_topic: httpx.Client) -> None:
    ids = [int(ok(with_topic.post("/mr_clients", json=client_body()))["mrClientId"]) for _ in range(5)]
    assert ids == sorted(set(ids))
