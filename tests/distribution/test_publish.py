"""Publish and retract requests: who may publish, what is refused, and that refusals leave nothing."""

from __future__ import annotations

import base64
import os
import socket
import time

import httpx
import pytest

from netplatform.distribution.repository.queue import QueueRepository
from netplatform.store.db import database_for

from ..conftest import RunningService, ServiceStarter, SettingsFactory
from ..support.distribution_calls import (
    PUBLISHER,
    authorization_with,
    create_feed,
    create_subscription,
    feed_log,
    publish,
)
from ..support.receiver import Receiver
from ..support.tls import TlsFiles
from ..support.waiting import wait_until
from .conftest import FAST_DELIVERY


@pytest.fixture
def feed_id(client: httpx.Client) -> int:
    feed, _ = create_feed(client)
    create_subscription(client, feed, "https://127.0.0.1:9/in")
    return feed


def nothing_stored(service: RunningService) -> bool:
    root = service.settings.blob_dir
    files = [p for p in root.rglob("*") if p.is_file()] if root.exists() else []
    with database_for(service.settings).read() as session:
        return files == [] and QueueRepository(session).depth() == 0


def test_missing_or_undecodable_credentials_are_401_with_the_publish_realm(
    service: RunningService, feed_id: int
) -> None:
    for headers in ({}, {"Authorization": "Basic !!"}, {"Authorization": "Bearer x"}):
        response = publish(service.url, feed_id, "a.txt", b"1", auth=None, headers=headers)
        assert response.status_code == 401
        assert response.headers["www-authenticate"] == 'Basic realm="publish"'
    assert nothing_stored(service)


@pytest.mark.parametrize("auth", [("collector1", "wrong"), ("admin", "admin"), ("stranger", "s3cret-pw")])
def test_identities_outside_endpoint_ids_are_401(
    service: RunningService, feed_id: int, auth: tuple[str, str]
) -> None:
    for method in ("PUT", "DELETE"):
        response = publish(service.url, feed_id, "a.txt", b"1", auth=auth, method=method)
        assert (response.status_code, response.text) == (401, "Publisher not permitted for this feed")
        assert response.headers["www-authenticate"] == 'Basic realm="publish"'
    assert nothing_stored(service)


def test_any_of_several_endpoint_ids_may_publish(service: RunningService, client: httpx.Client) -> None:
    ids = [{"id": "one", "password": "p1"}, {"id": "two", "password": "p2"}]
    feed, _ = create_feed(client, authorization=authorization_with(endpoint_ids=ids))
    assert publish(service.url, feed, "a", auth=("two", "p2")).status_code == 204
    assert feed_log(client, feed, type="pub")[0]["endpointId"] == "two"


@pytest.mark.parametrize(
    ("addresses", "status"),
    [
        (["10.0.0.0/8", "2001:db8::/32"], 403),
        (["192.168.1.1"], 403),
        (["127.0.0.0/8"], 204),
        (["10.0.0.1", "127.0.0.1"], 204),
    ],
)
def test_endpoint_addrs_limit_where_publishes_come_from(
    service: RunningService, client: httpx.Client, addresses: list[str], status: int
) -> None:
    feed, _ = create_feed(client, authorization=authorization_with(endpoint_addrs=addresses))
    response = publish(service.url, feed, "a.txt", b"1")
    assert response.status_code == status
    if status == 403:
        assert response.text == "Publisher not permitted for this feed"


@pytest.mark.parametrize("feed", ["99", "abc", "0"])
def test_unknown_feeds_are_404(service: RunningService, feed: str) -> None:
    response = publish(service.url, feed, "a.txt", b"1")
    assert (response.status_code, response.text) == (404, "Invalid request - Missing or bad feed number.")


def test_deleted_feeds_are_404(service: RunningService, client: httpx.Client, feed_id: int) -> None:
    client.delete(f"/feed/{feed_id}", headers={"X-BUS-DR-ON-BEHALF-OF": "opsteam"})
    assert publish(service.url, feed_id, "a.txt", b"1").status_code == 404


def test_a_missing_file_id_is_404(service: RunningService, feed_id: int) -> None:
    with httpx.Client(base_url=service.url, auth=PUBLISHER) as client:
        for path in (f"/publish/{feed_id}", f"/publish/{feed_id}/"):
            for method in ("PUT", "DELETE"):
                response = client.request(method, path, content=b"1")
                assert (response.status_code, response.text) == (404, "Invalid request - Missing file ID.")


@pytest.mark.parametrize("file_id", ["a%2Fb", "%2E", "a/b", "tab%09name", "new%0Aline", "%7F", "%2E%2E"])
def test_file_ids_that_are_not_plain_names_are_400(
    service: RunningService, feed_id: int, file_id: str
) -> None:
    response = publish(service.url, feed_id, file_id, b"1")
    assert (response.status_code, response.text) == (400, "Invalid file ID.")
    assert nothing_stored(service)


