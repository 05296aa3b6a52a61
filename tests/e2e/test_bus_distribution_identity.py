"""The bus controller provisions file distribution as its own identity ``svc.bus`` (issue 36,
points 1, 4, 7 and 8), through real HTTP: it acts for the owners it names, which a
``distribution.writer`` may not; the subscriber's password it sends is sealed at rest and
presented on delivery, also after the bus replaces it.
"""

from __future__ import annotations

import base64

import httpx
import sqlalchemy as sa

from netplatform.access.platform import BUS, credential
from netplatform.store.db import database_for

from ..conftest import ServiceStarter, SettingsFactory
from ..support.distribution_calls import owner_headers, subscription_document
from ..support.receiver import Receiver
from ..support.tls import TlsFiles

BUS_SETTINGS = {
    "busName": "lab1",
    "topicNsRoot": "org.example.bus",
    "bridgeAdminTopic": "org.example.bus.admin",
}
MALLORY = ("mallory", "mallory-pw")


def presented(header: str | None) -> str:
    assert header is not None and header.startswith("Basic ")
    return base64.b64decode(header.removeprefix("Basic ")).decode()


def test_the_bus_as_svc_bus_provisions_for_its_owners_and_a_writer_cannot_take_them_over(
    start_service: ServiceStarter, make_settings: SettingsFactory, tls: TlsFiles, receiver: Receiver
) -> None:
    base = make_settings(
        users="admin:admin,mallory:mallory-pw:distribution.writer",
        delivery_ca_bundle=tls.ca_bundle,
        delivery_retry_initial_s=0.2,
        delivery_retry_max_s=1.0,
        delivery_poll_s=0.1,
    )
    user, password = credential(base, BUS)
    settings = base.model_copy(update={"bus_dr_user": user, "bus_dr_password": password})
    distribution = start_service("distribution", settings)
    bus = start_service("bus", settings).client()

    assert bus.put("/bus", json={**BUS_SETTINGS, "drProvUrl": distribution.url}).status_code == 200
    feed = bus.post(
        "/feeds",
        json={
            "feedName": "pm",
            "feedVersion": "1.0",
            "owner": "opsteam",
            "asprClassification": "unclassified",
        },
    ).json()
    assert feed["status"] == "VALID", feed
    sub = bus.post(
        "/dr_subs",
        json={
            "feedId": feed["feedId"],
            "svcLocationName": "dc-central-1",
            "deliveryURL": f"{receiver.url}/in",
            "username": "rxuser",
            "userpwd": "Rx-E2E-Pw-1",
        },
    ).json()
    assert sub["status"] == "VALID", sub

    with distribution.client() as admin:
        there = admin.get(f"/feed/{feed['feedId']}", headers=owner_headers("opsteam")).json()
        assert there["publisher"] == "opsteam"
        subscriber = admin.get(f"/subs/{sub['subId']}", headers=owner_headers("opsteam")).json()["subscriber"]
    with distribution.client(auth=MALLORY) as mallory:
        taken = mallory.put(
            f"/subs/{sub['subId']}",
            json=subscription_document("https://mallory.example/in"),
            headers={**owner_headers(subscriber), "Content-Type": "application/json"},
        )
        assert taken.status_code == 403, taken.text
        deleted = mallory.delete(f"/feed/{feed['feedId']}", headers=owner_headers("opsteam"))
        assert deleted.status_code == 403, deleted.text

    with database_for(settings).engine.connect() as connection:
        stored = connection.execute(
            sa.text("SELECT delivery_password FROM distribution_subscriptions")
        ).scalar_one()
    assert stored.startswith("sealed:1:") and "Rx-E2E-Pw-1" not in stored

    publisher = feed["pubs"][0]
    publisher_auth = (publisher["username"], publisher["userpwd"])
    octets = {"Content-Type": "application/octet-stream"}
    first = httpx.put(f"{feed['publishURL']}/one.csv", content=b"1", headers=octets, auth=publisher_auth)
    assert first.status_code == 204, first.text
    [delivered] = receiver.wait_for(1)
    assert presented(delivered.header("Authorization")) == "rxuser:Rx-E2E-Pw-1"

    replaced = bus.put(
        f"/dr_subs/{sub['subId']}",
        json={
            "feedId": feed["feedId"],
            "svcLocationName": "dc-central-1",
            "deliveryURL": f"{receiver.url}/in",
            "username": "rxuser",
            "userpwd": "Rx-E2E-Pw-2",
        },
    )
    assert replaced.status_code == 200 and replaced.json()["status"] == "VALID", replaced.text
    second = httpx.put(f"{feed['publishURL']}/two.csv", content=b"2", headers=octets, auth=publisher_auth)
    assert second.status_code == 204, second.text
    assert presented(receiver.wait_for(2)[1].header("Authorization")) == "rxuser:Rx-E2E-Pw-2"

    assert bus.delete(f"/feeds/{feed['feedId']}").status_code == 204
    with distribution.client() as admin:
        assert admin.get(f"/feed/{feed['feedId']}", headers=owner_headers("opsteam")).status_code == 404
