"""Site locations, file-distribution nodes and message-router clusters."""

from __future__ import annotations

import httpx

from ..conftest import ServiceStarter
from ..support.answers import ok
from .conftest import BUS_SETTINGS, api_error


def test_location_lifecycle(bus: httpx.Client) -> None:
    created = ok(
        bus.post(
            "/svcLocations/", json={"svcLocationName": "dc-central-1", "svcLayer": "central", "clli": "X"}
        )
    )
    assert created["status"] == "VALID"
    assert created["central"] is True and created["local"] is False
    assert ok(bus.get("/svcLocations/dc-central-1")) == created
    updated = ok(
        bus.put(
            "/svcLocations/dc-central-1", json={"svcLocationName": "ignored", "cloudAvailabilityZone": "az1"}
        )
    )
    assert updated["svcLocationName"] == "dc-central-1"
    assert updated["cloudAvailabilityZone"] == "az1"
    assert updated["clli"] == "X"
    assert updated["status"] == "VALID"
    ok(bus.post("/svcLocations", json={"svcLocationName": "edge-local-2", "svcLayer": "edge-local"}))
    names = [loc["svcLocationName"] for loc in ok(bus.get("/svcLocations"))]
    assert names == ["dc-central-1", "edge-local-2"]
    assert ok(bus.get("/svcLocations/edge-local-2"))["local"] is True
    assert ok(bus.delete("/svcLocations/dc-central-1"), 204) is None
    assert api_error(bus.get("/svcLocations/dc-central-1"), 404) == {
        "code": 404,
        "message": "svcLocation does not exist",
        "fields": "svcLocation",
        "is2xx": False,
    }


def test_location_errors(bus: httpx.Client) -> None:
    assert api_error(bus.post("/svcLocations", json={"svcLayer": "edge"}), 400)["fields"] == "svcLocationName"
    api_error(bus.post("/svcLocations"), 400)
    ok(bus.post("/svcLocations", json={"svcLocationName": "a"}))
    conflict = api_error(bus.post("/svcLocations", json={"svcLocationName": "a"}), 409)
    assert conflict["message"] == "svcLocation already exists"
    assert conflict["fields"] == "svcLocation"
    api_error(bus.put("/svcLocations/nope", json={}), 404)
    api_error(bus.delete("/svcLocations/nope"), 404)


def test_node_lifecycle(bus: httpx.Client) -> None:
    node = {"svcLocationName": "dc-central-1", "fqdn": "dr1.example", "hostName": "dr1", "version": "3"}
    created = ok(bus.post("/dr_nodes", json=node))
    # Stored as the reference does, but not VALID: nobody could confirm such a node exists.
    assert created == {
        **node,
        "status": "INVALID",
        "statusReason": "cannot ask the distribution service about its nodes: "
        "drProvUrl is not set in the bus settings",
        "lastMod": created["lastMod"],
    }
    assert ok(bus.get("/dr_nodes")) == [created]
    replaced = ok(bus.put("/dr_nodes/dr1.example", json={"svcLocationName": "edge-2", "fqdn": "other"}))
    assert replaced["fqdn"] == "dr1.example"
    assert replaced["svcLocationName"] == "edge-2"
    assert "hostName" not in replaced
    assert ok(bus.get("/dr_nodes/dr1.example")) == replaced
    ok(bus.delete("/dr_nodes/dr1.example"), 204)
    missing = api_error(bus.get("/dr_nodes/dr1.example"), 404)
    assert missing["message"] == "Node dr1.example does not exist"
    assert missing["fields"] == "fqdn"


def test_node_errors(bus: httpx.Client) -> None:
    assert api_error(bus.post("/dr_nodes", json={"fqdn": "x"}), 400)["fields"] == "svcLocationName"
    assert api_error(bus.post("/dr_nodes", json={"svcLocationName": "x"}), 400)["fields"] == "fqdn"
    ok(bus.post("/dr_nodes", json={"svcLocationName": "a", "fqdn": "n1"}))
    assert api_error(bus.post("/dr_nodes", json={"svcLocationName": "a", "fqdn": "n1"}), 409)["message"] == (
        "Node n1 already exists"
    )
    api_error(bus.put("/dr_nodes/n2", json={}), 404)
    api_error(bus.delete("/dr_nodes/n2"), 404)


