"""Issue 36 on the bus controller: where its own credential goes, and the credentials it keeps.

Point 1: the bus presents ``svc.bus`` (derived from the platform key) to the distribution service,
the routers and authz, never the bootstrap administrator's password, and only to hosts an
administrator registered: a ``bus.writer`` registers no cluster or node and changes no settings.
HTTPS peers' certificates are verified (NETPLATFORM_BUS_CA_BUNDLE adds the deployment's CA).
Points 4 and 8: a publisher's and a subscriber's ``userpwd`` are sealed in the database, answered
in clear only by the request that created them, masked for writers and absent for readers.

Recording servers stand for someone's own host: they keep every request that reaches them.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
import sqlalchemy as sa

from netplatform.access.platform import BUS, accepted_passwords
from netplatform.settings import Settings
from netplatform.store.db import database_for
from netplatform.store.secrets import SEALED_PREFIX, SecretKeys, sealer_for

from ..conftest import RunningService, ServiceStarter, SettingsFactory
from ..support.answers import ok
from ..support.keys import TEST_SECRET_KEY
from ..support.receiver import Receiver, RecordingServer
from ..support.servers import http_client
from ..support.tls import TlsFiles
from .conftest import BUS_SETTINGS

ADMIN_PASSWORD = "Adm1n-only-secret"
USERS = f"admin:{ADMIN_PASSWORD},writer:writer-pw:bus.writer,reader:reader-pw:bus.reader"
ADMIN, WRITER, READER = ("admin", ADMIN_PASSWORD), ("writer", "writer-pw"), ("reader", "reader-pw")
MASK = "********"
FEED = {"feedName": "pm-counters", "feedVersion": "1.0", "owner": "opsteam", "asprClassification": "x"}
SVC_BUS = (BUS.name, accepted_passwords(SecretKeys.parse(TEST_SECRET_KEY, "test key"), BUS)[0])


def basic(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


@pytest.fixture
def settings(make_settings: SettingsFactory) -> Settings:
    return make_settings(users=USERS, bus_router_timeout_s=2, bus_dr_timeout_s=2, bus_authz_timeout_s=2)


def as_(service: RunningService, auth: tuple[str, str]) -> httpx.Client:
    return http_client(service.url, auth=auth)


# -- point 1: who decides where the credential goes ----------------------------------------------


def test_a_bus_writer_chooses_no_host_the_bus_sends_its_credential_to(start_service: ServiceStarter) -> None:
    """The issue's step: a bus.writer registers a cluster at her own server, points drProvUrl there,
    registers a node. Each is refused (403), nothing is stored, and her server hears nothing."""
    bus = start_service("bus")
    with RecordingServer() as hers, as_(bus, ADMIN) as admin, as_(bus, WRITER) as writer:
        ok(admin.put("/bus", json=BUS_SETTINGS))
        ok(admin.post("/svcLocations", json={"svcLocationName": "edge-1", "svcLayer": "edge"}))
        port = str(urlsplit(hers.url).port)
        cluster = {
            "svcLocationName": "edge-1",
            "fqdn": "127.0.0.1",
            "topicProtocol": "http",
            "topicPort": port,
        }
        attempts = [
            ("POST", "/mr_clusters", cluster, "platform.bus.admin|mr_clusters|write"),
            ("PUT", "/mr_clusters/edge-1", cluster, "platform.bus.admin|mr_clusters|write"),
            ("PUT", "/bus", {**BUS_SETTINGS, "drProvUrl": hers.url}, "platform.bus.admin|bus|write"),
            ("PUT", "/bus_v2", {**BUS_SETTINGS, "drProvUrl": hers.url}, "platform.bus.admin|bus|write"),
            (
                "POST",
                "/dr_nodes",
                {"svcLocationName": "edge-1", "fqdn": f"127.0.0.1:{port}"},
                "platform.bus.admin|dr_nodes|write",
            ),
        ]
        for method, path, body, permission in attempts:
            refused = writer.request(method, path, json=body)
            assert refused.status_code == 403, (method, path, refused.text)
            assert refused.json()["message"] == f"User writer does not have permission {permission}"
        assert ok(admin.get("/mr_clusters")) == [] and ok(admin.get("/dr_nodes")) == []
        assert ok(admin.get("/bus"))["drProvUrl"] == BUS_SETTINGS["drProvUrl"]
        # What a writer may do still reaches only what the administrator registered.
        ok(writer.post("/topics", json={"topicName": "alarms", "topicDescription": "d", "owner": "o"}))
        ok(writer.post("/feeds", json=FEED))
    assert hers.requests == []


@pytest.fixture
def recorder(tls: TlsFiles) -> Iterator[Receiver]:
    """An HTTPS host of someone's own (its certificate signed by the tests' throwaway CA); it says
    it serves (/health: the bus asks a router that first), and answers 404 to everything else."""
    receiver = Receiver(tls, lambda request: (200 if request.path == "/health" else 404, {})).start()
    yield receiver
    receiver.stop()


def bus_trusting(
    start_service: ServiceStarter, settings: Settings, recorder: Receiver, ca_bundle: Any
) -> RunningService:
    """A bus whose authz service is the recorder, trusting ``ca_bundle`` besides the system's CAs."""
    return start_service(
        "bus", settings.model_copy(update={"bus_authz_url": recorder.url, "bus_ca_bundle": ca_bundle})
    )


