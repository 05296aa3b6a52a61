"""The router under issue 23's authorization: the bridge-admin exploit closed, the mirror
credential, the internal routes for platform.node only, and ACL entries naming authz roles.

Each test starts routers of its own (live_router), with the users and settings it needs.
"""

from __future__ import annotations

import base64
import logging
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from netplatform.access.platform import MIRROR, accepted_passwords
from netplatform.services import create_service_app
from netplatform.settings import Settings
from netplatform.store.secrets import SecretKeys

from ..support.databases import migrate
from ..support.keys import TEST_SECRET_KEY
from ..support.receiver import RecordingServer
from ..support.router_calls import drain, publish, router_error
from ..support.servers import LiveServer, http_client
from ..support.waiting import wait_until
from .conftest import ADMIN, BOB, NODE, Router, live_router, topic_name

FAST = {"router_mirror_poll_ms": 300, "router_mirror_retry_s": 0.3}
NO_REQUEST_WINDOW_S = 3.0


def create_agent(name: str, source_url: str) -> dict[str, object]:
    body = {"name": name, "consumer": "x:9092", "producer": "y:9092", "numStreams": "1"}
    body["sourceUrl"] = source_url
    return {"messageID": "1", "createMirrorMaker": body}


def whitelist(name: str, *topics: str) -> dict[str, object]:
    return {"messageID": "2", "updateWhiteList": {"name": name, "whitelist": ",".join(topics)}}


def messages_of(client: httpx.Client, topic: str) -> list[str]:
    """Every message of a topic, through the internal read route (consumes nothing)."""
    response = client.get(f"/internal/mirror/{topic}", params={"limit": 10000})
    assert response.status_code == 200, response.text
    return [item["message"] for item in response.json()]


