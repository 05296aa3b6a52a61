"""Authorization of file distribution through real HTTP (issue 23): the roles each route needs,
the internal routes kept to platform.node, and framework mode (NETPLATFORM_DISTRIBUTION_AUTHZ):
feeds created with ``X-EXCLUDE-AUTHZ: false`` governed by their permissions."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from ..conftest import RunningService, ServiceStarter, SettingsFactory
from ..support.distribution_calls import (
    FEED_TYPE,
    PUBLISHER,
    SUB_TYPE,
    create_feed,
    create_subscription,
    feed_document,
    owner_headers,
    publish,
    subscription_document,
)
from ..support.tls import TlsFiles
from .conftest import FAST_DELIVERY

USERS = ",".join(
    [
        "admin:admin",
        "reader:reader-pw:distribution.reader",
        "writer:writer-pw:distribution.writer",
        "nobody:nobody-pw",
        "node:node-pw:platform.node",
        "busreader:bus-pw:bus.writer",
        # pm.editors is a stored role, granted below through the authz service.
        "editor:editor-pw:distribution.writer|pm.editors",
    ]
)
READER = ("reader", "reader-pw")
WRITER = ("writer", "writer-pw")
NOBODY = ("nobody", "nobody-pw")
NODE = ("node", "node-pw")
EDITOR = ("editor", "editor-pw")
FEED_HEADERS = {**owner_headers(), "Content-Type": FEED_TYPE}
SUB_HEADERS = {**owner_headers(), "Content-Type": SUB_TYPE}


def as_itself(who: tuple[str, str], content_type: str = FEED_TYPE) -> dict[str, str]:
    """The headers of an identity without platform.distribution.actas: it acts as itself."""
    return {**owner_headers(who[0]), "Content-Type": content_type}


def as_(service: RunningService, auth: tuple[str, str]) -> httpx.Client:
    return service.client(auth=auth)


@pytest.fixture
def secured(make_settings: SettingsFactory, start_service: ServiceStarter, tls: TlsFiles) -> RunningService:
    return start_service(
        "distribution", make_settings(users=USERS, delivery_ca_bundle=tls.ca_bundle, **FAST_DELIVERY)
    )


@pytest.fixture
def provisioned(secured: RunningService) -> tuple[int, int]:
    """A feed and a subscription, made by the administrator."""
    with secured.client() as admin:
        feed_id, _ = create_feed(admin)
        sub_id, _ = create_subscription(admin, feed_id)
    return feed_id, sub_id


def reads(feed_id: int, sub_id: int) -> list[tuple[str, str]]:
    return [
        ("GET", "/"),
        ("GET", f"/feed/{feed_id}"),
        ("GET", f"/subscribe/{feed_id}"),
        ("GET", f"/subs/{sub_id}"),
        ("GET", f"/feedlog/{feed_id}"),
        ("GET", f"/sublog/{sub_id}"),
    ]


def write(client: httpx.Client, method: str, path: str) -> httpx.Response:
    if path.startswith("/subs") or path.startswith("/subscribe"):
        return client.request(method, path, json=subscription_document(), headers=SUB_HEADERS)
    return client.request(method, path, json=feed_document(), headers=FEED_HEADERS)


def writes(feed_id: int, sub_id: int) -> list[tuple[str, str]]:
    return [
        ("POST", "/"),
        ("PUT", f"/feed/{feed_id}"),
        ("DELETE", f"/feed/{feed_id}"),
        ("POST", f"/subscribe/{feed_id}"),
        ("PUT", f"/subs/{sub_id}"),
        ("DELETE", f"/subs/{sub_id}"),
    ]


def test_a_reader_reads_and_may_not_write(secured: RunningService, provisioned: tuple[int, int]) -> None:
    feed_id, sub_id = provisioned
    with as_(secured, READER) as reader:
        for method, path in reads(feed_id, sub_id):
            assert reader.request(method, path, headers=owner_headers("reader")).status_code == 200, path
            assert reader.request(method, path).status_code == 200, path
        for method, path in writes(feed_id, sub_id):
            refused = write(reader, method, path)
            resource = "subs" if path.startswith("/sub") else "feeds"
            permission = f"platform.distribution.api|{resource}|write"
            assert (refused.status_code, refused.text) == (
                403,
                f"User reader does not have permission {permission}",
            ), (method, path)
    with secured.client() as admin:  # nothing changed
        assert admin.get(f"/subs/{sub_id}", headers=owner_headers()).status_code == 200
        assert len(admin.get("/", headers=owner_headers()).json()) == 1


@pytest.mark.parametrize("who", [NOBODY, NODE, ("busreader", "bus-pw")], ids=lambda who: who[0])
def test_an_identity_without_a_distribution_role_gets_403_everywhere(
    secured: RunningService, provisioned: tuple[int, int], who: tuple[str, str]
) -> None:
    feed_id, sub_id = provisioned
    with as_(secured, who) as client:
        for method, path in reads(feed_id, sub_id):
            assert client.request(method, path, headers=owner_headers()).status_code == 403, path
        for method, path in writes(feed_id, sub_id):
            assert write(client, method, path).status_code == 403, (method, path)


def test_a_writer_writes_and_the_owner_rule_stays_on_top(
    secured: RunningService, provisioned: tuple[int, int]
) -> None:
    feed_id, _ = provisioned
    with as_(secured, WRITER) as writer:
        own_id, _ = create_feed(writer, owner="writer", name="writers")
        mine = writer.put(f"/feed/{own_id}", json=feed_document("writers"), headers=as_itself(WRITER))
        assert mine.status_code == 200
        foreign = writer.put(f"/feed/{feed_id}", json=feed_document(), headers=as_itself(WRITER))
        assert (foreign.status_code, foreign.text) == (403, "Policy Engine disallows access.")
        assert writer.get(f"/feed/{feed_id}").status_code == 200


# --- the internal routes --------------------------------------------------------------------


def internal_calls(feed_id: int, sub_id: int) -> list[tuple[str, str, dict[str, Any]]]:
    forward = {
        "publishId": "1709820131093.elsewhere",
        "feedId": feed_id,
        "subId": sub_id,
        "fileId": "moved.csv",
        "method": "PUT",
        "publishedMs": int(time.time() * 1000),
        "headers": {"Content-Type": "text/csv"},
        "fromNode": "elsewhere",
    }
    return [
        ("GET", "/internal/nodes", {}),
        ("GET", "/internal/nodes/test", {}),
        ("GET", "/internal/route/ingress", {}),
        ("PUT", f"/internal/route/ingress/{feed_id}", {"json": {"sites": ["site-a"]}}),
        ("PUT", f"/internal/route/ingress/{feed_id}/{PUBLISHER[0]}", {"json": {"sites": ["site-a"]}}),
        ("GET", f"/internal/route/ingress/{feed_id}", {}),
        ("GET", f"/internal/route/ingress/{feed_id}/{PUBLISHER[0]}", {}),
        ("DELETE", f"/internal/route/ingress/{feed_id}/{PUBLISHER[0]}", {}),
        ("DELETE", f"/internal/route/ingress/{feed_id}", {}),
        ("PUT", f"/internal/route/egress/{sub_id}", {"json": {"node": "test"}}),
        ("GET", f"/internal/route/egress/{sub_id}", {}),
        ("GET", "/internal/route/egress", {}),
        ("DELETE", f"/internal/route/egress/{sub_id}", {}),
        (
            "PUT",
            "/internal/forward/1709820131093.elsewhere",
            {"content": b"a,b\n", "headers": {"X-NETPLATFORM-FORWARD": json.dumps(forward)}},
        ),
    ]


@pytest.mark.parametrize("who", [READER, WRITER, NOBODY, EDITOR], ids=lambda who: who[0])
def test_the_internal_routes_refuse_every_identity_without_platform_node(
    secured: RunningService, provisioned: tuple[int, int], who: tuple[str, str]
) -> None:
    feed_id, sub_id = provisioned
    with as_(secured, who) as client:
        for method, path, arguments in internal_calls(feed_id, sub_id):
            refused = client.request(method, path, **arguments)
            assert refused.status_code == 403, (method, path, refused.text)
            assert "platform.distribution.internal|" in refused.text
    with secured.client() as admin:  # no route was set, no file taken
        assert admin.get("/internal/route/ingress").json() == []
        assert admin.get(f"/sublog/{sub_id}").json() == []


@pytest.mark.parametrize("who", [NODE, ("admin", "admin")], ids=lambda who: who[0])
def test_the_internal_routes_work_for_platform_node_and_the_administrator(
    secured: RunningService, provisioned: tuple[int, int], who: tuple[str, str]
) -> None:
    feed_id, sub_id = provisioned
    with as_(secured, who) as client:
        for method, path, arguments in internal_calls(feed_id, sub_id):
            answer = client.request(method, path, **arguments)
            assert answer.status_code in (200, 204), (method, path, answer.text)


# --- framework mode -------------------------------------------------------------------------

PM = "org.pm"


@pytest.fixture
def framework(
    make_settings: SettingsFactory, start_service: ServiceStarter, tls: TlsFiles
) -> Iterator[RunningService]:
    """Distribution with the framework on; role pm.editors may create, edit, publish to and
    subscribe to the feeds of instance org.pm (not delete them)."""
    settings = make_settings(
        users=USERS, distribution_authz=True, delivery_ca_bundle=tls.ca_bundle, **FAST_DELIVERY
    )
    authz = start_service("authz", settings)
    with authz.client() as admin:
        assert admin.post("/authz/role", json={"name": "pm.editors"}).status_code == 201
        grant = {
            "role": "pm.editors",
            "perm": {
                "type": "platform.distribution.feed",
                "instance": PM,
                "action": "create,edit,publish,subscribe",
            },
        }
        assert admin.post("/authz/role/perm", json=grant).status_code == 201
    yield start_service("distribution", settings)


def post(
    client: httpx.Client, document: dict[str, Any], exclude: str | None, owner: str = "opsteam"
) -> httpx.Response:
    headers = {**owner_headers(owner), "Content-Type": FEED_TYPE}
    if exclude is not None:
        headers["X-EXCLUDE-AUTHZ"] = exclude
    return client.post("/", json=document, headers=headers)


def feed_id_of(response: httpx.Response) -> int:
    assert response.status_code == 200, response.text
    return int(response.json()["links"]["self"].rsplit("/", 1)[1])


def test_framework_mode_requires_the_header_to_create_a_feed(framework: RunningService) -> None:
    with framework.client() as admin:
        missing = post(admin, feed_document(), None)
        assert (missing.status_code, missing.text) == (400, "Missing X-EXCLUDE-AUTHZ header.")
        legacy_with_instance = post(admin, feed_document(authz_instance=PM), "true")
        assert legacy_with_instance.status_code == 403
        assert "X-EXCLUDE-AUTHZ" in legacy_with_instance.text
    with as_(framework, WRITER) as writer:
        # distribution.writer alone may not create a framework feed: that is the feed's create permission.
        refused = post(writer, feed_document(authz_instance=PM), "false", owner="writer")
        assert (refused.status_code, refused.text) == (
            403,
            f"User writer does not have permission platform.distribution.feed|{PM}|create",
        )
        assert post(writer, feed_document(name="plain"), "true", owner="writer").status_code == 200


def test_a_framework_feed_is_changed_by_permission_not_by_owner(framework: RunningService) -> None:
    with framework.client() as admin:  # made for the writer, which is then its owner
        feed_id = feed_id_of(post(admin, feed_document(authz_instance=PM), "false", owner="writer"))
    with as_(framework, EDITOR) as editor:
        # The editor changes it by permission, not as its owner; its owner, without the permission, may not.
        changed = editor.put(
            f"/feed/{feed_id}",
            json=feed_document(authz_instance=PM, description="edited"),
            headers=as_itself(EDITOR),
        )
        assert changed.status_code == 200, changed.text
        no_delete = editor.delete(f"/feed/{feed_id}", headers=owner_headers("editor"))
        assert (no_delete.status_code, no_delete.text) == (
            403,
            f"User editor does not have permission platform.distribution.feed|{PM}|delete",
        )
    with as_(framework, WRITER) as writer:
        refused = writer.put(
            f"/feed/{feed_id}", json=feed_document(authz_instance=PM), headers=as_itself(WRITER)
        )
        assert refused.status_code == 403 and f"feed|{PM}|edit" in refused.text
        assert writer.delete(f"/feed/{feed_id}").status_code == 403
        subscribing = writer.post(
            f"/subscribe/{feed_id}", json=subscription_document(), headers=as_itself(WRITER, SUB_TYPE)
        )
        assert subscribing.status_code == 403 and f"feed|{PM}|subscribe" in subscribing.text
    with as_(framework, EDITOR) as editor:
        subscribed = editor.post(
            f"/subscribe/{feed_id}", json=subscription_document(), headers=as_itself(EDITOR, SUB_TYPE)
        )
        assert subscribed.status_code == 201, subscribed.text
    with framework.client() as admin:  # platform.admin holds every permission
        assert admin.delete(f"/feed/{feed_id}", headers=owner_headers("x")).status_code == 204


def test_a_framework_feed_takes_files_from_identities_holding_its_publish_permission(
    framework: RunningService,
) -> None:
    with as_(framework, EDITOR) as editor:
        feed_id = feed_id_of(post(editor, feed_document(authz_instance=PM), "false", owner="editor"))
    accepted = publish(framework.url, feed_id, "a.csv", b"1", auth=EDITOR)
    assert accepted.status_code == 204, accepted.text
    with framework.client() as admin:
        records = admin.get(f"/feedlog/{feed_id}").json()
    assert [record["endpointId"] for record in records] == ["editor"]
    # The endpoint ids are not used for it; other identities need the permission.
    assert publish(framework.url, feed_id, "a.csv", b"1").status_code == 401
    assert publish(framework.url, feed_id, "a.csv", b"1", auth=("editor", "wrong")).status_code == 401
    assert publish(framework.url, feed_id, "a.csv", b"1", auth=None).status_code == 401
    refused = publish(framework.url, feed_id, "a.csv", b"1", auth=WRITER)
    assert (refused.status_code, refused.text) == (
        403,
        f"User writer does not have permission platform.distribution.feed|{PM}|publish",
    )
    assert publish(framework.url, feed_id, "a.csv", auth=EDITOR, method="DELETE").status_code == 204


def test_a_legacy_feed_keeps_the_legacy_rules_in_framework_mode(framework: RunningService) -> None:
    with as_(framework, WRITER) as writer:
        feed_id = feed_id_of(post(writer, feed_document(), "TRUE", owner="writer"))
        assert (
            writer.put(f"/feed/{feed_id}", json=feed_document(), headers=as_itself(WRITER)).status_code == 200
        )
    with as_(framework, EDITOR) as editor:
        foreign = editor.put(f"/feed/{feed_id}", json=feed_document(), headers=as_itself(EDITOR))
        assert (foreign.status_code, foreign.text) == (403, "Policy Engine disallows access.")
        subscribing = editor.post(
            f"/subscribe/{feed_id}", json=subscription_document(), headers=as_itself(EDITOR, SUB_TYPE)
        )
        assert subscribing.status_code == 201
    assert publish(framework.url, feed_id, "b.csv", b"2").status_code == 204
    assert publish(framework.url, feed_id, "b.csv", b"2", auth=EDITOR).status_code == 401


def test_with_the_framework_off_the_header_changes_nothing(secured: RunningService) -> None:
    with as_(secured, WRITER) as writer:
        feed_id = feed_id_of(post(writer, feed_document(authz_instance=PM), "false", owner="writer"))
        # A legacy feed all the same: its owner changes it, its endpoint ids publish.
        assert (
            writer.put(f"/feed/{feed_id}", json=feed_document(), headers=as_itself(WRITER)).status_code == 200
        )
    assert publish(secured.url, feed_id, "c.csv", b"3").status_code == 204


@pytest.mark.parametrize(
    "half", [{"node_user": "node"}, {"node_password": "node-pw"}], ids=["user", "password"]
)
def test_a_node_identity_is_configured_whole_or_not_at_all(
    make_settings: SettingsFactory, start_service: ServiceStarter, half: dict[str, str]
) -> None:
    with pytest.raises(ValueError, match="NETPLATFORM_NODE_USER and NETPLATFORM_NODE_PASSWORD"):
        start_service("distribution", make_settings(users=USERS, **half))