@pytest.mark.parametrize(
    ("meta", "message"),
    [
        ("x" * 4097, "Metadata too long"),
        ("not json", "Malformed metadata"),
        ("[1, 2]", "Malformed metadata"),
        ('{"nested": {"a": 1}}', "Malformed metadata"),
        ('{"list": [1]}', "Malformed metadata"),
    ],
)
def test_bad_metadata_is_400(service: RunningService, feed_id: int, meta: str, message: str) -> None:
    for method in ("PUT", "DELETE"):
        response = publish(
            service.url, feed_id, "a.txt", b"1", method=method, headers={"X-BUS-DR-META": meta}
        )
        assert (response.status_code, response.text) == (400, message)
    assert nothing_stored(service)


def test_a_publish_without_content_type_is_400(service: RunningService, feed_id: int) -> None:
    with httpx.Client(base_url=service.url, auth=PUBLISHER, timeout=30) as raw:
        response = raw.put(f"/publish/{feed_id}/a.txt", content=b"1")
        retraction = raw.delete(f"/publish/{feed_id}/a.txt")
    assert (response.status_code, response.text) == (400, "Missing Content-Type header.")
    assert retraction.status_code == 204  # a retraction has no body, so no content type
    assert (
        publish(service.url, feed_id, "b.txt", b"1", headers={"Content-Type": "text/csv"}).status_code == 204
    )


def test_nul_in_a_file_id_is_refused_before_the_service(service: RunningService, feed_id: int) -> None:
    assert publish(service.url, feed_id, "bad%00name", b"1").status_code == 400
    assert nothing_stored(service)


def test_metadata_at_the_limit_and_flat_values_are_accepted(service: RunningService, feed_id: int) -> None:
    flat = '{"s":"x","n":1.5,"b":true,"z":null}'
    padded = '{"pad":"' + "p" * (4096 - 10) + '"}'
    assert len(padded) == 4096
    for meta in ("{}", flat, padded):
        assert (
            publish(service.url, feed_id, "a.txt", b"1", headers={"X-BUS-DR-META": meta}).status_code == 204
        )


def test_checks_run_in_the_reference_order(service: RunningService, client: httpx.Client) -> None:
    feed, _ = create_feed(
        client, suspend=True, authorization=authorization_with(endpoint_addrs=["10.0.0.0/8"])
    )
    bad_meta = {"X-BUS-DR-META": "nope"}
    assert publish(service.url, feed, "%2E%2E", b"1", auth=None, headers=bad_meta).status_code == 400
    assert publish(service.url, feed, "a", b"1", auth=None, headers=bad_meta).status_code == 401
    assert publish(service.url, feed, "a", b"1", headers=bad_meta).status_code == 403
    assert (
        publish(service.url, feed, "a", b"1", headers=bad_meta).text
        == "Publisher not permitted for this feed"
    )


def test_publish_ids_strictly_increase(service: RunningService, feed_id: int) -> None:
    ids = [publish(service.url, feed_id, f"f{n}", b"1").headers["X-BUS-DR-PUBLISH-ID"] for n in range(20)]
    stamps = [int(publish_id.split(".")[0]) for publish_id in ids]
    assert stamps == sorted(set(stamps))


def test_publish_bodies_are_not_held_to_the_request_body_limit(
    make_settings: SettingsFactory, start_service: ServiceStarter, tls: TlsFiles, subscriber: Receiver
) -> None:
    settings = make_settings(max_body_bytes=1024, delivery_ca_bundle=tls.ca_bundle, **FAST_DELIVERY)
    service = start_service("distribution", settings)
    with service.client() as client:
        feed, _ = create_feed(client)
        create_subscription(client, feed, subscriber.url + "/in")
    data = os.urandom(3 * 1024 * 1024)
    assert publish(service.url, feed, "big.bin", data).status_code == 204
    assert subscriber.wait_for(1)[0].body == data


def test_an_interrupted_upload_leaves_no_file_no_delivery_and_no_record(
    service: RunningService, client: httpx.Client, feed_id: int
) -> None:
    host, port = service.url.removeprefix("http://").split(":")
    credentials = base64.b64encode(b"collector1:s3cret-pw").decode()
    with socket.create_connection((host, int(port))) as connection:
        connection.sendall(
            (
                f"PUT /publish/{feed_id}/partial.bin HTTP/1.1\r\nHost: {host}\r\n"
                f"Authorization: Basic {credentials}\r\nContent-Length: 10000000\r\n\r\n"
            ).encode()
            + b"x" * 2_000_000
        )
        # A fixed wait on purpose: the partial body must reach the service before the connection drops.
        time.sleep(0.3)
    wait_until(lambda: nothing_stored(service), timeout=10)
    assert feed_log(client, feed_id) == []