def register_everything_at(admin: httpx.Client, recorder: Receiver) -> dict[str, Any]:
    """The administrator points every destination at the recorder, and work follows: a topic (authz
    and the router), a feed (distribution)."""
    port = str(urlsplit(recorder.url).port)
    ok(admin.put("/bus", json={**BUS_SETTINGS, "drProvUrl": recorder.url}))
    ok(admin.post("/svcLocations", json={"svcLocationName": "dc-1", "svcLayer": "central"}))
    cluster: dict[str, Any] = ok(
        admin.post(
            "/mr_clusters",
            json={
                "svcLocationName": "dc-1",
                "fqdn": "127.0.0.1",
                "topicProtocol": "https",
                "topicPort": port,
            },
        )
    )
    client = {"svcLocationName": "dc-1", "clientIdentity": "writer", "action": ["pub"]}
    ok(
        admin.post(
            "/topics",
            json={"topicName": "alarms", "topicDescription": "d", "owner": "o", "clients": [client]},
        )
    )
    admin.post("/feeds", json=FEED)  # the recorder answers 404: refused there, after the call
    return cluster


def test_the_bus_presents_svc_bus_and_never_the_administrators_password(
    recorder: Receiver, start_service: ServiceStarter, settings: Settings, tls: TlsFiles
) -> None:
    # The recorder first, so it stops last: stopped while the bus still holds a connection to
    # it, its server waited 30 s for that connection before it let go.
    bus = bus_trusting(start_service, settings, recorder, tls.ca_bundle)
    with as_(bus, ADMIN) as admin:
        register_everything_at(admin, recorder)
    seen = recorder.requests
    paths = {request.path for request in seen}
    assert {"/internal/mirror-settings", "/authz/role", "/"} <= paths, paths  # router, authz, distribution
    assert {request.header("authorization") for request in seen} == {basic(*SVC_BUS)}
    for request in seen:  # nowhere the administrator's password, in a header or a body
        assert (
            ADMIN_PASSWORD not in json.dumps(request.headers) and ADMIN_PASSWORD.encode() not in request.body
        )
    (told,) = [request for request in seen if request.path == "/internal/mirror-settings"]
    assert json.loads(told.body) == {
        "adminTopic": BUS_SETTINGS["bridgeAdminTopic"],
        "sources": [recorder.url],
    }


def test_a_host_whose_certificate_no_trusted_ca_signed_hears_nothing(
    recorder: Receiver, start_service: ServiceStarter, settings: Settings
) -> None:
    """Without the deployment's CA the recorder's certificate does not verify: every call fails
    at the handshake, before a credential is sent, and says why."""
    bus = bus_trusting(start_service, settings, recorder, None)
    with as_(bus, ADMIN) as admin:
        cluster = register_everything_at(admin, recorder)
    assert cluster["status"] == "INVALID" and "CERTIFICATE_VERIFY_FAILED" in cluster["statusReason"]
    assert recorder.requests == []


# -- points 4 and 8: the credentials the bus keeps --------------------------------------------------


@pytest.fixture
def distribution(start_service: ServiceStarter) -> RunningService:
    return start_service("distribution")


@pytest.fixture
def bus(start_service: ServiceStarter, distribution: RunningService) -> Iterator[RunningService]:
    service = start_service("bus")
    with as_(service, ADMIN) as admin:
        ok(admin.put("/bus", json={**BUS_SETTINGS, "drProvUrl": distribution.url}))
    yield service


def feed_with_members(bus: RunningService) -> dict[str, Any]:
    """A feed with a chosen publisher password and a subscriber's delivery password; the answer
    that created them shows them."""
    sub = {
        "svcLocationName": "e1",
        "deliveryURL": "https://sink.example/in",
        "username": "rx",
        "userpwd": "rx-pass",
    }
    pubs = [{"svcLocationName": "e1", "username": "pub1", "userpwd": "pub-pass"}]
    with as_(bus, WRITER) as writer:
        feed: dict[str, Any] = ok(writer.post("/feeds", json={**FEED, "pubs": pubs, "subs": [sub]}))
    assert feed["status"] == "VALID"
    assert (feed["pubs"][0]["userpwd"], feed["subs"][0]["userpwd"]) == ("pub-pass", "rx-pass")
    return feed


