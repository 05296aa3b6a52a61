"""A site on its own store takes its decisions from a replica of the central directory
(access/replica.py): central and the site each have a database of their own (the site on
SQLite), and only HTTP joins them."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from netplatform.settings import Settings

from ..conftest import RunningService, ServiceStarter, SettingsFactory
from ..support.answers import ok
from ..support.waiting import wait_until
from .conftest import ADMIN, PROPAGATION_S, client_as, new_identity, refused, within

EDGE_ADMIN = ("edge-admin", "edge-admin-pw")
POLICY_TYPES = "/policy/api/v1/policytypes"


def edge_settings(
    make_settings: SettingsFactory, tmp_path: Path, central: RunningService, **extra: object
) -> Settings:
    """A site with its own SQLite database and data directory, following ``central``."""
    values: dict[str, object] = {
        "data_dir": tmp_path / "edge",
        "database_url": None,
        "users": f"{EDGE_ADMIN[0]}:{EDGE_ADMIN[1]}",
        "authz_url": central.url,
        "authz_poll_s": 1.0,
    }
    values.update(extra)
    return make_settings(**values)


def synced(site: RunningService) -> None:
    """Wait for the site's first copy of the central directory (no decision is taken before)."""
    with httpx.Client(base_url=site.url) as anonymous:
        wait_until(
            lambda: anonymous.get("/health").json()["status"] == "UP", timeout=10, what="the first sync"
        )


def status(service: RunningService, auth: tuple[str, str], path: str = POLICY_TYPES) -> int:
    with client_as(service, auth) as client:
        return client.get(path).status_code


@pytest.fixture
def central(start_service: ServiceStarter, make_settings: SettingsFactory) -> RunningService:
    return start_service("authz", make_settings(users="admin:admin"))


def test_changes_made_at_central_apply_at_the_site_within_two_seconds(
    central: RunningService, start_service: ServiceStarter, make_settings: SettingsFactory, tmp_path: Path
) -> None:
    edge = start_service("policy", edge_settings(make_settings, tmp_path, central))
    with client_as(central, ADMIN) as admin:
        alice = new_identity(admin)
        ok(admin.post("/authz/userRole", json={"user": alice[0], "role": "policy.reader"}), 201)
        within(lambda: status(edge, alice), 200)  # the membership, and the identity's hash

        ok(admin.delete(f"/authz/userRole/{alice[0]}/policy.reader"))
        within(lambda: status(edge, alice), 403)

        ok(admin.post("/authz/userRole", json={"user": alice[0], "role": "policy.reader"}), 201)
        within(lambda: status(edge, alice), 200)
        ok(admin.put(f"/authn/cred/{alice[0]}", json={"password": "rotated-pw-1"}))
        within(lambda: status(edge, alice), 401)
        assert status(edge, (alice[0], "rotated-pw-1")) == 200


def test_the_site_refuses_changes_naming_central_and_answers_reads(
    central: RunningService, start_service: ServiceStarter, make_settings: SettingsFactory, tmp_path: Path
) -> None:
    site = start_service("authz", edge_settings(make_settings, tmp_path, central))
    synced(site)
    with client_as(central, ADMIN) as admin:
        bob = new_identity(admin)
    with client_as(site, EDGE_ADMIN) as client:
        refused(client.post("/authn/cred", json={"id": "x-edge", "password": "p"}), 409, central.url)
        refused(
            client.post("/authz/userRole", json={"user": bob[0], "role": "policy.reader"}), 409, central.url
        )
        wait_until(
            lambda: bob[0] in [u["id"] for u in ok(client.get("/authn/cred"))["user"]], timeout=PROPAGATION_S
        )
        ok(client.post("/authn/validate", json={"id": bob[0], "password": bob[1]}))  # a read, though a POST


def test_without_central_the_site_decides_from_its_replica_within_its_bound_then_503(
    central: RunningService, start_service: ServiceStarter, make_settings: SettingsFactory, tmp_path: Path
) -> None:
    edge = start_service("policy", edge_settings(make_settings, tmp_path, central, authz_offline_s=4.0))
    with client_as(central, ADMIN) as admin:
        carol = new_identity(admin)
        ok(admin.post("/authz/userRole", json={"user": carol[0], "role": "policy.reader"}), 201)
    within(lambda: status(edge, carol), 200)
    central.server.stop()

    # Still deciding from the replica, and saying so.
    assert status(edge, carol) == 200
    with httpx.Client(base_url=edge.url) as anonymous:
        health = anonymous.get("/health").json()
        assert "replica of " + central.url in health["authz"]
        wait_until(lambda: anonymous.get("/health").status_code == 503, timeout=20, what="503 past the bound")
        down = anonymous.get("/health").json()
        assert down["status"] == "DOWN" and "NETPLATFORM_AUTHZ_OFFLINE_S" in down["reason"]
    answer = client_as(edge, carol).get(POLICY_TYPES)
    assert answer.status_code == 503 and "replica" in answer.text
    assert client_as(edge, EDGE_ADMIN).get(POLICY_TYPES).status_code == 503  # every decision
    metrics = httpx.get(f"{edge.url}/metrics", auth=EDGE_ADMIN)
    assert metrics.status_code == 503  # /metrics needs a decision too


def test_a_restarted_site_serves_from_its_stored_replica_without_central(
    central: RunningService, start_service: ServiceStarter, make_settings: SettingsFactory, tmp_path: Path
) -> None:
    settings = edge_settings(make_settings, tmp_path, central, authz_offline_s=600.0)
    edge = start_service("policy", settings)
    with client_as(central, ADMIN) as admin:
        dave = new_identity(admin)
        ok(admin.post("/authz/userRole", json={"user": dave[0], "role": "policy.reader"}), 201)
    within(lambda: status(edge, dave), 200)
    central.server.stop()
    edge.server.stop()

    again = start_service("policy", settings)
    assert status(again, dave) == 200
    with client_as(again, EDGE_ADMIN) as client:
        answer = client.get("/metrics")
    assert answer.status_code == 200
    metrics = answer.text
    age = re.search(r'^authz_directory_age_seconds\{source="[^"]+"\} (\S+)$', metrics, re.MULTILINE)
    assert age is not None and float(age.group(1)) >= 0


def test_a_site_that_never_reached_central_takes_no_decision(
    make_settings: SettingsFactory, start_service: ServiceStarter, tmp_path: Path
) -> None:
    nowhere = RunningService("authz", "http://127.0.0.1:9", make_settings(), None)  # type: ignore[arg-type]
    edge = start_service("policy", edge_settings(make_settings, tmp_path, nowhere))
    answer = client_as(edge, EDGE_ADMIN).get(POLICY_TYPES)
    assert answer.status_code == 503 and "never answered" in answer.text


def test_the_directory_feed_needs_the_node_role(central: RunningService) -> None:
    with client_as(central, ADMIN) as admin:
        reader = new_identity(admin)
        ok(admin.post("/authz/userRole", json={"user": reader[0], "role": "authz.reader"}), 201)
        snapshot = ok(admin.get("/internal/directory"))
        assert snapshot["directory"]["identities"] and "password" not in str(snapshot).replace(
            "passwordHash", ""
        )
        unchanged = ok(admin.get("/internal/directory", params={"after": snapshot["generation"], "wait": 0}))
        assert unchanged == {"generation": snapshot["generation"], "directory": None}
    with client_as(central, reader) as client:
        refused(client.get("/internal/directory"), 403)