def basic(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


# -- the three steps ---------------------------------------------------------------------


def test_no_one_but_a_router_admin_defines_mirror_agents(engine: str, tmp_path: Path) -> None:
    """Issue 23's exploit: alice (no role) tries to make the router's mirror agent copy from a
    server of hers into bob's closed topic, and to learn what credential it presents there."""
    admin_topic = topic_name("bridge-admin")
    users = "admin:admin,alice:alice-pw,bob:bob-pw:router.writer"
    alice_auth, bob_auth = ("alice", "alice-pw"), ("bob", "bob-pw")
    with (
        RecordingServer() as hers,
        live_router(engine, tmp_path, users=users, router_bridge_admin_topic=admin_topic, **FAST) as router,
        router.client(ADMIN) as admin,
        router.client(alice_auth) as alice,
        router.client(bob_auth) as bob,
    ):
        wait_until(lambda: admin.get(f"/topics/{admin_topic}").status_code == 200)
        # 1. bob's topic, with only bob as producer: alice's publish is refused.
        bobs = topic_name("bobs")
        assert bob.post("/topics/create", json={"topicName": bobs}).status_code == 200
        assert bob.put(f"/topics/{bobs}/producers/bob").status_code == 200
        router_error(alice.post(f"/events/{bobs}", json={"by": "alice"}), 403)
        # 2. her admin messages are refused, the create and then the whitelist.
        for message in (create_agent("hers", hers.url), whitelist("hers", bobs)):
            refused = router_error(alice.post(f"/events/{admin_topic}", json=message), 403)
            assert "only a router admin" in refused["message"]
        # 3. nothing reaches her server, and no agent exists.
        deadline = time.monotonic() + NO_REQUEST_WINDOW_S
        while time.monotonic() < deadline:
            assert hers.requests == [], hers.requests
            # A fixed wait on purpose: an absence has no condition to await: the whole window is watched.
            time.sleep(0.1)
        assert admin.get("/internal/mirror-agents").json()["agents"] == []
        assert messages_of(admin, admin_topic) == []
        publish(bob, bobs, ["bob 1", "bob 2"])
        assert messages_of(admin, bobs) == ["bob 1", "bob 2"]


def test_an_acl_on_the_bridge_admin_topic_cannot_widen_it(tmp_path: Path) -> None:
    admin_topic = topic_name("bridge-admin")
    with (
        live_router("embedded", tmp_path, router_bridge_admin_topic=admin_topic, **FAST) as router,
        router.client(ADMIN) as admin,
        router.client(BOB) as bob,
    ):
        wait_until(lambda: admin.get(f"/topics/{admin_topic}").status_code == 200)
        assert admin.put(f"/topics/{admin_topic}/producers/bob").status_code == 200
        router_error(bob.post(f"/events/{admin_topic}", json=whitelist("x")), 403)
        router_error(admin.post(f"/events/{admin_topic}", json=whitelist("x")), 403)  # admin is not on it
        assert admin.put(f"/topics/{admin_topic}/producers/admin").status_code == 200
        assert admin.post(f"/events/{admin_topic}", json=whitelist("x")).status_code == 200


# -- the mirror credential ------------------------------------------------------------------------


SVC_MIRROR = basic(MIRROR.name, accepted_passwords(SecretKeys.parse(TEST_SECRET_KEY, "test key"), MIRROR)[0])


@pytest.mark.parametrize(
    ("credential", "expected"),
    [
        ({}, SVC_MIRROR),
        ({"router_mirror_user": "mirror", "router_mirror_password": "m-secret"}, basic("mirror", "m-secret")),
    ],
    ids=["svc.mirror", "set"],
)
def test_an_agent_presents_the_routers_own_mirror_credential(
    tmp_path: Path, credential: dict[str, str], expected: str
) -> None:
    """Even an agent a router admin defines never sends a user's password to its source: it
    presents svc.mirror's credential (derived from the platform key), or the configured one."""
    admin_topic = topic_name("bridge-admin")
    with RecordingServer() as source:
        settings = {
            "router_bridge_admin_topic": admin_topic,
            "router_mirror_sources": source.url,
            **FAST,
            **credential,
        }
        with live_router("embedded", tmp_path, **settings) as router, router.client(ADMIN) as admin:
            wait_until(lambda: admin.get(f"/topics/{admin_topic}").status_code == 200)
            copied = router.create_topic()
            messages = [create_agent("probe", source.url), whitelist("probe", copied)]
            assert admin.post(f"/events/{admin_topic}", json=messages).status_code == 200
            wait_until(lambda: source.requests)
    assert [headers.get("authorization") for headers in source.headers()] == [expected] * len(source.requests)


def test_an_agent_publishes_only_where_its_identity_is_a_producer(
    engine: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    admin_topic = topic_name("bridge-admin")
    credential = {"router_mirror_user": NODE[0], "router_mirror_password": NODE[1]}
    caplog.set_level(logging.WARNING, "netplatform.router")
    with live_router("embedded", tmp_path / "edge") as edge:
        central_settings = {"router_bridge_admin_topic": admin_topic, "router_mirror_sources": edge.url}
        with (
            live_router(engine, tmp_path / "central", **central_settings, **FAST, **credential) as central,
            edge.client() as at_edge,
            central.client() as at_central,
        ):
            copy_when_granted(at_edge, at_central, admin_topic, edge.url, caplog)


def copy_when_granted(
    at_edge: httpx.Client,
    at_central: httpx.Client,
    admin_topic: str,
    edge_url: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The agent's copies are refused while its identity is no producer; once granted, it goes on
    from its recorded position, nothing lost."""
    wait_until(lambda: at_central.get(f"/topics/{admin_topic}").status_code == 200)
    closed = topic_name("closed")
    for client in (at_edge, at_central):
        assert client.post("/topics/create", json={"topicName": closed}).status_code == 200
    assert at_central.put(f"/topics/{closed}/producers/bob").status_code == 200  # not the agent
    publish(at_edge, closed, ["one", "two"])
    agent = [create_agent("edge-to-central", edge_url), whitelist("edge-to-central", closed)]
    assert at_central.post(f"/events/{admin_topic}", json=agent).status_code == 200
    wait_until(lambda: any("not permitted to publish" in r.getMessage() for r in caplog.records))
    assert messages_of(at_central, closed) == []
    # Granted later: the agent continues from its recorded position, nothing lost.
    assert at_central.put(f"/topics/{closed}/producers/{NODE[0]}").status_code == 200
    wait_until(lambda: messages_of(at_central, closed) == ["one", "two"])


# -- the internal routes ---------------------------------------------------------------------------


def test_the_internal_routes_are_for_platform_node(router: Router) -> None:
    name = router.create_topic()
    with router.client(ADMIN) as admin:
        publish(admin, name, ["m"])
    with router.client(BOB) as bob, router.client(NODE) as node:
        for path in (f"/internal/mirror/{name}", "/internal/mirror-agents"):
            refused = router_error(bob.get(path), 403)["message"]
            assert refused == "User bob does not have permission platform.router.internal|mirror|call"
            assert node.get(path).status_code == 200


# -- ACL entries naming authz roles ------------------------------------------------------------------


def test_an_acl_names_configured_and_stored_roles(make_settings: Callable[..., Settings]) -> None:
    """carol holds team.a from NETPLATFORM_USERS; dave is given team.b through the authz service
    (a stored membership, over the same database), and loses it again within 2 seconds."""
    settings = make_settings(users="admin:admin,carol:carol-pw:team.a,dave:dave-pw")
    migrate(settings)
    carol, dave = ("carol", "carol-pw"), ("dave", "dave-pw")
    with (
        LiveServer(create_service_app("router", settings)) as router_server,
        LiveServer(create_service_app("authz", settings)) as authz_server,
        http_client(authz_server.url, auth=ADMIN) as authz,
    ):
        router = Router(router_server.url, "embedded")
        name = router.create_topic()
        with router.client(ADMIN) as admin:
            assert admin.put(f"/topics/{name}/consumers/role:team.a").status_code == 200
            assert admin.put(f"/topics/{name}/consumers/role:team.b").status_code == 200
            publish(admin, name, ["for the teams"])
        with router.client(carol) as as_carol, router.client(dave) as as_dave:
            assert drain(as_carol, name, "carol") == ["for the teams"]
            router_error(as_dave.get(f"/events/{name}/dave/1", params={"timeout": 0}), 403)
            created = authz.post("/authz/role", json={"name": "team.b", "description": "team b"})
            assert created.status_code == 201, created.text
            added = authz.post("/authz/userRole", json={"user": "dave", "role": "team.b"})
            assert added.status_code in (200, 201), added.text

            def dave_status() -> int:
                return as_dave.get(f"/events/{name}/dave/1", params={"timeout": 0}).status_code

            started = time.monotonic()
            wait_until(lambda: dave_status() == 200, timeout=5)
            assert time.monotonic() - started < 2.5
            removed = authz.delete("/authz/userRole/dave/team.b")
            assert removed.status_code in (200, 204), removed.text
            wait_until(lambda: dave_status() == 403, timeout=5)
            assert time.monotonic() - started < 5
