"""The bus controller routes a feed's members to the distribution nodes of their sites (spec 1.3).

One real distribution service (a node of its own site) is provisioned; its internal API shows
the egress and ingress routes the controller set.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from ..conftest import RunningService, ServiceStarter
from ..support.answers import ok
from .conftest import BUS_SETTINGS

SINK = {"deliveryURL": "https://sink.example/in", "username": "rx", "userpwd": "pw"}
FEED = {"feedName": "pm", "feedVersion": "1", "owner": "ops", "asprClassification": "unclassified"}


@pytest.fixture
def distribution(ready_bus: httpx.Client, start_service: ServiceStarter) -> RunningService:
    service = start_service("distribution")
    assert ready_bus.put("/bus", json={**BUS_SETTINGS, "drProvUrl": service.url}).status_code == 200
    return service


def the_node(distribution: RunningService) -> dict[str, Any]:
    with distribution.client() as http:
        [node] = http.get("/internal/nodes").json()
    return dict(node)


def route(distribution: RunningService, path: str) -> httpx.Response:
    with distribution.client() as http:
        return http.get(f"/internal/route/{path}")


def test_members_follow_the_nodes_their_site_has_now(
    ready_bus: httpx.Client, distribution: RunningService
) -> None:
    node = the_node(distribution)
    site = node["site"]
    feed = ok(ready_bus.post("/feeds", json=FEED))
    feed_id = feed["feedId"]
    sub = ok(ready_bus.post("/dr_subs", json={"feedId": feed_id, "svcLocationName": site,
                                              **SINK}))  # fmt: skip
    pub = ok(ready_bus.post("/dr_pubs", json={"feedId": feed_id, "svcLocationName": site}))
    # No /dr_nodes: nothing is routed; the publisher publishes at the feed's URL.
    assert sub["status"] == pub["status"] == "VALID"
    assert pub["publishURL"] == feed["publishURL"]
    assert route(distribution, f"egress/{sub['subId']}").status_code == 404

    ok(ready_bus.post("/dr_nodes", json={"svcLocationName": site, "fqdn": node["fqdn"]}))
    assert route(distribution, f"egress/{sub['subId']}").json()["node"] == node["name"]
    ingress = route(distribution, f"ingress/{feed_id}/{pub['username']}").json()
    assert ingress["sites"] == [site]
    now = ok(ready_bus.get(f"/dr_pubs/{pub['pubId']}"))
    assert now["status"] == "VALID" and now["publishURL"] == f"{node['url']}/publish/{feed_id}"
    assert ok(ready_bus.get(f"/dr_subs/{sub['subId']}"))["status"] == "VALID"

    ok(ready_bus.delete(f"/dr_nodes/{node['fqdn']}"), 204)
    assert route(distribution, f"egress/{sub['subId']}").status_code == 404
    assert route(distribution, f"ingress/{feed_id}/{pub['username']}").status_code == 404
    assert ok(ready_bus.get(f"/dr_pubs/{pub['pubId']}"))["publishURL"] == feed["publishURL"]


def test_a_member_at_a_site_whose_nodes_never_registered_is_invalid_with_the_reason(
    ready_bus: httpx.Client, distribution: RunningService
) -> None:
    ok(ready_bus.post("/dr_nodes", json={"svcLocationName": "site-x", "fqdn": "dr-x.example:8443"}))
    feed = ok(ready_bus.post("/feeds", json=FEED))
    reason = (
        "route to its site's node not set: "
        "no file-distribution node of site site-x (dr-x.example:8443) has registered"
    )
    sub = ok(ready_bus.post("/dr_subs", json={"feedId": feed["feedId"], "svcLocationName": "site-x",
                                              **SINK}))  # fmt: skip
    assert (sub["status"], sub["statusReason"]) == ("INVALID", reason)
    assert sub["subId"] is not None, "the subscription exists there; only its route is missing"
    pub = ok(ready_bus.post("/dr_pubs", json={"feedId": feed["feedId"], "svcLocationName": "site-x"}))
    assert (pub["status"], pub["statusReason"]) == ("INVALID", reason)
    elsewhere = ok(ready_bus.post("/dr_pubs", json={"feedId": feed["feedId"], "svcLocationName": "site-y"}))
    assert elsewhere["status"] == "VALID" and elsewhere["publishURL"] == feed["publishURL"]
