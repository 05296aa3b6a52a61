"""Mirror bridges through the API: provisioned from replication cases, reported and edited."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from ..conftest import RunningService, ServiceStarter, SettingsFactory
from ..support.answers import ok
from .conftest import (
    BUS_SETTINGS,
    ROUTER_ALIASES,
    SHORT_AGENT_POLLS,
    api_error,
    at_router,
    router_of_its_own,
    site,
    using,
)

NS = "org.example.bus.lab1"


def make_topic(
    bus: httpx.Client, name: str, case: str | None, places: list[tuple[str, list[str]]]
) -> dict[str, Any]:
    clients = [{"svcLocationName": place, "clientRole": "r", "action": action} for place, action in places]
    body: dict[str, Any] = {"topicName": name, "topicDescription": "d", "owner": "o", "clients": clients}
    if case:
        body["replicationCase"] = case
    topic: dict[str, Any] = ok(bus.post("/topics", json=body))
    return topic


def agents(bus: httpx.Client) -> dict[str, list[str]]:
    listed = ok(bus.get("/bridge", params={"detail": "true"}))
    assert listed[-1]["mmAgentName"] == "n/a"
    return {
        entry["mmAgentName"]: ok(
            bus.get("/bridge", params={"mmagent": entry["mmAgentName"], "detail": "true"})
        )["topics"]
        for entry in listed[:-1]
    }


@pytest.fixture
def router(start_service: ServiceStarter, make_settings: SettingsFactory) -> RunningService:
    """The edge sites' router, on the bus controller's settings; the edge clusters reach it under
    different names. It runs the mirror agents the bus tells it of (central to edge)."""
    settings = make_settings(
        bus_max_topics_per_bridge=2, bus_central_cname="mr.central.cname", **SHORT_AGENT_POLLS
    )
    return start_service("router", settings, also_on=ROUTER_ALIASES)


@pytest.fixture
def central(router: RunningService, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningService]:
    """The central site's router: a router of its own (an agent copies between two routers)."""
    with router_of_its_own(tmp_path_factory.mktemp("central"), router.settings.users) as central:
        yield central


@pytest.fixture
def sites(start_service: ServiceStarter, router: RunningService, central: RunningService) -> httpx.Client:
    authz = start_service("authz", router.settings)
    service = start_service("bus", using(router.settings, authz))
    bus = service.client()
    ok(bus.put("/bus", json=BUS_SETTINGS))
    site(bus, "central-1", "central", "localhost", **at_router(central))
    site(bus, "edge-1", "edge", "127.0.0.2", **at_router(router))
    site(bus, "edge-2", "edge", "127.0.0.3", **at_router(router))
    return bus


def test_edge_to_central_is_the_default_with_central_and_edge_clients(sites: httpx.Client) -> None:
    created = make_topic(sites, "alarms", None, [("edge-1", ["pub"]), ("central-1", ["sub"])])
    assert created["replicationCase"] == "REPLICATION_EDGE_TO_CENTRAL"
    assert created["status"] == "VALID"
    assert agents(sites) == {"127.0.0.2-To-localhost": [f"{NS}.alarms"]}


def test_edge_to_central_to_global(sites: httpx.Client) -> None:
    created = make_topic(
        sites,
        "alarms",
        "REPLICATION_EDGE_TO_CENTRAL_TO_GLOBAL",
        [("edge-1", ["pub"]), ("edge-2", ["pub"]), ("central-1", ["sub"])],
    )
    # The N -> G bridge's messages go to G's router, and no cluster is registered at G.
    assert created["status"] == "INVALID"
    assert "no message-router cluster with fqdn global.host.not.set" in created["statusReason"]
    assert all(client["status"] == "VALID" for client in created["clients"])
    assert agents(sites) == {
        "127.0.0.2-To-localhost": [f"{NS}.alarms"],
        "127.0.0.3-To-localhost": [f"{NS}.alarms"],
        "mr.central.cname-To-global.host.not.set": [f"{NS}.alarms"],
    }


def test_central_to_global_and_global_to_fqdn(sites: httpx.Client) -> None:
    make_topic(sites, "up", "REPLICATION_CENTRAL_TO_GLOBAL", [("central-1", ["pub"])])
    body: dict[str, Any] = {
        "topicName": "down",
        "topicDescription": "d",
        "owner": "o",
        "globalMrURL": "mr.global.example",
    }
    body |= {"replicationCase": "REPLICATION_GLOBAL_TO_FQDN"}
    body["clients"] = [{"svcLocationName": "central-1", "clientRole": "r", "action": ["sub"]}]
    ok(sites.post("/topics", json=body))
    assert agents(sites) == {
        "mr.central.cname-To-global.host.not.set": [f"{NS}.up"],
        "mr.global.example-To-localhost": [f"{NS}.down"],
    }


def test_view_only_clients_and_none_case_make_no_bridges(sites: httpx.Client) -> None:
    make_topic(sites, "quiet", "REPLICATION_NONE", [("edge-1", ["pub"]), ("central-1", ["sub"])])
    viewed = make_topic(sites, "viewed", None, [("edge-1", ["view"]), ("central-1", ["sub"])])
    assert viewed["replicationCase"] == "REPLICATION_NONE"
    assert agents(sites) == {}
    assert ok(sites.get("/bridge")) == [
        {"brSource": "all", "brTarget": "all", "mmAgentName": "n/a", "topicCount": 0}
    ]


