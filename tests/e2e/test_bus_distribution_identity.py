"""The bus controller provisions file distribution as its own identity ``svc.bus`` (issue 36,
points 1, 4, 7 and 8), through real HTTP: it acts for the owners it names, which a
``distribution.writer`` may not; the subscriber's password it sends is sealed at rest and
presented on delivery, also after the bus replaces it.
"""

from __future__ import annotations

import base64
from typing import Any

import httpx
import sqlalchemy as sa

from netplatform.access.platform import BUS, credential
from netplatform.settings import Settings
from netplatform.store.db import database_for

from ..conftest import RunningService, ServiceStarter, SettingsFactory
from ..support.distribution_calls import owner_headers, subscription_document
from ..support.receiver import Receiver
from ..support.tls import TlsFiles

BUS_SETTINGS = {
    "busName": "lab1",
    "topicNsRoot": "org.example.bus",
    "bridgeAdminTopic": "org.example.bus.admin",
}
FEED = {"feedName": "pm", "feedVersion": "1.0", "owner": "opsteam", "asprClassification": "unclassified"}
MALLORY = ("mallory", "mallory-pw")


def presented(header: str | None) -> str:
    assert header is not None and header.startswith("Basic ")
    return base64.b64decode(header.removeprefix("Basic ")).decode()


def subscriber(feed_id: str, url: str, password: str) -> dict[str, str]:
    """A /dr_subs body: the subscriber's delivery URL and credentials."""
    return {
        "feedId": feed_id,
        "svcLocationName": "dc-central-1",
        "deliveryURL": url,
        "username": "rxuser",
        "userpwd": password,
    }


def published(feed: dict[str, Any], file_id: str) -> None:
    """A file published to the bus's feed with its first publisher's credentials."""
    publisher = feed["pubs"][0]
    answer = httpx.put(
        f"{feed['publishURL']}/{file_id}",
        content=file_id.encode(),
        headers={"Content-Type": "application/octet-stream"},
        auth=(publisher["username"], publisher["userpwd"]),
    )
    assert answer.status_code == 204, answer.text


def stored_password(settings: Settings) -> str:
    with database_for(settings).engine.connect() as connection:
        query = sa.text("SELECT delivery_password FROM distribution_subscriptions")
        return str(connection.execute(query).scalar_one())


def refused_to_mallory(distribution: RunningService, feed_id: str, sub_id: str) -> None:
    """A distribution.writer naming the owners the bus named changes and deletes nothing."""
    with distribution.client() as admin:
        owner = admin.get(f"/subs/{sub_id}", headers=owner_headers("opsteam")).json()["subscriber"]
    with distribution.client(auth=MALLORY) as mallory:
        taken = mallory.put(
            f"/subs/{sub_id}",
            json=subscription_document("https://mallory.example/in"),
            headers={**owner_headers(owner), "Content-Type": "application/json"},
        )
        assert taken.status_code == 403, taken.text
        deleted = mallory.delete(f"/feed/{feed_id}", headers=owner_headers("opsteam"))
        assert deleted.status_code == 403, deleted.text


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
    with start_service("bus", settings).client() as bus:
        assert bus.put("/bus", json={**BUS_SETTINGS, "drProvUrl": distribution.url}).status_code == 200
        feed = bus.post("/feeds", json=FEED).json()
        assert feed["status"] == "VALID", feed
        sub = bus.post(
            "/dr_subs", json=subscriber(feed["feedId"], f"{receiver.url}/in", "Rx-E2E-Pw-1")
        ).json()
        assert sub["status"] == "VALID", sub
        with distribution.client() as admin:
            there = admin.get(f"/feed/{feed['feedId']}", headers=owner_headers("opsteam")).json()
        assert there["publisher"] == "opsteam"
        refused_to_mallory(distribution, feed["feedId"], sub["subId"])
        assert stored_password(settings).startswith("sealed:1:")
        assert "Rx-E2E-Pw-1" not in stored_password(settings)

        published(feed, "one.csv")
        assert presented(receiver.wait_for(1)[0].header("Authorization")) == "rxuser:Rx-E2E-Pw-1"
        replacement = subscriber(feed["feedId"], f"{receiver.url}/in", "Rx-E2E-Pw-2")
        replaced = bus.put(f"/dr_subs/{sub['subId']}", json=replacement)
        assert replaced.status_code == 200 and replaced.json()["status"] == "VALID", replaced.text
        published(feed, "two.csv")
        assert presented(receiver.wait_for(2)[1].header("Authorization")) == "rxuser:Rx-E2E-Pw-2"

        assert bus.delete(f"/feeds/{feed['feedId']}").status_code == 204
    with distribution.client() as admin:
        assert admin.get(f"/feed/{feed['feedId']}", headers=owner_headers("opsteam")).status_code == 404
