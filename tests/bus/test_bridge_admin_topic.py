"""Issue 36, point 2, as the bus controller sees it: a bridge-admin topic a router.writer made on a
cluster's router before is refused by that router, and the cluster is INVALID naming why, until an
administrator deletes that topic there."""

from __future__ import annotations

import httpx
import pytest

from netplatform.settings import Settings

from ..conftest import RunningService, ServiceStarter, SettingsFactory
from ..support.answers import ok
from ..support.servers import http_client
from ..support.waiting import wait_until
from .conftest import BUS_SETTINGS, ROUTER_ALIASES, using

USERS = "admin:admin,mallory:mallory-pw:router.writer"
ADMIN_TOPIC = BUS_SETTINGS["bridgeAdminTopic"]


@pytest.fixture
def settings(make_settings: SettingsFactory) -> Settings:
    return make_settings(users=USERS, bus_router_timeout_s=5, bus_reconcile_s=0.5)


def test_a_cluster_whose_router_holds_a_writers_bridge_admin_topic_is_invalid(
    start_service: ServiceStarter, settings: Settings, authz: RunningService
) -> None:
    router = start_service("router", also_on=ROUTER_ALIASES)
    with http_client(router.url, auth=("mallory", "mallory-pw")) as mallory:
        ok(mallory.post("/topics/create", json={"topicName": ADMIN_TOPIC}))
        plant = {"createMirrorMaker": {"name": "hers", "sourceUrl": "http://127.0.0.1:9"}}
        ok(mallory.post(f"/events/{ADMIN_TOPIC}", json=plant))
    bus = start_service("bus", using(settings, authz))
    with bus.client() as admin, http_client(router.url) as router_admin:
        ok(admin.put("/bus", json=BUS_SETTINGS))
        ok(admin.post("/svcLocations", json={"svcLocationName": "edge-1", "svcLayer": "edge"}))
        cluster = {"svcLocationName": "edge-1", "fqdn": "localhost", "topicProtocol": "http"}
        registered = ok(admin.post("/mr_clusters", json={**cluster, "topicPort": str(router.server.port)}))
        assert registered["status"] == "INVALID"
        assert (
            f"topic {ADMIN_TOPIC} exists and was not made by this router for the platform (owner mallory)"
            in registered["statusReason"]
        )
        assert ok(router_admin.get("/internal/mirror-agents")) == {"adminTopic": None, "agents": []}
        # An administrator deletes it there: the next reconcile makes the platform's own, VALID.
        ok(router_admin.delete(f"/topics/{ADMIN_TOPIC}"), 204)
        wait_until(lambda: cluster_status(admin) == "VALID", timeout=15)
        assert ok(router_admin.get(f"/topics/{ADMIN_TOPIC}"))["owner"] == "svc.mirror"
        assert ok(router_admin.get("/internal/mirror-agents"))["agents"] == []  # hers never applied


def cluster_status(admin: httpx.Client) -> str:
    status: str = ok(admin.get("/mr_clusters/edge-1"))["status"]
    return status