def member_objects(answer: Any) -> Iterator[dict[str, Any]]:
    """Every feed, publisher and subscriber object in an answer."""
    for obj in answer if isinstance(answer, list) else [answer]:
        yield obj
        yield from obj.get("pubs") or []
        yield from obj.get("subs") or []


def reads(feed: dict[str, Any]) -> list[str]:
    pub_id, sub_id = feed["pubs"][0]["pubId"], feed["subs"][0]["subId"]
    return [
        "/feeds",
        f"/feeds/{feed['feedId']}",
        "/dr_pubs",
        f"/dr_pubs/{pub_id}",
        "/dr_subs",
        f"/dr_subs/{sub_id}",
    ]


def test_a_reader_never_receives_a_userpwd_and_a_writer_sees_it_masked(
    bus: RunningService, distribution: RunningService
) -> None:
    feed = feed_with_members(bus)
    with as_(bus, READER) as reader, as_(bus, WRITER) as writer:
        for path in reads(feed):
            read = reader.get(path)
            assert read.status_code == 200, (path, read.text)
            assert "pub-pass" not in read.text and "rx-pass" not in read.text, path
            assert all("userpwd" not in obj for obj in member_objects(read.json())), path
            written = ok(writer.get(path))
            shown = [obj["userpwd"] for obj in member_objects(written) if "userpwd" in obj]
            assert shown and set(shown) == {MASK}, (path, shown)
        # The replacement's answer is masked too: only the creating answer shows it.
        pub_id = feed["pubs"][0]["pubId"]
        assert ok(writer.put(f"/dr_pubs/{pub_id}", json={"userpwd": "pub-pass-2"}))["userpwd"] == MASK
    # The publisher's password is what the distribution service takes: the reader could not have it.
    publish_as(distribution, feed, "pub-pass-2")


def publish_as(distribution: RunningService, feed: dict[str, Any], password: str) -> None:
    """A file published to the feed as its publisher ``pub1`` with ``password``: taken (204)."""
    published = httpx.put(
        f"{distribution.url}/publish/{feed['feedId']}/probe.txt",
        content=b"x",
        auth=("pub1", password),
        headers={"Content-Type": "application/octet-stream"},
    )
    assert published.status_code == 204, published.text


def rows(settings: Settings, table: str) -> list[dict[str, Any]]:
    with database_for(settings).read() as session:
        found = session.execute(sa.text(f"SELECT * FROM {table} ORDER BY id"))  # noqa: S608
        return [dict(row._mapping) for row in found]


def test_the_tables_hold_only_sealed_passwords(bus: RunningService, settings: Settings) -> None:
    feed_with_members(bus)
    sealer = sealer_for(settings)
    for table, clear in (("bus_pubs", "pub-pass"), ("bus_subs", "rx-pass")):
        (row,) = rows(settings, table)
        assert row["userpwd"].startswith(SEALED_PREFIX), row
        assert clear not in json.dumps(row, default=str), row  # in no column, in no form
        assert sealer.open(row["userpwd"]) == clear


def test_rotate_seals_what_an_earlier_version_stored_in_clear(
    bus: RunningService, distribution: RunningService, settings: Settings
) -> None:
    """Rows an earlier version wrote in clear are read as they are, and ``netplatform secrets
    rotate`` seals them; the feed provisions with them as before."""
    feed = feed_with_members(bus)
    with database_for(settings).write() as session:  # as an earlier version left them
        session.execute(sa.text("UPDATE bus_pubs SET userpwd = 'pub-pass'"))
        session.execute(sa.text("UPDATE bus_subs SET userpwd = 'rx-pass'"))
    env = {
        **os.environ,
        "NETPLATFORM_DATA_DIR": str(settings.data_dir),
        "NETPLATFORM_DATABASE_URL": settings.effective_database_url,
        "NETPLATFORM_SECRET_KEY": TEST_SECRET_KEY,
        "NETPLATFORM_USERS": USERS,
    }
    done = subprocess.run(
        [sys.executable, "-m", "netplatform", "secrets", "rotate"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "bus_pubs.userpwd: 1 sealed" in done.stdout and "bus_subs.userpwd: 1 sealed" in done.stdout
    for table in ("bus_pubs", "bus_subs"):
        assert all(row["userpwd"].startswith(SEALED_PREFIX) for row in rows(settings, table))
    with as_(bus, WRITER) as writer:  # provisioned again from the sealed rows
        ok(writer.put(f"/feeds/{feed['feedId']}", json={"feedDescription": "again"}))
    publish_as(distribution, feed, "pub-pass")
