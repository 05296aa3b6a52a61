"""The bus in Chromium: sites, clusters, nodes, topics with their clients and status (the reason
when INVALID), and the mirror bridges drawn as a graph, all created through the bus API.

The central cluster is the serve process's own message router; the edge cluster's router is a
closed port, so its client is INVALID with the bus's reason, as a person would find it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from playwright.sync_api import expect

from ..support.servers import free_port
from .conftest import ADMIN, assert_fits_phone, shoot

FQTN = "org.example.bus.lab1.alarms"


@pytest.fixture(scope="module")
def bus(platform: dict[str, str]) -> Iterator[httpx.Client]:
    router = urlsplit(platform["router"])
    with httpx.Client(base_url=platform["bus"], auth=ADMIN, timeout=60) as client:
        settings = {
            "busName": "lab1",
            "topicNsRoot": "org.example.bus",
            "drProvUrl": platform["distribution"],
            "bridgeAdminTopic": "org.example.bus.admin",
        }
        assert client.put("/bus", json=settings).status_code == 200
        for name, layer in (("dc-central-1", "central"), ("dc-edge-1", "local")):
            site = {
                "svcLocationName": name,
                "svcLayer": layer,
                "clli": "NYCMNY",
                "cloudAvailabilityZone": "az1",
            }
            assert client.post("/svcLocations", json=site).status_code == 200
        central = {"svcLocationName": "dc-central-1", "fqdn": router.hostname, "topicProtocol": "http"}
        edge = {"svcLocationName": "dc-edge-1", "fqdn": "localhost", "topicProtocol": "http"}
        assert client.post("/mr_clusters", json={**central, "topicPort": str(router.port)}).status_code == 200
        assert client.post("/mr_clusters", json={**edge, "topicPort": str(free_port())}).status_code == 200
        node = {
            "fqdn": "dr1.central.example",
            "svcLocationName": "dc-central-1",
            "hostName": "dr1",
            "version": "1",
        }
        assert client.post("/dr_nodes", json=node).status_code == 200
        clients = [
            {
                "svcLocationName": "dc-central-1",
                "clientRole": "org.example.client.sub",
                "action": ["sub", "view"],
            },
            {"svcLocationName": "dc-edge-1", "clientRole": "org.example.client.pub", "action": ["pub"]},
        ]
        topic = {
            "topicName": "alarms",
            "topicDescription": "alarm stream",
            "owner": "noc",
            "clients": clients,
        }
        assert client.post("/topics", json=topic).status_code == 200, client.get("/topics").text
        yield client


def test_sites_clusters_nodes_and_topics(page: Any, bus: httpx.Client) -> None:
    page.get_by_role("link", name="Bus", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Bus")
    expect(
        page.locator("#sites").get_by_role("row", name="dc-central-1 central (central) NYCMNY az1")
    ).to_be_visible()
    expect(page.locator("#clusters caption")).to_have_text("Message-router clusters: 2")
    expect(
        page.locator("#nodes").get_by_role("row", name="dr1.central.example dc-central-1 dr1 1")
    ).to_be_visible()
    row = page.locator("#topics").get_by_role("row").filter(has_text=FQTN)
    expect(row).to_contain_text("REPLICATION_EDGE_TO_CENTRAL")
    topic = bus.get(f"/topics/{FQTN}").json()
    expect(row.locator(".status")).to_have_text(topic["status"])


def test_the_mirror_bridges_are_a_graph_of_clusters(page: Any, bus: httpx.Client) -> None:
    page.goto("/bus#bridges")
    agents = [b for b in bus.get("/bridge?detail=true").json() if b["brSource"] != "all"]
    assert agents, "the topic needs a bridge from the edge to the central cluster"
    graph = page.get_by_role("img", name="Clusters and the mirror agents between them: 1 agents")
    expect(graph).to_be_visible()
    expect(graph.locator(".cluster-node")).to_have_count(2)
    expect(graph.locator("line.edge")).to_have_count(1)
    agent = agents[0]["mmAgentName"]
    expect(page.locator("#agents").get_by_role("row", name=f"{agent} localhost")).to_contain_text("1")
    shoot(page, "bus")
    assert_fits_phone(page)
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("document.documentElement.scrollWidth") <= 390, "no sideways scrolling on a phone"


def test_a_topic_shows_its_clients_and_why_one_is_invalid(page: Any, bus: httpx.Client) -> None:
    page.goto("/bus")
    page.get_by_role("link", name=FQTN).click()
    expect(page.get_by_role("heading", level=1)).to_have_text(FQTN)
    clients = {c["svcLocationName"]: c for c in bus.get(f"/topics/{FQTN}").json()["clients"]}
    edge = clients["dc-edge-1"]
    assert edge["status"] == "INVALID" and edge.get("statusReason"), edge
    row = page.locator("#clients").get_by_role("row").filter(has_text="dc-edge-1")
    expect(row.locator(".status")).to_have_text("INVALID")
    expect(row.locator(".reason")).to_have_text(edge["statusReason"])
    central = page.locator("#clients").get_by_role("row").filter(has_text="dc-central-1")
    expect(central).to_contain_text("sub, view")
    expect(central).to_contain_text(
        f"http://127.0.0.1:{urlsplit(clients['dc-central-1']['topicURL']).port}/events/{FQTN}"
    )
    shoot(page, "bus-topic")
    assert_fits_phone(page)
