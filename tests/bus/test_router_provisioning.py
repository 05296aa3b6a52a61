"""The bus controller provisions real message routers and the real authz service: topics, roles,
grants, memberships, revokes, status, bridge messages.

Every router here is netplatform.router over real HTTP, and so is the authz service. The
clients' identities are users of the router (the same NETPLATFORM_USERS as the bus controller,
whose first user administers routers and authz). A topic under the namespace root has roles: its
routers grant them, and a client naming an identity makes it a member in authz, which the
router reads. A topic outside the root has none: identities are granted on the router by name.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from netplatform.router import create_app as create_router
from netplatform.server import bind_socket
from netplatform.services import create_service_app
from netplatform.settings import Settings
from netplatform.store.db import forget_database

from ..conftest import RunningService, ServiceStarter, SettingsFactory
from ..support.answers import ok
from ..support.databases import migrate, temporary_database
from ..support.servers import LiveServer, free_port, http_client
from ..support.waiting import wait_until
from .conftest import (
    BUS_SETTINGS,
    ROUTER_ALIASES,
    SHORT_AGENT_POLLS,
    own_router_settings,
    router_of_its_own,
    site,
    using,
)

USERS = "admin:admin,alice:alice-pw,bob:bob-pw,carol:carol-pw:publishers,mallory:mallory-pw"
ALICE, BOB, CAROL = ("alice", "alice-pw"), ("bob", "bob-pw"), ("carol", "carol-pw")
MALLORY = ("mallory", "mallory-pw")
FQTN = "org.example.bus.lab1.alarms"
PUBLISHERS, SUBSCRIBERS = f"{FQTN}.publisher", f"{FQTN}.subscriber"
# As a router's ACL names them: roles are ``role:<name>``, identities their name (issue 36).
PUBLISHERS_ROLE, SUBSCRIBERS_ROLE = f"role:{PUBLISHERS}", f"role:{SUBSCRIBERS}"
OUTSIDE = "com.other.alarms"  # a topicName with a dot is its fqtn: outside the root, no roles
ADMIN_TOPIC = BUS_SETTINGS["bridgeAdminTopic"]
PROPAGATION_S = 2.0  # a membership change applies within this (docs/security.md)


@pytest.fixture(params=[3600.0])
def bus_settings(make_settings: SettingsFactory, request: pytest.FixtureRequest) -> Settings:
    """Only retries by request, unless a test asks for a fast background reconcile."""
    return make_settings(
        users=USERS, bus_reconcile_s=request.param, bus_router_timeout_s=2, **SHORT_AGENT_POLLS
    )


fast_reconcile = pytest.mark.parametrize("bus_settings", [0.3], indirect=True)


@pytest.fixture
def router(start_service: ServiceStarter, bus_settings: Settings) -> RunningService:
    return start_service("router", bus_settings, also_on=ROUTER_ALIASES)


@pytest.fixture
def authz(start_service: ServiceStarter, bus_settings: Settings) -> RunningService:
    return start_service("authz", bus_settings)


@pytest.fixture
def bus(
    start_service: ServiceStarter, bus_settings: Settings, authz: RunningService
) -> Iterator[httpx.Client]:
    with start_service("bus", using(bus_settings, authz)).client() as client:
        ok(client.put("/bus", json=BUS_SETTINGS))
        yield client


def cluster_at(port: int, fqdn: str = "localhost") -> dict[str, Any]:
    return {"fqdn": fqdn, "topicProtocol": "http", "topicPort": str(port)}


def topic_with(bus: httpx.Client, *clients: dict[str, Any], name: str = "alarms") -> dict[str, Any]:
    body = {"topicName": name, "topicDescription": "d", "owner": "noc", "clients": list(clients)}
    topic: dict[str, Any] = ok(bus.post("/topics", json=body))
    return topic


def pub(identity: str, place: str = "dc-central-1", **fields: Any) -> dict[str, Any]:
    return {"svcLocationName": place, "clientIdentity": identity, "action": ["pub", "view"], **fields}


def sub(identity: str, place: str = "dc-central-1") -> dict[str, Any]:
    return {"svcLocationName": place, "clientIdentity": identity, "action": ["sub"]}


def publish(url: str, auth: tuple[str, str], message: dict[str, Any]) -> httpx.Response:
    return httpx.post(url, json=message, auth=auth, timeout=30)


def fetch(url: str, auth: tuple[str, str], group: str = "g1") -> httpx.Response:
    return httpx.get(f"{url}/{group}/c1", params={"timeout": 2000}, auth=auth, timeout=30)


def router_topic(router_url: str, fqtn: str) -> dict[str, Any]:
    with http_client(router_url) as client:
        topic: dict[str, Any] = ok(client.get(f"/topics/{fqtn}"))
        return topic


def roles_of(authz_url: str, user: str) -> set[str]:
    """The roles authz says ``user`` holds now."""
    with http_client(authz_url) as client:
        return {role["name"] for role in ok(client.get(f"/authz/roles/user/{user}"))["role"]}


def role_exists(authz_url: str, role: str) -> bool:
    with http_client(authz_url) as client:
        return role in {entry["name"] for entry in ok(client.get("/authz/roles"))["role"]}


def publishes(url: str, auth: tuple[str, str]) -> int:
    return publish(url, auth, {"probe": True}).status_code


def test_topic_roles_memberships_and_a_working_topic_url(
    bus: httpx.Client, router: RunningService, authz: RunningService
) -> None:
    site(bus, "dc-central-1", "central", "localhost", **cluster_at(router.server.port, "localhost"))
    created = topic_with(bus, pub("alice"), sub("bob"))
    assert created["status"] == "VALID", created
    assert (created["publisherRole"], created["subscriberRole"]) == (PUBLISHERS, SUBSCRIBERS)
    writer, reader = created["clients"]
    assert writer["status"] == reader["status"] == "VALID"
    assert "statusReason" not in created and "statusReason" not in writer
    # The router grants the topic's roles; the identities are members of them in authz.
    there = router_topic(router.url, FQTN)
    assert there["writerAcl"] == {"enabled": True, "users": [PUBLISHERS_ROLE]}
    assert there["readerAcl"] == {"enabled": True, "users": [SUBSCRIBERS_ROLE]}
    assert there["description"] == "d"
    assert PUBLISHERS in roles_of(authz.url, "alice") and SUBSCRIBERS not in roles_of(authz.url, "alice")
    assert SUBSCRIBERS in roles_of(authz.url, "bob") and PUBLISHERS not in roles_of(authz.url, "bob")

    url = writer["topicURL"]
    assert url == f"http://localhost:{router.server.port}/events/{FQTN}"
    assert publish(url, ALICE, {"alarm": 1}).status_code == 200
    assert json.loads(fetch(reader["topicURL"], BOB).json()[0]) == {"alarm": 1}
    assert publish(url, MALLORY, {"alarm": 2}).status_code == 403
    assert fetch(url, MALLORY).status_code == 403
    assert publish(url, BOB, {"alarm": 3}).status_code == 403  # a subscriber only


def test_outside_the_namespace_root_identities_are_granted_by_name(
    bus: httpx.Client, router: RunningService, authz: RunningService
) -> None:
    site(bus, "dc-central-1", "central", "localhost", **cluster_at(router.server.port, "localhost"))
    created = topic_with(bus, pub("alice"), sub("bob"), name=OUTSIDE)
    assert created["status"] == "VALID" and "publisherRole" not in created
    there = router_topic(router.url, OUTSIDE)
    assert there["writerAcl"] == {"enabled": True, "users": ["alice"]}
    assert there["readerAcl"] == {"enabled": True, "users": ["bob"]}
    assert roles_of(authz.url, "alice") == set()
    assert publish(created["clients"][0]["topicURL"], ALICE, {"alarm": 1}).status_code == 200


@pytest.mark.parametrize("name", ["alarms", OUTSIDE])
def test_deleting_a_client_removes_what_it_added_unless_another_needs_it(
    bus: httpx.Client, router: RunningService, authz: RunningService, name: str
) -> None:
    """Under the root the membership goes (the topic's role grant stays); outside it, the grant."""
    site(bus, "dc-central-1", "central", "localhost", **cluster_at(router.server.port, "localhost"))
    created = topic_with(bus, pub("alice"), pub("alice"), sub("bob"), name=name)
    fqtn = created["fqtn"]
    first, second, reader = created["clients"]
    granted = [PUBLISHERS_ROLE] if name == "alarms" else ["alice"]

    def alice_added() -> bool:
        if name == "alarms":
            return PUBLISHERS in roles_of(authz.url, "alice")
        return "alice" in router_topic(router.url, fqtn)["writerAcl"]["users"]

    ok(bus.delete(f"/mr_clients/{first['mrClientId']}"), 204)
    assert router_topic(router.url, fqtn)["writerAcl"]["users"] == granted
    assert alice_added()
    assert publish(second["topicURL"], ALICE, {"n": 1}).status_code == 200
    ok(bus.delete(f"/mr_clients/{second['mrClientId']}"), 204)
    assert not alice_added()
    assert router_topic(router.url, fqtn)["writerAcl"]["users"] == (
        [PUBLISHERS_ROLE] if name == "alarms" else []
    )
    wait_until(lambda: publishes(second["topicURL"], ALICE) == 403, timeout=PROPAGATION_S)
    assert [c["mrClientId"] for c in ok(bus.get("/mr_clients"))] == [reader["mrClientId"]]
    assert ok(bus.get(f"/topics/{fqtn}"))["status"] == "VALID"


def test_a_client_role_is_granted_and_a_replaced_client_loses_its_old_grant(
    bus: httpx.Client, router: RunningService, authz: RunningService
) -> None:
    site(bus, "dc-central-1", "central", "localhost", **cluster_at(router.server.port, "localhost"))
    created = topic_with(bus, pub("alice", clientRole="publishers"))
    (client,) = created["clients"]
    assert sorted(router_topic(router.url, FQTN)["writerAcl"]["users"]) == [
        PUBLISHERS_ROLE,
        "role:publishers",
    ]
    assert PUBLISHERS not in roles_of(authz.url, "alice")  # clientRole takes precedence
    assert publish(client["topicURL"], CAROL, {"via": "role"}).status_code == 200
    assert publish(client["topicURL"], ALICE, {"via": "identity"}).status_code == 403
    # Its identity holds no such role: the client says so rather than VALID (issue 38).
    assert client["status"] == "INVALID"
    assert client["statusReason"].startswith(f"alice cannot publish to {FQTN} at the message router at ")
    assert client["statusReason"].endswith(f"alice is not permitted to publish to topic {FQTN}")
    replaced = ok(bus.put(f"/mr_clients/{client['mrClientId']}", json={"fqtn": FQTN, **pub("alice")}))
    assert replaced["status"] == "VALID"
    assert router_topic(router.url, FQTN)["writerAcl"]["users"] == [PUBLISHERS_ROLE]
    assert PUBLISHERS in roles_of(authz.url, "alice")
    wait_until(lambda: publishes(client["topicURL"], ALICE) == 200, timeout=PROPAGATION_S)
    assert publish(client["topicURL"], CAROL, {"via": "role"}).status_code == 403
    # And back: the membership the identity form added goes.
    ok(
        bus.put(
            f"/mr_clients/{client['mrClientId']}",
            json={"fqtn": FQTN, **pub("alice", clientRole="publishers")},
        )
    )
    assert PUBLISHERS not in roles_of(authz.url, "alice")


def test_an_identity_authz_does_not_know_leaves_the_client_invalid(
    bus: httpx.Client, router: RunningService, authz: RunningService
) -> None:
    site(bus, "dc-central-1", "central", "localhost", **cluster_at(router.server.port, "localhost"))
    created = topic_with(bus, pub("svc-b"))
    (client,) = created["clients"]
    assert client["status"] == "INVALID"
    assert client["statusReason"].startswith(f"Failed to add user svc-b to role {PUBLISHERS}: ")
    assert client["statusReason"].endswith("answered 404: No such identity: svc-b")
    assert created["status"] == "INVALID"
    assert f"client {client['mrClientId']}: Failed to add user svc-b" in created["statusReason"]
    with http_client(authz.url) as admin:
        ok(admin.post("/authn/cred", json={"id": "svc-b", "password": "svc-b-secret"}), 201)
    retried = ok(bus.put(f"/mr_clients/{client['mrClientId']}", json={"fqtn": FQTN, **pub("svc-b")}))
    assert retried["status"] == "VALID" and "statusReason" not in retried
    assert ok(bus.get(f"/topics/{FQTN}"))["status"] == "VALID"
    assert publish(client["topicURL"], ("svc-b", "svc-b-secret"), {"n": 1}).status_code == 200


def test_deleting_a_topic_deletes_its_roles(
    bus: httpx.Client, router: RunningService, authz: RunningService
) -> None:
    site(bus, "dc-central-1", "central", "localhost", **cluster_at(router.server.port, "localhost"))
    topic_with(bus, pub("alice"))
    assert role_exists(authz.url, PUBLISHERS) and role_exists(authz.url, SUBSCRIBERS)
    ok(bus.delete(f"/topics/{FQTN}"), 204)
    assert not role_exists(authz.url, PUBLISHERS) and not role_exists(authz.url, SUBSCRIBERS)
    assert PUBLISHERS not in roles_of(authz.url, "alice")
    again = topic_with(bus, pub("alice"))  # the same name: the roles come back
    assert again["status"] == "VALID" and PUBLISHERS in roles_of(authz.url, "alice")


def test_registering_a_cluster_pushes_every_topic(bus: httpx.Client, router: RunningService) -> None:
    topic_with(bus, name="first")
    topic_with(bus, name="second")
    created = ok(
        bus.post("/mr_clusters", json={"svcLocationName": "edge-1", **cluster_at(router.server.port)})
    )
    assert created["status"] == "VALID", created
    with http_client(router.url) as client:
        names = ok(client.get("/topics"))["topics"]
    assert {"org.example.bus.lab1.first", "org.example.bus.lab1.second"} <= set(names)


def restartable_router(settings: Settings, port: int) -> LiveServer:
    """A router on a chosen port, so that it can stop and come back where clusters point."""
    return restartable(create_router(settings), port)


def restartable(app: Any, port: int) -> LiveServer:
    """A server of ``app`` on a chosen port, so that it can stop and come back where the bus points."""
    server = LiveServer(app)
    server.sock.close()
    server.sock = bind_socket("127.0.0.1", port)
    server.port = port
    server.url = f"http://127.0.0.1:{port}"
    return server


def test_a_router_that_is_down_gives_invalid_until_a_put_retries(
    bus: httpx.Client, bus_settings: Settings
) -> None:
    port = free_port()
    down = ok(bus.post("/mr_clusters", json={"svcLocationName": "dc-central-1", **cluster_at(port)}))
    ok(bus.post("/svcLocations", json={"svcLocationName": "dc-central-1", "svcLayer": "central"}))
    assert down["status"] == "INVALID"  # no topic to push yet, and yet the router did not answer
    created = topic_with(bus, pub("alice"), sub("bob"))
    assert created["status"] == "INVALID"
    assert "message router unreachable" in created["statusReason"]
    for client in created["clients"]:
        assert client["status"] == "INVALID"
        assert f"localhost:{port}" in client["statusReason"]

    # A fixed wait on purpose: an absence has no condition to await: room for a retry, were there one.
    time.sleep(0.5)
    assert ok(bus.get(f"/topics/{FQTN}"))["status"] == "INVALID"  # nothing retries by itself here
    with restartable_router(bus_settings, port):
        retried = ok(bus.put(f"/topics/{FQTN}", json={"topicDescription": "again"}))
        assert retried["status"] == "VALID"
        assert all(client["status"] == "VALID" for client in retried["clients"])
        assert "statusReason" not in retried
        assert publish(retried["clients"][0]["topicURL"], ALICE, {"n": 1}).status_code == 200
        assert ok(
            bus.put(f"/mr_clients/{created['clients'][1]['mrClientId']}", json={"fqtn": FQTN, **sub("bob")})
        )


def test_a_put_that_leaves_placement_as_it_was_keeps_a_valid_topic_without_the_routers(
    bus: httpx.Client, bus_settings: Settings
) -> None:
    port = free_port()
    with restartable_router(bus_settings, port):
        site(bus, "dc-central-1", "central", "localhost", **cluster_at(port, "localhost"))
        created = topic_with(bus, pub("alice"), sub("bob"))
        assert created["status"] == "VALID", created
    # The router is down now: a PUT that asked anything of it would leave the topic INVALID.
    changed = ok(bus.put(f"/topics/{FQTN}", json={"topicDescription": "new words", "owner": "ops"}))
    assert (changed["status"], changed["topicDescription"], changed["owner"]) == ("VALID", "new words", "ops")
    assert "statusReason" not in changed
    assert all(client["status"] == "VALID" for client in changed["clients"])
    # A new placement is provisioned again, and says that the router did not take it.
    moved = ok(bus.put(f"/topics/{FQTN}", json={"globalMrURL": "global.example.net"}))
    assert moved["status"] == "INVALID"
    assert "message router unreachable" in moved["statusReason"]


@fast_reconcile
def test_the_background_reconcile_retries_when_the_router_is_back(
    bus: httpx.Client, bus_settings: Settings
) -> None:
    port = free_port()
    site(bus, "dc-central-1", "central", "localhost", **cluster_at(port, "localhost"))
    created = topic_with(bus, pub("alice"), sub("bob"))
    assert created["status"] == "INVALID"
    (late,) = [c for c in created["clients"] if c["clientIdentity"] == "bob"]
    assert late["status"] == "INVALID"
    with restartable_router(bus_settings, port):
        wait_until(lambda: ok(bus.get(f"/mr_clients/{late['mrClientId']}"))["status"] == "VALID")
        wait_until(lambda: ok(bus.get(f"/topics/{FQTN}"))["status"] == "VALID")
        assert router_topic(f"http://127.0.0.1:{port}", FQTN)["readerAcl"]["users"] == [SUBSCRIBERS_ROLE]


def test_a_delete_while_the_router_is_down_is_kept_deleted_and_retried(
    bus: httpx.Client, bus_settings: Settings
) -> None:
    """Outside the namespace root, where the client's grant on the router is what it added."""
    port = free_port()
    with restartable_router(bus_settings, port):
        site(bus, "dc-central-1", "central", "localhost", **cluster_at(port, "localhost"))
        created = topic_with(bus, pub("alice"), name=OUTSIDE)
    client_id = created["clients"][0]["mrClientId"]
    ok(bus.delete(f"/mr_clients/{client_id}"), 204)
    pending = ok(bus.get(f"/mr_clients/{client_id}"))
    assert pending["status"] == "DELETED"
    assert "unreachable" in pending["statusReason"]
    assert bus.put(f"/mr_clients/{client_id}", json={"fqtn": OUTSIDE, **pub("bob")}).status_code == 404
    with restartable_router(bus_settings, port):
        ok(bus.delete(f"/mr_clients/{client_id}"), 204)
        assert bus.get(f"/mr_clients/{client_id}").status_code == 404
        users = router_topic(f"http://127.0.0.1:{port}", OUTSIDE)["writerAcl"]["users"]
        assert users == []


@fast_reconcile
def test_what_authz_did_not_take_is_invalid_and_retried(
    start_service: ServiceStarter, bus_settings: Settings, router: RunningService
) -> None:
    """authz down: the topic and its client are INVALID, naming the failed call (the topic goes to
    no router while its roles are not known to be the bus's); a deleted client
    stays DELETED and a deleted topic's roles stay; the background reconcile does each once authz
    is back."""
    port = free_port()
    authz_url = f"http://127.0.0.1:{port}"
    settings = bus_settings.model_copy(update={"bus_authz_url": authz_url})
    bus = start_service("bus", settings).client()
    ok(bus.put("/bus", json=BUS_SETTINGS))
    site(bus, "dc-central-1", "central", "localhost", **cluster_at(router.server.port, "localhost"))

    created = topic_with(bus, pub("alice"))
    (client,) = created["clients"]
    assert created["status"] == client["status"] == "INVALID"
    assert f"Failed to create role {PUBLISHERS}: authz service unreachable" in created["statusReason"]
    # Its roles are not known to be the bus's: the topic goes to no router until they are (issue 36).
    assert client["statusReason"].startswith(f"Failed to create role {PUBLISHERS}: authz service unreachable")
    with restartable(create_service_app("authz", bus_settings), port):
        wait_until(lambda: ok(bus.get(f"/topics/{FQTN}"))["status"] == "VALID")
        assert ok(bus.get(f"/mr_clients/{client['mrClientId']}"))["status"] == "VALID"
        assert PUBLISHERS in roles_of(authz_url, "alice")

    # A replaced client's membership that authz did not remove is retried too.
    as_role = {"fqtn": FQTN, **pub("alice", clientRole="publishers")}
    replaced = ok(bus.put(f"/mr_clients/{client['mrClientId']}", json=as_role))
    assert replaced["status"] == "INVALID"
    assert f"Failed to remove user alice from role {PUBLISHERS}" in replaced["statusReason"]
    second = ok(bus.post("/mr_clients", json={"fqtn": FQTN, **sub("bob")}))
    assert second["status"] == "INVALID"
    with restartable(create_service_app("authz", bus_settings), port):
        wait_until(lambda: PUBLISHERS not in roles_of(authz_url, "alice"))
        wait_until(lambda: ok(bus.get(f"/mr_clients/{second['mrClientId']}"))["status"] == "VALID")
        assert SUBSCRIBERS in roles_of(authz_url, "bob")

    ok(bus.delete(f"/mr_clients/{second['mrClientId']}"), 204)
    deleting = ok(bus.get(f"/mr_clients/{second['mrClientId']}"))
    assert deleting["status"] == "DELETED"
    assert deleting["statusReason"].startswith(f"Failed to remove user bob from role {SUBSCRIBERS}: ")
    ok(bus.delete(f"/topics/{FQTN}"), 204)
    with restartable(create_service_app("authz", bus_settings), port):
        wait_until(lambda: not role_exists(authz_url, PUBLISHERS) and not role_exists(authz_url, SUBSCRIBERS))
        assert SUBSCRIBERS not in roles_of(authz_url, "bob")
    bus.close()


# --- mirror bridges ------------------------------------------------------------------------------


@pytest.fixture
def central_router(
    tmp_path_factory: pytest.TempPathFactory, authz: RunningService
) -> Iterator[RunningService]:
    """The central cluster's router: another router, on a database of its own, whose decisions
    come from a replica of the authz service's directory (as a site's router's do, issue 38):
    the memberships the bus adds there admit the clients' identities here."""
    follow = {"authz_url": authz.url, "authz_poll_s": 1.0}
    with router_of_its_own(tmp_path_factory.mktemp("central"), USERS, **follow) as router:
        wait_until(lambda: httpx.get(f"{router.url}/health").status_code == 200, 20, "the first sync")
        yield router


def listed_agents(router_url: str) -> dict[str, Any]:
    with http_client(router_url) as client:
        listing: dict[str, Any] = ok(client.get("/internal/mirror-agents"))
    return listing


def admin_messages(router_url: str, group: str) -> list[dict[str, Any]]:
    with http_client(router_url) as client:
        answer = client.get(f"/events/{ADMIN_TOPIC}/{group}/c1", params={"timeout": 1000})
    return [json.loads(text) for text in ok(answer)]


def test_bridge_messages_go_to_the_target_router(
    bus: httpx.Client, router: RunningService, central_router: RunningService
) -> None:
    site(bus, "edge-1", "edge", "127.0.0.2", **cluster_at(router.server.port, "127.0.0.2"))
    site(bus, "central-1", "central", "localhost", **cluster_at(central_router.server.port, "localhost"))
    created = topic_with(bus, pub("alice", "edge-1"), sub("bob", "central-1"))
    assert created["replicationCase"] == "REPLICATION_EDGE_TO_CENTRAL"
    assert created["status"] == "VALID", created
    agent = "127.0.0.2-To-localhost"
    assert ok(bus.get("/bridge", params={"mmagent": agent, "detail": "true"}))["status"] == "VALID"
    # VALID because the target router lists the agent running, as it was sent.
    (running,) = listed_agents(central_router.url)["agents"]
    assert running["name"] == agent and running["whitelist"] == [FQTN]
    assert running["source"] == f"http://127.0.0.2:{router.server.port}"
    assert (running["state"], running["instance"]) == ("running", "central")

    create, whitelist = admin_messages(central_router.url, "mm")
    assert create["createMirrorMaker"] == {
        "name": agent,
        "consumer": "127.0.0.2:2181",
        "producer": "localhost:9092",
        "numStreams": "10",
        "sourceUrl": f"http://127.0.0.2:{router.server.port}",
    }
    assert whitelist["updateWhiteList"] == {"name": agent, "whitelist": FQTN}
    assert create["messageID"].isdigit() and whitelist["messageID"].isdigit()
    assert listed_agents(router.url)["agents"] == []  # only the target is sent the agent
    assert FQTN in router_topic(central_router.url, FQTN)["name"]

    ok(bus.put("/bridge", params={"mmagent": agent, "refresh": "true"}))
    resent = admin_messages(central_router.url, "mm")
    assert [next(iter(set(m) - {"messageID"})) for m in resent] == ["createMirrorMaker", "updateWhiteList"]
    assert resent[1]["updateWhiteList"]["whitelist"] == FQTN


def test_a_target_that_reads_another_admin_topic_leaves_the_bridge_invalid(
    bus: httpx.Client, router: RunningService, bus_settings: Settings
) -> None:
    """The target router's NETPLATFORM_ROUTER_BRIDGE_ADMIN_TOPIC overrides what the bus tells it:
    its answer to the mirror settings says so, the bus sends no agent message, and the bridge
    says why at once."""
    port = free_port()
    elsewhere = bus_settings.model_copy(update={"router_bridge_admin_topic": "org.example.other.admin"})
    with restartable_router(elsewhere, port):
        site(bus, "edge-1", "edge", "127.0.0.2", **cluster_at(router.server.port, "127.0.0.2"))
        site(bus, "central-1", "central", "localhost", **cluster_at(port, "localhost"))
        created = topic_with(bus, pub("alice", "edge-1"), sub("bob", "central-1"))
        assert created["status"] == "INVALID"
        assert all(client["status"] == "VALID" for client in created["clients"])
        agent = ok(bus.get("/bridge", params={"mmagent": "127.0.0.2-To-localhost", "detail": "true"}))
        assert agent["status"] == "INVALID"
        assert agent["statusReason"] == (
            f"the message router at http://localhost:{port} defines its mirror agents on topic "
            f"org.example.other.admin, not on bridgeAdminTopic {ADMIN_TOPIC}"
        )
        assert f"mirror agent 127.0.0.2-To-localhost: {agent['statusReason']}" in created["statusReason"]
        told = mirror_settings(f"http://127.0.0.1:{port}")
        assert (told["configuredAdminTopic"], told["adminTopicOverride"]) == (ADMIN_TOPIC, True)
        # Not sent: the router's answer to the settings said it reads another topic.
        assert admin_messages(f"http://127.0.0.1:{port}", "mm") == []


@fast_reconcile
def test_a_bridge_whose_target_is_down_is_invalid_and_retried(
    bus: httpx.Client, router: RunningService, authz: RunningService, tmp_path: Path
) -> None:
    port = free_port()
    site(bus, "edge-1", "edge", "127.0.0.2", **cluster_at(router.server.port, "127.0.0.2"))
    ok(bus.post("/svcLocations", json={"svcLocationName": "central-1", "svcLayer": "central"}))
    ok(bus.post("/mr_clusters", json={"svcLocationName": "central-1", **cluster_at(port)}))
    created = topic_with(bus, pub("alice", "edge-1"), sub("bob", "central-1"))
    assert created["status"] == "INVALID"
    assert "mirror agent 127.0.0.2-To-localhost" in created["statusReason"]
    name = "127.0.0.2-To-localhost"

    def agent() -> dict[str, Any]:
        found: dict[str, Any] = ok(bus.get("/bridge", params={"mmagent": name, "detail": "true"}))
        return found

    assert agent()["status"] == "INVALID" and "unreachable" in agent()["statusReason"]
    with temporary_database() as url:  # the central router, on a database of its own
        # Its decisions from a replica of the authz service's directory, as a site's router's.
        central = own_router_settings(tmp_path / "central", USERS, url, authz_url=authz.url, authz_poll_s=1.0)
        migrate(central)
        try:
            up_again(bus, agent, central, port)
        finally:
            forget_database(central)


def up_again(bus: httpx.Client, agent: Callable[[], dict[str, Any]], central: Settings, port: int) -> None:
    """The target router back, first reading another bridge-admin topic than the bus's (its
    environment overrides what the bus tells it): no message is sent, no agent runs, INVALID;
    then on its defaults: VALID."""
    name = "127.0.0.2-To-localhost"
    elsewhere = central.model_copy(update={"router_bridge_admin_topic": "org.example.other.admin"})
    with restartable_router(elsewhere, port):
        wait_until(lambda: "not on bridgeAdminTopic" in agent().get("statusReason", ""))
        assert agent()["status"] == "INVALID"
        assert listed_agents(f"http://127.0.0.1:{port}")["agents"] == []
    with restartable_router(central, port):
        wait_until(lambda: ok(bus.get(f"/topics/{FQTN}"))["status"] == "VALID")
        assert agent()["status"] == "VALID" and "statusReason" not in agent()
        messages = admin_messages(f"http://127.0.0.1:{port}", "mm")
        assert messages[-1]["updateWhiteList"] == {"name": name, "whitelist": FQTN}
        (running,) = listed_agents(f"http://127.0.0.1:{port}")["agents"]
        assert (running["name"], running["whitelist"], running["state"]) == (name, [FQTN], "running")


# --- the truth, re-verified (issue 24, 1, 2, 3, 6) -----------------------------------------------


def mirror_settings(router_url: str) -> dict[str, Any]:
    with http_client(router_url) as client:
        found: dict[str, Any] = ok(client.get("/internal/mirror-settings"))
    return found


@fast_reconcile
def test_a_cluster_whose_router_is_down_is_invalid_until_a_pass_finds_it(
    bus: httpx.Client, bus_settings: Settings
) -> None:
    """No topic to push: the cluster is VALID only once its router answered (health, mirror settings)."""
    port = free_port()
    down = ok(bus.post("/mr_clusters", json={"svcLocationName": "edge-1", **cluster_at(port)}))
    assert down["status"] == "INVALID"
    assert f"message router unreachable at http://localhost:{port}/health" in down["statusReason"]
    assert "lastVerified" not in down
    with restartable_router(bus_settings, port):
        wait_until(lambda: ok(bus.get("/mr_clusters/edge-1"))["status"] == "VALID")
        wait_until(lambda: "lastVerified" in ok(bus.get("/mr_clusters/edge-1")))
        told = mirror_settings(f"http://127.0.0.1:{port}")
        assert (told["adminTopic"], told["configuredAdminTopic"]) == (ADMIN_TOPIC, ADMIN_TOPIC)
        assert told["sourceUser"] == "svc.mirror"  # the router's own identity: no credential is told
        assert "sourcePassword" not in told
        assert told["sources"] == [f"http://localhost:{port}"]  # the registered clusters' routers


@fast_reconcile
def test_a_topic_deleted_on_the_router_behind_the_bus_is_created_again(
    bus: httpx.Client, router: RunningService
) -> None:
    site(bus, "dc-central-1", "central", "localhost", **cluster_at(router.server.port, "localhost"))
    created = topic_with(bus, pub("alice"), sub("bob"))
    assert created["status"] == "VALID", created
    wait_until(lambda: "lastVerified" in ok(bus.get(f"/topics/{FQTN}")))
    first = ok(bus.get(f"/topics/{FQTN}"))["lastVerified"]
    last_mod = ok(bus.get(f"/topics/{FQTN}"))["lastMod"]

    with http_client(router.url) as client:  # as an operator would, behind the bus's back
        ok(client.delete(f"/topics/{FQTN}"), 204)
        assert client.get(f"/topics/{FQTN}").status_code == 404

    def created_again_with_its_grants() -> bool:
        # The reconcile creates the topic, then grants: a poll can see the topic without them.
        with http_client(router.url) as client:
            answer = client.get(f"/topics/{FQTN}")
        if answer.status_code != 200:
            return False
        acls = answer.json()
        return bool(
            acls["writerAcl"]["users"] == [PUBLISHERS_ROLE]
            and acls["readerAcl"]["users"] == [SUBSCRIBERS_ROLE]
        )

    wait_until(created_again_with_its_grants, what="the topic created again with its grants")
    wait_until(lambda: ok(bus.get(f"/topics/{FQTN}"))["lastVerified"] > first)
    after = ok(bus.get(f"/topics/{FQTN}"))
    assert after["status"] == "VALID" and after["lastMod"] == last_mod  # verified, not changed
    assert all("lastVerified" in client for client in after["clients"])
    assert publish(created["clients"][0]["topicURL"], ALICE, {"n": 1}).status_code == 200


@fast_reconcile
def test_a_grant_revoked_on_the_router_behind_the_bus_is_granted_again(
    bus: httpx.Client, router: RunningService
) -> None:
    site(bus, "dc-central-1", "central", "localhost", **cluster_at(router.server.port, "localhost"))
    assert topic_with(bus, pub("alice"), name=OUTSIDE)["status"] == "VALID"
    with http_client(router.url) as client:  # 204: the grant is gone (until the next pass)
        ok(client.delete(f"/topics/{OUTSIDE}/producers/alice"), 204)
    wait_until(lambda: router_topic(router.url, OUTSIDE)["writerAcl"]["users"] == ["alice"])


@fast_reconcile
def test_a_topic_whose_router_cannot_be_repaired_turns_invalid_and_back(
    bus: httpx.Client, bus_settings: Settings
) -> None:
    port = free_port()
    with restartable_router(bus_settings, port):
        site(bus, "dc-central-1", "central", "localhost", **cluster_at(port, "localhost"))
        assert topic_with(bus, pub("alice"))["status"] == "VALID"
    wait_until(lambda: ok(bus.get(f"/topics/{FQTN}"))["status"] == "INVALID")
    gone = ok(bus.get(f"/topics/{FQTN}"))
    assert f"localhost:{port}" in gone["statusReason"]
    wait_until(lambda: ok(bus.get("/mr_clusters/dc-central-1"))["status"] == "INVALID")
    with restartable_router(bus_settings, port):
        wait_until(lambda: ok(bus.get(f"/topics/{FQTN}"))["status"] == "VALID")
        wait_until(lambda: ok(bus.get("/mr_clusters/dc-central-1"))["status"] == "VALID")


@fast_reconcile
def test_a_revoke_the_router_did_not_take_is_retried(bus: httpx.Client, bus_settings: Settings) -> None:
    """A deleted topic's grants: the router was down at the DELETE; once back, they go."""
    port = free_port()
    with restartable_router(bus_settings, port):
        site(bus, "dc-central-1", "central", "localhost", **cluster_at(port, "localhost"))
        assert topic_with(bus, pub("alice"), name=OUTSIDE)["status"] == "VALID"
        assert router_topic(f"http://127.0.0.1:{port}", OUTSIDE)["writerAcl"]["users"] == ["alice"]
    ok(bus.delete(f"/topics/{OUTSIDE}"), 204)
    with restartable_router(bus_settings, port):
        wait_until(lambda: router_topic(f"http://127.0.0.1:{port}", OUTSIDE)["writerAcl"]["users"] == [])


def test_a_new_topic_reaches_every_cluster_and_one_whose_router_went_down_turns_invalid(
    bus: httpx.Client, router: RunningService, bus_settings: Settings
) -> None:
    site(bus, "dc-central-1", "central", "localhost", **cluster_at(router.server.port, "localhost"))
    port = free_port()
    with restartable_router(bus_settings, port):
        site(bus, "edge-2", "edge", "127.0.0.1", **cluster_at(port, "127.0.0.1"))
        assert ok(bus.get("/mr_clusters/edge-2"))["status"] == "VALID"
    assert topic_with(bus, name="quiet")["status"] == "VALID"  # no client: nothing else to do
    with http_client(router.url) as client:
        assert "org.example.bus.lab1.quiet" in ok(client.get("/topics"))["topics"]
    down = ok(bus.get("/mr_clusters/edge-2"))
    assert down["status"] == "INVALID"
    assert down["statusReason"].startswith(
        "topic org.example.bus.lab1.quiet not created: message router unreachable"
    )


def test_a_new_bridge_admin_topic_is_told_to_every_router(bus: httpx.Client, router: RunningService) -> None:
    site(bus, "dc-central-1", "central", "localhost", **cluster_at(router.server.port, "localhost"))
    assert mirror_settings(router.url)["adminTopic"] == ADMIN_TOPIC
    ok(bus.put("/bus", json={**BUS_SETTINGS, "bridgeAdminTopic": "org.example.bus.admin2"}))
    assert mirror_settings(router.url)["adminTopic"] == "org.example.bus.admin2"
    assert ok(bus.get("/mr_clusters/dc-central-1"))["status"] == "VALID"


def test_an_agent_whose_source_is_unreachable_leaves_its_bridge_invalid(
    bus: httpx.Client, central_router: RunningService
) -> None:
    """The source cluster's router is a closed port: the target runs the agent, its copies fail,
    it is listed failing with the error, and the bridge says so."""
    port = free_port()
    site(bus, "edge-1", "edge", "127.0.0.2", **cluster_at(port, "127.0.0.2"))
    site(bus, "central-1", "central", "localhost", **cluster_at(central_router.server.port, "localhost"))
    topic_with(bus, pub("alice", "edge-1"), sub("bob", "central-1"))
    agent = ok(bus.get("/bridge", params={"mmagent": "127.0.0.2-To-localhost", "detail": "true"}))
    assert agent["status"] == "INVALID"
    assert "lists mirror agent 127.0.0.2-To-localhost as failing since" in agent["statusReason"]
    assert f"127.0.0.2:{port}" in agent["statusReason"]
    (listed,) = listed_agents(central_router.url)["agents"]
    assert listed["state"] == "failing" and listed["lastError"]
    # The whitelisted topic exists on the target although the central client could not be set up
    # there by itself: the bus created it before sending the whitelist.
    assert router_topic(central_router.url, FQTN)["name"] == FQTN


@fast_reconcile
def test_the_reconcile_is_a_job_of_the_kernel(bus: httpx.Client) -> None:
    """Issue 40, point 3: the reconcile runs on the kernel's job runner, its passes on /metrics."""
    runs = re.compile(
        r'^background_job_runs_total\{job="router-reconcile",service="bus"\} (\S+)$', re.MULTILINE
    )

    def ran() -> bool:
        found = runs.search(bus.get("/metrics").text)
        return found is not None and float(found.group(1)) >= 2

    wait_until(ran, 20, "two passes of the bus's router-reconcile job on /metrics")
    assert ok(bus.get("/health"))["status"] == "UP"


def test_a_cluster_registered_later_gets_every_topic_with_its_roles_grants(
    bus: httpx.Client, router: RunningService, central_router: RunningService
) -> None:
    """A topic that is VALID on one cluster goes to a cluster registered later with its roles'
    grants: without them its ACLs there would admit every identity (issue 38)."""
    site(bus, "edge-1", "edge", "127.0.0.2", **cluster_at(router.server.port, "127.0.0.2"))
    assert topic_with(bus, name="first")["status"] == "VALID"
    site(bus, "central-1", "central", "localhost", **cluster_at(central_router.server.port, "localhost"))
    assert ok(bus.get("/mr_clusters/central-1"))["status"] == "VALID"
    fqtn = "org.example.bus.lab1.first"
    there = router_topic(central_router.url, fqtn)
    assert there["writerAcl"] == {"enabled": True, "users": [f"role:{fqtn}.publisher"]}
    assert there["readerAcl"] == {"enabled": True, "users": [f"role:{fqtn}.subscriber"]}
    assert publish(f"{central_router.url}/events/{fqtn}", MALLORY, {"x": 1}).status_code == 403