def test_cluster_lifecycle_with_defaults(bus: httpx.Client) -> None:
    created = ok(bus.post("/mr_clusters", json={"svcLocationName": "dc-central-1", "fqdn": "mr.central"}))
    assert created["topicProtocol"] == "https"
    assert created["topicPort"] == "3905"
    assert created["sourceReplicationPort"] == "2181"
    assert created["targetReplicationPort"] == "9092"
    # Nothing answers at mr.central: a cluster is VALID only once its router did.
    assert created["status"] == "INVALID"
    assert created["statusReason"].startswith("message router unreachable at https://mr.central:3905/health")
    assert ok(bus.get("/mr_clusters/dc-central-1")) == created
    replaced = ok(
        bus.put(
            "/mr_clusters/dc-central-1",
            json={"svcLocationName": "x", "fqdn": "mr2.central", "topicProtocol": "http", "topicPort": 3904},
        )
    )
    assert replaced["svcLocationName"] == "dc-central-1"
    assert replaced["topicPort"] == "3904"
    assert ok(bus.get("/mr_clusters")) == [replaced]
    ok(bus.delete("/mr_clusters/dc-central-1"), 204)
    missing = api_error(bus.get("/mr_clusters/dc-central-1"), 404)
    assert missing["message"] == "Cluster with svcLocationName dc-central-1 not found"
    assert missing["fields"] == "svcLocationName"


def test_cluster_errors(bus: httpx.Client) -> None:
    assert api_error(bus.post("/mr_clusters", json={"fqdn": "x"}), 400)["fields"] == "svcLocationName"
    assert api_error(bus.post("/mr_clusters", json={"svcLocationName": "x"}), 400)["fields"] == "fqdn"
    ok(bus.post("/mr_clusters", json={"svcLocationName": "a", "fqdn": "f"}))
    assert api_error(bus.post("/mr_clusters", json={"svcLocationName": "a", "fqdn": "g"}), 409)[
        "message"
    ] == ("Cluster with svcLocationName a already exists")
    assert api_error(bus.put("/mr_clusters/a", json={"fqdn": "g"}), 400)["fields"] == "svcLocationName"
    api_error(bus.put("/mr_clusters/b", json={"svcLocationName": "b", "fqdn": "g"}), 404)
    api_error(bus.delete("/mr_clusters/b"), 404)


def test_a_node_is_valid_only_while_the_distribution_service_has_it_up_at_its_site(
    ready_bus: httpx.Client, start_service: ServiceStarter
) -> None:
    distribution = start_service("distribution")
    assert ready_bus.put("/bus", json={**BUS_SETTINGS, "drProvUrl": distribution.url}).status_code == 200
    with distribution.client() as dist:
        [live] = dist.get("/internal/nodes").json()
    assert live["up"] is True

    here = ok(ready_bus.post("/dr_nodes", json={"svcLocationName": live["site"], "fqdn": live["fqdn"]}))
    assert here["status"] == "VALID" and "statusReason" not in here
    assert ok(ready_bus.get(f"/dr_nodes/{live['fqdn']}")) == here

    moved = ok(ready_bus.put(f"/dr_nodes/{live['fqdn']}", json={"svcLocationName": "elsewhere"}))
    assert moved["status"] == "INVALID"
    assert (
        moved["statusReason"]
        == f"node {live['name']} at {live['url']} is at site {live['site']}, not elsewhere"
    )

    unknown = ok(
        ready_bus.post("/dr_nodes", json={"svcLocationName": live["site"], "fqdn": "dr9.example:8443"})
    )
    assert unknown["status"] == "INVALID"
    assert (
        unknown["statusReason"]
        == "no file-distribution node with URL host:port dr9.example:8443 has registered"
    )
    statuses = {node["fqdn"]: node["status"] for node in ok(ready_bus.get("/dr_nodes"))}
    assert statuses == {live["fqdn"]: "INVALID", "dr9.example:8443": "INVALID"}
