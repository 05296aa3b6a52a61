"""The bus controller provisions the REAL distribution service; a published file reaches the subscriber.

A feed created on the bus controller appears in the distribution service; a file published to
it with the generated publisher credentials is delivered over HTTPS to a subscriber created
through ``/dr_subs``; deleting the feed on the bus controller removes it there.
"""

from __future__ import annotations

import httpx
import pytest

from ..conftest import ServiceStarter, SettingsFactory
from ..support.receiver import Receiver
from ..support.tls import TlsFiles

BUS_SETTINGS = {
    "busName": "lab1",
    "topicNsRoot": "org.example.bus",
    "bridgeAdminTopic": "org.example.bus.admin",
}


@pytest.fixture
def subscriber(receiver: Receiver) -> Receiver:
    """The kernel's recording HTTPS receiver, named for its role here."""
    return receiver


def test_feed_from_the_bus_controller_delivers_to_its_subscriber(
    start_service: ServiceStarter, make_settings: SettingsFactory, tls: TlsFiles, subscriber: Receiver
) -> None:
    settings = make_settings(
        delivery_ca_bundle=tls.ca_bundle,
        delivery_retry_initial_s=0.2,
        delivery_retry_max_s=1.0,
        delivery_poll_s=0.1,
    )
    distribution = start_service("distribution", settings)
    bus = start_service("bus", settings).client()
    owner = {"X-BUS-DR-ON-BEHALF-OF": "opsteam"}

    assert bus.put("/bus", json={**BUS_SETTINGS, "drProvUrl": distribution.url}).status_code == 200
    created = bus.post(
        "/feeds",
        json={
            "feedName": "pm",
            "feedVersion": "1.0",
            "owner": "opsteam",
            "asprClassification": "unclassified",
        },
    )
    assert created.status_code == 200, created.text
    feed = created.json()
    assert feed["status"] == "VALID"
    with distribution.client() as dist:
        there = dist.get(f"/feed/{feed['feedId']}", headers=owner)
        assert there.status_code == 200
        assert there.json()["name"] == "pm"

    subscribed = bus.post(
        "/dr_subs",
        json={
            "feedId": feed["feedId"],
            "svcLocationName": "dc-central-1",
            "deliveryURL": f"{subscriber.url}/in",
            "username": "rxuser",
            "userpwd": "rx-pass",
        },
    )
    assert subscribed.status_code == 200, subscribed.text
    assert subscribed.json()["status"] == "VALID"

    publisher = feed["pubs"][0]
    published = httpx.put(
        f"{feed['publishURL']}/counters-0800.csv",
        content=b"a,b,c\n1,2,3\n",
        headers={"Content-Type": "application/octet-stream"},
        auth=(publisher["username"], publisher["userpwd"]),
    )
    assert published.status_code == 204, published.text
    (delivered,) = subscriber.wait_for(1, timeout=30)
    assert delivered.method == "PUT"
    assert delivered.path == "/in/counters-0800.csv"
    assert delivered.body == b"a,b,c\n1,2,3\n"
    assert delivered.header("authorization") == httpx.BasicAuth("rxuser", "rx-pass")._auth_header

    assert bus.delete(f"/feeds/{feed['feedId']}").status_code == 204
    with distribution.client() as dist:
        assert dist.get(f"/feed/{feed['feedId']}", headers=owner).status_code == 404
    assert bus.get(f"/feeds/{feed['feedId']}").status_code == 404