def test_topic_without_or_with_two_central_locations_is_invalid(
    sites: httpx.Client, router: RunningService
) -> None:
    no_central = make_topic(sites, "lost", "REPLICATION_EDGE_TO_CENTRAL", [("edge-1", ["pub"])])
    assert no_central["status"] == "INVALID"
    assert "no central location" in no_central["statusReason"]
    site(sites, "central-2", "central", "127.0.0.1", **at_router(router))
    two = make_topic(
        sites, "split", "REPLICATION_EDGE_TO_CENTRAL", [("central-1", ["sub"]), ("central-2", ["pub"])]
    )
    assert two["status"] == "INVALID"
    assert "more than one central location" in two["statusReason"]
    fixed = make_topic(sites, "fixed", "REPLICATION_EDGE_TO_CENTRAL", [("edge-1", ["pub"])])
    ok(
        sites.post(
            "/mr_clients",
            json={
                "fqtn": fixed["fqtn"],
                "svcLocationName": "central-1",
                "clientRole": "r",
                "action": ["sub"],
            },
        )
    )
    assert ok(sites.get(f"/topics/{fixed['fqtn']}"))["status"] == "VALID"


def test_agents_overflow_and_topics_leave_with_their_clients(sites: httpx.Client) -> None:
    created = [
        make_topic(sites, name, None, [("edge-1", ["pub"]), ("central-1", ["sub"])])
        for name in ("t1", "t2", "t3")
    ]
    assert agents(sites) == {
        "127.0.0.2-To-localhost": [f"{NS}.t1", f"{NS}.t2"],
        "127.0.0.2-To-localhost_1": [f"{NS}.t3"],
    }
    edge_client = created[0]["clients"][0]["mrClientId"]
    ok(sites.delete(f"/mr_clients/{edge_client}"), 204)
    ok(sites.delete(f"/topics/{NS}.t3"), 204)
    assert agents(sites) == {"127.0.0.2-To-localhost": [f"{NS}.t2"], "127.0.0.2-To-localhost_1": []}
    ok(sites.put(f"/topics/{NS}.t2", json={"replicationCase": "REPLICATION_CENTRAL_TO_EDGE"}))
    assert agents(sites)["localhost-To-127.0.0.2"] == [f"{NS}.t2"]
    assert agents(sites)["127.0.0.2-To-localhost"] == []


def test_bridge_reports(sites: httpx.Client) -> None:
    make_topic(sites, "alarms", None, [("edge-1", ["pub"]), ("central-1", ["sub"])])
    make_topic(sites, "faults", None, [("edge-1", ["pub"]), ("central-1", ["sub"])])
    assert ok(sites.get("/bridge/")) == [
        {"brSource": "all", "brTarget": "all", "mmAgentName": "n/a", "topicCount": 2}
    ]
    one = {
        "brSource": "127.0.0.2",
        "brTarget": "localhost",
        "mmAgentName": "127.0.0.2-To-localhost",
        "topicCount": 2,
    }
    assert ok(sites.get("/bridge", params={"mmagent": "127.0.0.2-To-localhost"})) == [one]
    assert ok(sites.get("/bridge", params={"source": "127.0.0.2", "target": "localhost"})) == [one]
    detail = ok(sites.get("/bridge", params={"source": "127.0.0.2", "target": "localhost", "detail": "true"}))
    assert detail["mmName"] == "127.0.0.2-To-localhost"
    assert detail["sourceCluster"] == "127.0.0.2" and detail["targetCluster"] == "localhost"
    assert detail["topics"] == [f"{NS}.alarms", f"{NS}.faults"]
    assert detail["topicCount"] == 2
    assert detail["status"] == "VALID"
    message = json.loads(detail["whitelistUpdateJSON"])
    assert message["updateWhiteList"] == {
        "name": "127.0.0.2-To-localhost",
        "whitelist": f"{NS}.alarms,{NS}.faults",
    }
    assert 0 <= int(message["messageID"]) <= 99999
    assert (
        api_error(sites.get("/bridge", params={"mmagent": "nope"}), 404)["message"]
        == "Requested object not found"
    )
    only_source = api_error(sites.get("/bridge", params={"source": "127.0.0.2"}), 400)
    assert only_source["message"] == "Either both source and target or neither must be provided"


def test_bridge_edits(sites: httpx.Client) -> None:
    make_topic(sites, "alarms", None, [("edge-1", ["pub"]), ("central-1", ["sub"])])
    name = "127.0.0.2-To-localhost"
    assert api_error(sites.put("/bridge", json={}), 400)["message"] == "mmagent is required for PUT"
    api_error(sites.put("/bridge", params={"mmagent": "nope"}, json={"mmName": "nope"}), 404)
    mismatch = api_error(
        sites.put("/bridge", params={"mmagent": name}, json={"mmName": "other", "topics": []}), 400
    )
    assert mismatch["message"] == "mmagent query param does not match mmName in body"
    api_error(sites.put("/bridge", params={"mmagent": name}), 400)
    whitelist = ["a.t1", "a.t2", "a.t3", "a.t4", "a.t5"]
    replaced = ok(sites.put("/bridge", params={"mmagent": name}, json={"mmName": name, "topics": whitelist}))
    assert replaced["topics"] == whitelist and replaced["topicCount"] == 5
    refreshed = ok(sites.put("/bridge", params={"mmagent": name, "refresh": "true"}))
    assert refreshed["topics"] == whitelist
    split = ok(sites.put("/bridge", params={"mmagent": name, "split": "true"}))
    assert split["topics"] == ["a.t1", "a.t2"]
    assert agents(sites) == {name: ["a.t1", "a.t2"], f"{name}_1": ["a.t5", "a.t4"], f"{name}_2": ["a.t3"]}
