"""Nodes and routes (spec 1.3) through real HTTP: registration, heartbeat, down, the internal
routing API, ingress redirects and the receiving end of a forward."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx

from netplatform.settings import Settings

from ..conftest import RunningService, ServiceStarter, SettingsFactory
from ..support.distribution_calls import (
    PUBLISHER,
    SUB_TYPE,
    create_feed,
    create_subscription,
    owner_headers,
    publish,
    sub_log,
    subscription_document,
)
from ..support.receiver import Receiver
from ..support.tls import TlsFiles
from ..support.waiting import wait_until
from .conftest import FAST_DELIVERY

NO_CREDENTIALS: Any = None
"""``auth=None`` on one request: no credentials at all, not the client's (httpx's types do not say
that None is taken there, its code does)."""

FORWARD = "X-NETPLATFORM-FORWARD"
SUB_CONTENT = {"Content-Type": SUB_TYPE}


def node_settings(make_settings: SettingsFactory, tls: TlsFiles, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "delivery_ca_bundle": tls.ca_bundle,
        "site": "site-a",
        "node_url": "http://node-a.example:8082",
        **FAST_DELIVERY,
    }
    values.update(overrides)
    return make_settings(**values)


def nodes_seen(client: httpx.Client, **params: str) -> dict[str, dict[str, Any]]:
    response = client.get("/internal/nodes", params=params)
    assert response.status_code == 200, response.text
    return {node["name"]: node for node in response.json()}


def test_a_node_registers_heartbeats_and_is_down_without_heartbeat(
    make_settings: SettingsFactory, start_service: ServiceStarter, tls: TlsFiles
) -> None:
    beating = start_service(
        "distribution", node_settings(make_settings, tls, node_heartbeat_s=0.2, node_down_after_s=2)
    )
    with beating.client() as client:
        [node] = nodes_seen(client).values()
        assert node["name"] == "test" and node["site"] == "site-a" and node["up"] is True
        assert node["url"] == "http://node-a.example:8082" and node["fqdn"] == "node-a.example:8082"
        first = node["heartbeat"]
        wait_until(lambda: nodes_seen(client)["test"]["heartbeat"] != first, timeout=5)
        assert client.get("/internal/nodes/test").json()["up"] is True
        assert client.get("/internal/nodes/nobody").status_code == 404
        assert nodes_seen(client, site="site-b") == {}
        assert client.get("/internal/nodes", auth=None).status_code == 401

    # A node that stops heartbeating is down once its last heartbeat is older than the limit.
    silent = start_service(
        "distribution",
        node_settings(make_settings, tls, instance_name="silent", node_heartbeat_s=60, node_down_after_s=2),
    )
    with silent.client() as client:
        assert nodes_seen(client)["silent"]["up"] is True
        wait_until(
            lambda: nodes_seen(client)["silent"]["up"] is False, timeout=10, what="the silent node down"
        )


def test_a_cleanly_stopped_node_is_down_at_once(
    make_settings: SettingsFactory, start_service: ServiceStarter, tls: TlsFiles
) -> None:
    staying = start_service("distribution", node_settings(make_settings, tls))
    leaving = start_service("distribution", node_settings(make_settings, tls, instance_name="leaving"))
    leaving.server.stop()
    with staying.client() as client:
        assert {name: node["up"] for name, node in nodes_seen(client).items()} == {
            "test": True,
            "leaving": False,
        }


def test_ingress_routes_are_set_read_listed_and_removed(client: httpx.Client) -> None:
    feed_id, _ = create_feed(client)
    every = client.put(f"/internal/route/ingress/{feed_id}", json={"sites": ["site-b", "site-b", "site-c"]})
    assert every.status_code == 200, every.text
    assert every.json() == {"feedId": feed_id, "publisher": None, "sites": ["site-b", "site-c"]}
    own = client.put(f"/internal/route/ingress/{feed_id}/collector1", json={"sites": ["site-a"]})
    assert own.json() == {"feedId": feed_id, "publisher": "collector1", "sites": ["site-a"]}
    assert client.get(f"/internal/route/ingress/{feed_id}/collector1").json() == own.json()
    listed = client.get("/internal/route/ingress", params={"feedId": str(feed_id)}).json()
    assert listed == [every.json(), own.json()]
    assert client.get("/internal/route/ingress").json() == listed

    assert client.delete(f"/internal/route/ingress/{feed_id}/collector1").status_code == 204
    assert client.get(f"/internal/route/ingress/{feed_id}/collector1").status_code == 404
    assert client.delete(f"/internal/route/ingress/{feed_id}/collector1").status_code == 404
    assert client.put("/internal/route/ingress/999", json={"sites": ["x"]}).status_code == 404
    assert client.put("/internal/route/ingress/abc", json={"sites": ["x"]}).status_code == 400
    assert client.put(f"/internal/route/ingress/{feed_id}", json={"sites": []}).status_code == 400
    assert (
        client.put(f"/internal/route/ingress/{feed_id}/{'p' * 21}", json={"sites": ["x"]}).status_code == 400
    )
    assert (
        client.put(
            f"/internal/route/ingress/{feed_id}", json={"sites": ["x"]}, auth=NO_CREDENTIALS
        ).status_code
        == 401
    )

    # Deleting the feed removes its routes.
    client.delete(f"/feed/{feed_id}", headers={"X-BUS-DR-ON-BEHALF-OF": "opsteam"})
    assert client.get("/internal/route/ingress").json() == []


def test_egress_routes_bind_a_subscription_to_a_registered_node(client: httpx.Client) -> None:
    feed_id, _ = create_feed(client)
    sub_id, _ = create_subscription(client, feed_id)
    unknown = client.put(f"/internal/route/egress/{sub_id}", json={"node": "nowhere"})
    assert unknown.status_code == 404 and unknown.text == "Unknown node nowhere."
    assert client.put("/internal/route/egress/999", json={"node": "test"}).status_code == 404
    assert client.put(f"/internal/route/egress/{sub_id}", json={}).status_code == 400

    bound = client.put(f"/internal/route/egress/{sub_id}", json={"node": "test"})
    assert bound.status_code == 200 and bound.json() == {"subId": sub_id, "node": "test"}
    assert client.get(f"/internal/route/egress/{sub_id}").json() == bound.json()
    assert client.get("/internal/route/egress").json() == [bound.json()]
    assert client.delete(f"/internal/route/egress/{sub_id}").status_code == 204
    assert client.get(f"/internal/route/egress/{sub_id}").status_code == 404

    client.put(f"/internal/route/egress/{sub_id}", json={"node": "test"})
    client.delete(f"/subs/{sub_id}", headers={"X-BUS-DR-ON-BEHALF-OF": "opsteam"})
    assert client.get("/internal/route/egress").json() == []


def test_a_publish_at_a_node_its_route_excludes_is_redirected_to_a_live_node_of_an_allowed_site(
    make_settings: SettingsFactory, start_service: ServiceStarter, tls: TlsFiles
) -> None:
    here = start_service("distribution", node_settings(make_settings, tls))
    with here.client() as client:
        feed_id, _ = create_feed(client)
        client.put(f"/internal/route/ingress/{feed_id}", json={"sites": ["site-b"]})

    # No live node at site-b: the publisher is asked to come back.
    refused = publish(here.url, feed_id, "f.txt", b"x")
    assert refused.status_code == 503 and refused.headers["Retry-After"] == "30"

    start_service(
        "distribution",
        node_settings(make_settings, tls, instance_name="b1", site="site-b", node_url="http://b1.example:9"),
    )
    moved = publish(here.url, feed_id, "f%20one.txt?x=1", b"x")
    assert moved.status_code == 307
    assert moved.headers["Location"] == f"http://b1.example:9/publish/{feed_id}/f%20one.txt?x=1"
    # Checks come first: wrong credentials are refused here, not redirected.
    assert publish(here.url, feed_id, "f.txt", b"x", auth=("collector1", "wrong")).status_code == 401
    assert publish(here.url, feed_id, "f.txt", method="DELETE").status_code == 307

    # The publisher's own route wins over the feed's route for every publisher.
    with here.client() as client:
        client.put(f"/internal/route/ingress/{feed_id}/{PUBLISHER[0]}", json={"sites": ["site-a"]})
    assert publish(here.url, feed_id, "f.txt", b"x").status_code == 204


def test_a_forwarded_file_is_held_and_delivered_by_the_receiving_end(
    service: RunningService, client: httpx.Client, subscriber: Receiver
) -> None:
    feed_id, _ = create_feed(client)
    # Suspended while the hops arrive, so the repeated one finds the file still queued.
    sub_id, _ = create_subscription(client, feed_id, url=f"{subscriber.url}/in", suspend=True)
    envelope = {
        "publishId": "1709820131093.elsewhere",
        "feedId": feed_id,
        "subId": sub_id,
        "fileId": "moved.csv",
        "method": "PUT",
        "publishedMs": int(time.time() * 1000),
        "headers": {"Content-Type": "text/csv", "X-BUS-DR-META": '{"a":1}', "X-PLATFORM-RequestID": "r1"},
        "fromNode": "elsewhere",
    }
    url = "/internal/forward/1709820131093.elsewhere"

    def forward(body: dict[str, Any] | None, **kwargs: Any) -> httpx.Response:
        headers = {FORWARD: json.dumps(body)} if body is not None else {}
        return client.put(url, content=b"a,b\n", headers=headers, **kwargs)

    assert forward(envelope, auth=None).status_code == 401
    assert forward(None).status_code == 400
    assert forward({**envelope, "method": "POST"}).status_code == 400
    assert forward({**envelope, "publishId": "other"}).status_code == 400
    assert forward({**envelope, "subId": 999}).status_code == 204  # nothing to hold: gone
    assert forward(envelope).status_code == 204
    assert forward(envelope).status_code == 204  # a repeated hop (answer lost) is held once
    resumed = subscription_document(f"{subscriber.url}/in")
    assert (
        client.put(f"/subs/{sub_id}", json=resumed, headers=owner_headers(**SUB_CONTENT)).status_code == 200
    )

    [delivered] = subscriber.wait_for(1)
    assert delivered.path == "/in/moved.csv" and delivered.body == b"a,b\n"
    assert delivered.header("X-BUS-DR-PUBLISH-ID") == "1709820131093.elsewhere"
    assert delivered.header("Content-Type") == "text/csv" and delivered.header("X-BUS-DR-META") == '{"a":1}'
    wait_until(
        lambda: [r["type"] for r in sub_log(client, sub_id, publishId=str(envelope["publishId"]))] == ["del"]
    )
    files = [path for path in service.settings.blob_dir.rglob("*") if path.is_file()]
    assert files == []
    # A fixed wait on purpose: an absence has no condition to await: room for a second delivery.
    time.sleep(0.5)
    assert len(subscriber.requests) == 1
