"""Topics: fqtn per style, default roles and replication, body clients, useExisting, errors."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from ..conftest import RunningService, ServiceStarter, SettingsFactory
from ..support.answers import ok
from .conftest import BUS_SETTINGS, api_error, at_router, site

TOPIC = {"topicName": "alarms", "topicDescription": "alarm stream", "owner": "noc"}


def topic(**fields: Any) -> dict[str, Any]:
    return {**TOPIC, **fields}


@pytest.fixture
def project_bus(start_service: ServiceStarter, make_settings: SettingsFactory) -> httpx.Client:
    service = start_service("bus", make_settings(bus_project_id="44.11"))
    client = service.client()
    ok(client.put("/bus", json=BUS_SETTINGS))
    return client


@pytest.mark.parametrize(
    ("fields", "fqtn", "style"),
    [
        ({}, "org.example.bus.lab1.alarms", "FQTN_LEGACY_FORMAT"),
        ({"fqtnStyle": "FQTN_NOT_SPECIFIED"}, "org.example.bus.lab1.alarms", "FQTN_LEGACY_FORMAT"),
        ({"fqtnStyle": "FQTN_LEGACY_FORMAT"}, "org.example.bus.lab1.alarms", "FQTN_LEGACY_FORMAT"),
        (
            {"fqtnStyle": "FQTN_PROJECTID_FORMAT"},
            "org.example.bus.lab1.44_11-alarms",
            "FQTN_PROJECTID_FORMAT",
        ),
        (
            {"fqtnStyle": "FQTN_PROJECTID_VERSION_FORMAT", "version": "2.0"},
            "org.example.bus.lab1.44_11-alarms-2_0",
            "FQTN_PROJECTID_VERSION_FORMAT",
        ),
        (
            {"fqtnStyle": "FQTN_PROJECTID_VERSION_FORMAT"},
            "org.example.bus.lab1.44_11-alarms-v1",
            "FQTN_PROJECTID_VERSION_FORMAT",
        ),
        ({"topicName": "com.other.alarms", "fqtnStyle": "FQTN_PROJECTID_FORMAT"}, "com.other.alarms", None),
    ],
)
def test_fqtn_for_every_style(
    project_bus: httpx.Client, fields: dict[str, Any], fqtn: str, style: str | None
) -> None:
    created = ok(project_bus.post("/topics", json=topic(fqtn="ignored.fqtn", **fields)))
    assert created["fqtn"] == fqtn
    if style:
        assert created["fqtnStyle"] == style
    assert ok(project_bus.get(f"/topics/{fqtn}"))["fqtn"] == fqtn


def test_configured_default_style_applies(
    start_service: ServiceStarter, make_settings: SettingsFactory
) -> None:
    service = start_service("bus", make_settings(bus_topic_style="FQTN_PROJECTID_FORMAT", bus_project_id=""))
    with service.client() as client:
        ok(client.put("/bus", json=BUS_SETTINGS))
        created = ok(client.post("/topics", json=topic()))
    assert created["fqtn"] == "org.example.bus.lab1.90909-alarms"
    assert created["fqtnStyle"] == "FQTN_PROJECTID_FORMAT"


def test_topic_defaults_and_roles(ready_bus: httpx.Client) -> None:
    created = ok(ready_bus.post("/topics", json=topic(tnxEnabled=True, formatUuid="f-1")))
    # Issue 38, point 5: no cluster is registered, so the topic is on no router: not VALID yet.
    assert created == {
        "lastMod": created["lastMod"],
        "status": "STAGED",
        "statusReason": "no message-router cluster is registered: the topic is on no router yet",
        "fqtn": "org.example.bus.lab1.alarms",
        "topicName": "alarms",
        "topicDescription": "alarm stream",
        "owner": "noc",
        "tnxEnabled": "true",
        "formatUuid": "f-1",
        "fqtnStyle": "FQTN_LEGACY_FORMAT",
        "replicationCase": "REPLICATION_NONE",
        "partitionCount": "2",
        "replicationCount": "1",
        "publisherRole": "org.example.bus.lab1.alarms.publisher",
        "subscriberRole": "org.example.bus.lab1.alarms.subscriber",
        "clients": [],
    }
    outside = ok(ready_bus.post("/topics", json=topic(topicName="com.other.x", partitionCount=6)))
    assert "publisherRole" not in outside and "subscriberRole" not in outside
    assert outside["partitionCount"] == "6"
    assert [t["fqtn"] for t in ok(ready_bus.get("/topics/"))] == [
        "org.example.bus.lab1.alarms",
        "com.other.x",
    ]


def test_topic_required_fields_in_order(ready_bus: httpx.Client) -> None:
    assert api_error(ready_bus.post("/topics", json={}), 400)["fields"] == "topicName"
    assert api_error(ready_bus.post("/topics"), 400)["fields"] == "topicName"
    spaced = api_error(ready_bus.post("/topics", json=topic(topicName="a b")), 400)
    assert spaced["message"] == "value 'a b' violates regexp check '^\\S+$'"
    assert api_error(ready_bus.post("/topics", json={"topicName": "t"}), 400)["fields"] == "topicDescription"
    assert (
        api_error(ready_bus.post("/topics", json={"topicName": "t", "topicDescription": ""}), 400)["fields"]
        == "owner"
    )
    api_error(ready_bus.post("/topics", json=topic(fqtnStyle="FQTN_NEW")), 400)


def test_topic_needs_initialised_settings(bus: httpx.Client) -> None:
    error = api_error(bus.post("/topics", json=topic()), 400)
    assert error["message"] == "bus settings not initialised"
    assert error["fields"] == "topicNsRoot"


def test_existing_topic_conflicts_unless_use_existing(ready_bus: httpx.Client) -> None:
    created = ok(ready_bus.post("/topics", json=topic()))
    conflict = api_error(ready_bus.post("/topics", json=topic()), 409)
    assert conflict["message"] == "topic already exists: org.example.bus.lab1.alarms"
    assert conflict["fields"] == "fqtn"
    site(ready_bus, "c1", "central", "mr.c1")
    client = {"svcLocationName": "c1", "clientRole": "r", "action": ["sub"]}
    reused = ok(ready_bus.post("/topics/", params={"useExisting": "TRUE"}, json=topic(clients=[client])))
    # The same topic; its status moved: STAGED with no cluster, INVALID once a cluster exists
    # whose router (mr.c1 resolves nowhere) did not take it (issue 38, point 5).
    assert created["status"] == "STAGED"
    assert reused == ok(ready_bus.get(f"/topics/{created['fqtn']}"))
    assert {**reused, "status": "STAGED", "statusReason": None, "lastMod": None} == {
        **created,
        "statusReason": None,
        "lastMod": None,
    }
    assert reused["status"] == "INVALID" and "the topic is on no message router yet" in reused["statusReason"]
    api_error(ready_bus.post("/topics", params={"useExisting": "no"}, json=topic()), 409)


def test_body_clients_become_mr_clients_matched_to_their_cluster(
    ready_bus: httpx.Client, router: RunningService
) -> None:
    site(ready_bus, "dc-central-1", "central", "localhost", **at_router(router))
    clients = [
        {
            "svcLocationName": "dc-central-1",
            "clientRole": "org.example.client.pub",
            "action": ["pub", "view"],
        },
        {
            "svcLocationName": "dc-central-1",
            "clientIdentity": "alice@example",
            "action": ["sub"],
            "mrClientId": "x",
        },
    ]
    created = ok(ready_bus.post("/topics", json=topic(clients=clients)))
    first, second = created["clients"]
    assert first["topicURL"] == f"http://localhost:{router.server.port}/events/org.example.bus.lab1.alarms"
    assert first["status"] == "VALID"
    assert first["fqtn"] == "org.example.bus.lab1.alarms"
    assert second["clientIdentity"] == "alice@example"
    assert int(second["mrClientId"]) > int(first["mrClientId"])
    listed = ok(ready_bus.get("/mr_clients"))
    assert [c["mrClientId"] for c in listed] == [first["mrClientId"], second["mrClientId"]]
    assert ok(ready_bus.get("/topics/org.example.bus.lab1.alarms"))["clients"] == [first, second]


def test_a_failing_body_client_stores_nothing(ready_bus: httpx.Client) -> None:
    site(ready_bus, "c1", "central", "mr.c1")
    clients = [
        {"svcLocationName": "c1", "clientRole": "r", "action": ["pub"]},
        {"svcLocationName": "nowhere", "clientRole": "r", "action": ["pub"]},
    ]
    error = api_error(ready_bus.post("/topics", json=topic(clients=clients)), 400)
    assert error["message"] == "MR_Cluster alias not found for svcLocation: nowhere"
    assert error["fields"] == "svcLocationName"
    bad_action = [{"svcLocationName": "c1", "clientRole": "r", "action": ["pub", "admin"]}]
    assert api_error(ready_bus.post("/topics", json=topic(clients=bad_action)), 400)["fields"] == "action"
    assert ok(ready_bus.get("/topics")) == []
    assert ok(ready_bus.get("/mr_clients")) == []


def test_get_topic_checks_the_name(ready_bus: httpx.Client) -> None:
    assert api_error(ready_bus.get("/topics/a%20b"), 400)["fields"] == "topicName"
    missing = api_error(ready_bus.get("/topics/org.example.x"), 404)
    assert missing["message"] == "topic with fqtn org.example.x not found"


def test_update_topic_changes_only_its_updatable_fields(ready_bus: httpx.Client) -> None:
    created = ok(ready_bus.post("/topics", json=topic()))
    changed = ok(
        ready_bus.put(
            "/topics/org.example.bus.lab1.alarms",
            json={"topicDescription": "new", "topicName": "renamed", "partitionCount": "8", "fqtn": "x"},
        )
    )
    assert changed["topicDescription"] == "new"
    assert changed["partitionCount"] == "8"
    assert changed["topicName"] == "alarms"
    assert changed["owner"] == created["owner"]
    assert ok(ready_bus.get("/topics/org.example.bus.lab1.alarms"))["topicDescription"] == "new"
    api_error(ready_bus.put("/topics/org.example.none", json={}), 404)


def test_global_url_must_be_a_host_name(ready_bus: httpx.Client) -> None:
    created = ok(ready_bus.post("/topics", json=topic(replicationCase="REPLICATION_CENTRAL_TO_GLOBAL")))
    assert created["globalMrURL"] == "global.host.not.set"
    error = api_error(
        ready_bus.post(
            "/topics",
            json=topic(topicName="b", replicationCase="REPLICATION_GLOBAL_TO_FQDN", globalMrURL="http://x/y"),
        ),
        400,
    )
    assert error == {
        "code": 400,
        "message": "Value is not a valid FQDN:http://x/y",
        "fields": "globalMrURL",
        "is2xx": False,
    }
    bad_put = ready_bus.put("/topics/org.example.bus.lab1.alarms", json={"globalMrURL": "not a host"})
    assert api_error(bad_put, 400)["fields"] == "globalMrURL"


def test_delete_topic_removes_its_clients(ready_bus: httpx.Client) -> None:
    site(ready_bus, "c1", "central", "mr.c1")
    ok(
        ready_bus.post(
            "/topics", json=topic(clients=[{"svcLocationName": "c1", "clientRole": "r", "action": ["sub"]}])
        )
    )
    ok(ready_bus.delete("/topics/org.example.bus.lab1.alarms"), 204)
    assert ok(ready_bus.get("/mr_clients")) == []
    missing = api_error(ready_bus.delete("/topics/org.example.bus.lab1.alarms"), 404)
    assert missing["message"] == "Topic org.example.bus.lab1.alarms does not exist"
    assert missing["fields"] == "fqtn"


def test_a_topic_is_staged_until_a_cluster_router_has_it(
    ready_bus: httpx.Client, router: RunningService
) -> None:
    """Issue 38, point 5: a topic created before any cluster is on no router, so not VALID; once
    a cluster is registered, the same pass that pushes every topic to its router makes it VALID."""
    created = ok(ready_bus.post("/topics", json=topic()))
    assert (created["status"], created["statusReason"]) == (
        "STAGED",
        "no message-router cluster is registered: the topic is on no router yet",
    )
    site(ready_bus, "dc-central-1", "central", "localhost", **at_router(router))
    now = ok(ready_bus.get(f"/topics/{created['fqtn']}"))
    assert now["status"] == "VALID" and "statusReason" not in now
    with httpx.Client(base_url=router.url, auth=("admin", "admin")) as at_router_:
        assert at_router_.get(f"/topics/{created['fqtn']}").status_code == 200
