"""What a node presents when it forwards a file to another node (issue 36, point 1), through real
HTTP: the platform's own ``svc.node``, never the bootstrap administrator's password, and only to
a peer whose certificate it trusts.

The other node here is a recording HTTPS endpoint: a second distribution instance registers it
as its node URL, so the first forwards the files of a subscription bound to that node there, and
the endpoint keeps what arrived (tests/support/receiver.py).
"""

from __future__ import annotations

import base64
from typing import Any

import httpx

from netplatform.access.platform import BUS, NODE, credential
from netplatform.settings import Settings

from ..conftest import ServiceStarter, SettingsFactory
from ..support.distribution_calls import create_feed, create_subscription, publish, sub_log
from ..support.receiver import Receiver
from ..support.tls import TlsFiles
from ..support.waiting import wait_until
from .conftest import FAST_DELIVERY

ADMIN_PASSWORD = "admin-secret"
USERS = f"admin:{ADMIN_PASSWORD}"


def node_pair(
    make_settings: SettingsFactory,
    start_service: ServiceStarter,
    peer: Receiver,
    **sender: Any,
) -> tuple[Settings, str]:
    """Node ``node-a`` (a distribution service; its settings and URL are returned) and node
    ``node-b`` over the same store, whose registered URL is ``peer``'s; ``sender`` changes
    node-a's settings."""
    common: dict[str, Any] = {"users": USERS, **FAST_DELIVERY}
    settings = make_settings(
        instance_name="node-a", node_url="http://node-a.example:8082", **common, **sender
    )
    node_a = start_service("distribution", settings)
    start_service(
        "distribution",
        make_settings(instance_name="node-b", node_url=peer.url, **common),
    )
    return settings, node_a.url


def bound_to_node_b(url: str) -> int:
    """A feed with a subscription bound to node-b; the feed's id."""
    with httpx.Client(base_url=url, auth=("admin", ADMIN_PASSWORD), timeout=30) as admin:
        feed_id, _ = create_feed(admin)
        sub_id, _ = create_subscription(admin, feed_id)
        bound = admin.put(f"/internal/route/egress/{sub_id}", json={"node": "node-b"})
        assert bound.status_code == 200, bound.text
    return feed_id


def basic_credentials(header: str | None) -> tuple[str, str]:
    assert header is not None and header.startswith("Basic ")
    user, _, password = base64.b64decode(header.removeprefix("Basic ")).decode().partition(":")
    return user, password


def test_a_forward_presents_svc_node_and_never_the_administrators_password(
    make_settings: SettingsFactory, start_service: ServiceStarter, tls: TlsFiles
) -> None:
    peer = Receiver(tls).start()
    try:
        settings, url = node_pair(make_settings, start_service, peer, delivery_ca_bundle=tls.ca_bundle)
        feed_id = bound_to_node_b(url)
        assert publish(url, feed_id, "counters.csv", b"a,b\n").status_code == 204
        [forward] = peer.wait_for(1)
    finally:
        peer.stop()
    assert forward.method == "PUT" and forward.path.startswith("/internal/forward/")
    assert basic_credentials(forward.header("Authorization")) == credential(settings, NODE)
    assert basic_credentials(forward.header("Authorization"))[0] == "svc.node"
    assert ADMIN_PASSWORD not in str(forward.headers)


def test_a_forward_to_a_node_whose_certificate_is_not_trusted_sends_nothing(
    make_settings: SettingsFactory, start_service: ServiceStarter, tls: TlsFiles
) -> None:
    peer = Receiver(tls).start()
    try:
        # No NETPLATFORM_DELIVERY_CA_BUNDLE: the peer's certificate is signed by a CA node-a does not know.
        _settings, url = node_pair(make_settings, start_service, peer)
        feed_id = bound_to_node_b(url)
        assert publish(url, feed_id, "counters.csv", b"a,b\n").status_code == 204
        with httpx.Client(base_url=url, auth=("admin", ADMIN_PASSWORD), timeout=30) as admin:
            wait_until(
                lambda: any(record["type"] == "fwd" for record in sub_log(admin, 1)),
                what="a failed forward recorded",
            )
            forwards = [record for record in sub_log(admin, 1) if record["type"] == "fwd"]
        # The handshake failed: no request, so no credential, reached the peer.
        assert {record["statusCode"] for record in forwards} == {-1}
        assert peer.requests == []
    finally:
        peer.stop()


def test_only_platform_identities_and_administrators_decide_where_forwards_go(
    make_settings: SettingsFactory, start_service: ServiceStarter
) -> None:
    """Egress routes (which node a subscription's files are forwarded to) are set by svc.bus and
    svc.node (and administrators); a distribution writer may not, and svc.bus may not forward."""
    settings = make_settings(users=f"{USERS},writer:writer-pw:distribution.writer", **FAST_DELIVERY)
    service = start_service("distribution", settings)
    with service.client(auth=("admin", ADMIN_PASSWORD)) as admin:
        feed_id, _ = create_feed(admin)
        sub_id, _ = create_subscription(admin, feed_id)
    route = f"/internal/route/egress/{sub_id}"
    with service.client(auth=("writer", "writer-pw")) as writer:
        refused = writer.put(route, json={"node": "test"})
        assert (refused.status_code, refused.text) == (
            403,
            "User writer does not have permission platform.distribution.internal|route|call",
        )
    for identity in (BUS, NODE):
        with service.client(auth=credential(settings, identity)) as platform:
            assert platform.put(route, json={"node": "test"}).status_code == 200, identity.name
            assert platform.get("/internal/nodes").status_code == 200, identity.name
    with service.client(auth=credential(settings, BUS)) as bus:
        forward = bus.put("/internal/forward/1.elsewhere", content=b"x")
        assert forward.status_code == 403 and "internal|forward|call" in forward.text
