"""No secret in clear at rest, and none in a reader's answer (issue 36, done-when).

A workload over real HTTP puts a known secret everywhere the platform takes one (a stored
identity's password, a bus publisher's and subscriber's ``userpwd``, the subscription delivery
password it provisions, a device's password, the configured administrator's password) and then
reads every row of every table of the database, and every byte of the SQLite files: none of
those secrets, nor any platform identity's derived password, appears. A reader of every service
then reads every object: its answers carry none either.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from netplatform.access.platform import PLATFORM_IDENTITIES, credential
from netplatform.settings import Settings
from netplatform.store.db import database_for

from ..conftest import RunningService, ServiceStarter, SettingsFactory
from ..support.answers import ok
from ..support.distribution_calls import owner_headers

ADMIN = ("admin", "Admin-Clear-Pw-7f3a")
READER = ("reader", "Reader-Clear-Pw-91c2")
READ_ROLES = "bus.reader|distribution.reader|blueprints.reader|authz.reader"
STORED = "Stored-Clear-Pw-5d1e"
PUBLISHER = "Pub-Clear-Pw-22b8"
SUBSCRIBER = "Sub-Clear-Pw-c40f"
DEVICE = "Device-Clear-Pw-0e6b"
BUS_SETTINGS = {
    "busName": "lab1",
    "topicNsRoot": "org.example.bus",
    "bridgeAdminTopic": "org.example.bus.admin",
}
FEED = {"feedName": "pm", "feedVersion": "1.0", "owner": "opsteam", "asprClassification": "unclassified"}


def every_value(settings: Settings) -> Iterator[tuple[str, str]]:
    """(table.column, text) of every non-null value of every table of the database."""
    engine = database_for(settings).engine
    metadata = sa.MetaData()
    metadata.reflect(engine)
    with engine.connect() as connection:
        for table in metadata.sorted_tables:
            for row in connection.execute(sa.select(table)):
                for column, value in row._mapping.items():
                    if value is not None:
                        text = value.decode("latin-1") if isinstance(value, bytes) else str(value)
                        yield f"{table.name}.{column}", text


def sqlite_bytes(settings: Settings) -> bytes:
    """The SQLite database's files, WAL included (empty on PostgreSQL)."""
    if settings.database_url:
        return b""
    path = settings.sqlite_path
    return b"".join(p.read_bytes() for p in (path, Path(f"{path}-wal")) if p.exists())


def provision(services: dict[str, RunningService]) -> dict[str, Any]:
    """Every kind of secret, taken over HTTP by the service that takes it."""
    with services["authz"].client(auth=ADMIN) as authz:
        ok(authz.post("/authn/cred", json={"id": "alice", "password": STORED}), 201)
    with services["bus"].client(auth=ADMIN) as bus:
        ok(bus.put("/bus", json={**BUS_SETTINGS, "drProvUrl": services["distribution"].url}))
        pubs = [{"svcLocationName": "e1", "username": "pub1", "userpwd": PUBLISHER}]
        subs = [
            {
                "svcLocationName": "e1",
                "deliveryURL": "https://sink.example/in",
                "username": "rx",
                "userpwd": SUBSCRIBER,
            }
        ]
        feed: dict[str, Any] = ok(bus.post("/feeds", json={**FEED, "pubs": pubs, "subs": subs}))
        assert feed["status"] == "VALID", feed
    with services["blueprints"].client(auth=ADMIN) as blueprints:
        device = {"name": "r1", "host": "127.0.0.1", "port": 9, "username": "ops", "password": DEVICE}
        ok(blueprints.post("/api/v1/devices", json=device), 201)
    return feed


def reader_answers(services: dict[str, RunningService], feed: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(what, text) of what a reader of every service reads."""
    pub_id, sub_id, feed_id = feed["pubs"][0]["pubId"], feed["subs"][0]["subId"], feed["feedId"]
    reads = {
        "bus": [
            "/feeds",
            f"/feeds/{feed_id}",
            "/dr_pubs",
            f"/dr_pubs/{pub_id}",
            "/dr_subs",
            f"/dr_subs/{sub_id}",
        ],
        "authz": ["/authn/cred", "/authz/roles"],
        "blueprints": ["/api/v1/devices", "/api/v1/devices/r1"],
    }
    for service, paths in reads.items():
        with services[service].client(auth=READER) as client:
            for path in paths:
                answer = client.get(path)
                assert answer.status_code == 200, (service, path, answer.text)
                yield f"{service} {path}", answer.text
    with services["distribution"].client(auth=READER) as client:
        listing = ok(client.get(f"/subscribe/{feed_id}", headers=owner_headers("opsteam")))
        links = [str(link) for link in (listing if isinstance(listing, list) else listing["subscriptions"])]
        assert links, listing
        paths = ["/", f"/feed/{feed_id}", f"/subscribe/{feed_id}"]
        paths += [f"/subs/{link.rstrip('/').rsplit('/', 1)[-1]}" for link in links]
        for path in paths:
            answer = client.get(path, headers=owner_headers("opsteam"))
            assert answer.status_code == 200, (path, answer.text)
            yield f"distribution {path}", answer.text


def test_no_secret_is_stored_in_clear_nor_answered_to_a_reader(
    start_service: ServiceStarter, make_settings: SettingsFactory
) -> None:
    settings = make_settings(users=f"{ADMIN[0]}:{ADMIN[1]},{READER[0]}:{READER[1]}:{READ_ROLES}")
    services = {
        name: start_service(name, settings) for name in ("authz", "distribution", "bus", "blueprints")
    }
    feed = provision(services)
    assert feed["pubs"][0]["userpwd"] == PUBLISHER  # the answer that created it shows it, once

    secrets = {
        "configured administrator": ADMIN[1],
        "configured reader": READER[1],
        "stored identity": STORED,
        "bus publisher": PUBLISHER,
        "bus subscriber / delivery": SUBSCRIBER,
        "device": DEVICE,
        **{f"platform identity {i.name}": credential(settings, i)[1] for i in PLATFORM_IDENTITIES},
    }
    found = [
        (where, kind)
        for where, text in every_value(settings)
        for kind, secret in secrets.items()
        if secret in text
    ]
    assert not found, f"secrets in clear in the database: {found}"
    raw = sqlite_bytes(settings)
    assert not [kind for kind, secret in secrets.items() if secret.encode() in raw]

    answered = [
        (what, kind)
        for what, text in reader_answers(services, feed)
        for kind, secret in secrets.items()
        if secret in text
    ]
    assert not answered, f"secrets in a reader's answers: {answered}"
